package phase

import (
	"math/bits"
	"slices"
)

// NumBuckets is the number of log2 histogram buckets of a cell: bucket i
// holds segments of [2^i, 2^(i+1)) ns (bucket 0 also holds 0 ns), the last
// one everything from 2^(NumBuckets-1) ns up.
const NumBuckets = 28

// Cell is the time between two consecutive events on one CPU, added up over
// every time the pair occurred: From opened a segment and To closed it. If
// To is an interrupt, the cell is the time spent in interrupts of that kind
// that landed in segments opened by From (that time is not in From's other
// cells).
type Cell struct {
	Ns    uint64             `json:"ns"`
	Count uint64             `json:"count"`
	Hist  [NumBuckets]uint64 `json:"hist"`
}

func (c *Cell) add(o *Cell) {
	c.Ns += o.Ns
	c.Count += o.Count
	for i := range c.Hist {
		c.Hist[i] += o.Hist[i]
	}
}

// Mean is the average segment in ns (0 if it never occurred).
func (c Cell) Mean() float64 {
	if c.Count == 0 {
		return 0
	}
	return float64(c.Ns) / float64(c.Count)
}

// Quantile is the upper bound, in ns, of the histogram bucket holding the
// q-th quantile (0 < q <= 1): a log2 resolution answer.
func (c Cell) Quantile(q float64) uint64 {
	if c.Count == 0 {
		return 0
	}
	want := uint64(q*float64(c.Count) + 0.5)
	if want == 0 {
		want = 1
	}
	var seen uint64
	for i, n := range c.Hist {
		seen += n
		if seen >= want {
			return 1<<uint(i+1) - 1
		}
	}
	return 1<<NumBuckets - 1
}

// Context is what ran on a CPU when the event that opened a segment
// fired: a task, or the idle task of a CPU a tracked task left idle (enum
// context in internal/bpf/c/kinds.h). The same two kinds can be different
// work in the two: an enqueue from a waker's syscall onto another CPU's
// runqueue, or from the IPI handler on an idle wakee's CPU. The cells keep
// them apart.
type Context uint8

// The contexts.
const (
	CtxTask Context = 0
	CtxIdle Context = 1
	// NumContexts is the matrix's third side (NCTX in kinds.h).
	NumContexts = 2
)

func (c Context) String() string {
	if c == CtxIdle {
		return "idle"
	}
	return "task"
}

// Transition is one non-empty cell: the context and the two kinds.
type Transition struct {
	Ctx      Context
	From, To Kind
	Cell
}

// KVMExit is what one KVM exit reason cost: how many exits, and the time
// from each kvm_exit to the next event (the exit's handling in the kernel).
type KVMExit struct {
	Reason uint32 `json:"reason"`
	Count  uint64 `json:"count"`
	Ns     uint64 `json:"ns"`
}

// KVMReasonOther is the reason slot of exits whose reason is out of range
// or could not be read (no known backend in the kernel's BTF).
const KVMReasonOther = 255

// Matrix is what one CPU (or all of them, added up) recorded since the
// last reset. Cells[ctx][from][to] tile the CPU's timeline from its first
// recorded event to its last: their sum is SpanNs, up to Misordered.
type Matrix struct {
	CPU   int // -1: the sum over CPUs
	Cells [NumContexts][NumKinds][NumKinds]Cell
	// Events counts every recorded event by kind, including those inside
	// interrupts (which cut no segment) and need-resched marks.
	Events [NumKinds]uint64
	// Cross[k] is the time from a tracked task's sched_waking on another
	// CPU to the event k on this one that it caused: KindIPIIn (the IPI
	// reached this idle CPU) or KindWakeup (this CPU completed the wakeup
	// with no IPI on its idle timeline). Apart from Cells: it spans two
	// CPUs' timelines, which Cells tile one at a time.
	Cross [NumKinds]Cell
	// FirstNs and LastNs are the kernel clock (CLOCK_MONOTONIC) of the first
	// and the last segment boundary; SpanNs is LastNs-FirstNs, or for the
	// sum, the spans of the CPUs added up.
	FirstNs, LastNs, SpanNs uint64

	SwitchesOut uint64 // sched_switch away from a tracked task
	SwitchesIn  uint64 // sched_switch to a tracked task
	Preempted   uint64 // of SwitchesOut, those whose task was still runnable
	// Misordered counts segments that came out negative and were counted as
	// 0 ns: a probe interrupted between reading the clock and updating the
	// CPU's state (rare; it breaks the tiling by that segment).
	Misordered uint64
	// Nested counts events that happened inside an interrupt.
	Nested uint64
	// KVMISA is the isa argument of the last kvm_exit (the backend's number).
	KVMISA uint64
	// KVMExits by reason, in reason order; TLBFlushes by tlb_flush reason
	// (0 task switch that flushed, 1 remote shootdown, 2 local shootdown,
	// 3 local mm shootdown, 4 remote IPI send, TLBKeptOnSwitch an
	// address-space switch whose entries the PCID kept: nothing flushed).
	KVMExits   []KVMExit
	TLBFlushes [8]uint64
}

// TLBKeptOnSwitch is the TLBFlushes index of an address-space switch that
// flushed nothing (kinds.h TLB_KEPT_ON_SWITCH).
const TLBKeptOnSwitch = 6

// Cell returns the cell from -> to, in both contexts added up.
func (m *Matrix) Cell(from, to Kind) Cell {
	var c Cell
	for x := range Context(NumContexts) {
		o := m.CellIn(x, from, to)
		c.add(&o)
	}
	return c
}

// CellIn returns the cell from -> to of the segments opened in context x.
func (m *Matrix) CellIn(x Context, from, to Kind) Cell {
	if int(x) >= NumContexts || int(from) >= NumKinds || int(to) >= NumKinds {
		return Cell{}
	}
	return m.Cells[x][from][to]
}

// TracedNs is the sum of every cell: the traced time.
func (m *Matrix) TracedNs() uint64 {
	var t uint64
	for x := range m.Cells {
		for i := range m.Cells[x] {
			for j := range m.Cells[x][i] {
				t += m.Cells[x][i][j].Ns
			}
		}
	}
	return t
}

// Firings is how many times a probe program ran and recorded: every
// event (those inside interrupts and the need-resched marks too), and
// every interrupt's exit, which Events does not count.
func (m *Matrix) Firings() uint64 {
	var n uint64
	for k, c := range m.Events {
		n += c
		if Kind(k).IsInterrupt() {
			n += c // its exit
		}
	}
	return n
}

// Transitions lists the non-empty cells, most time first.
func (m *Matrix) Transitions() []Transition {
	var out []Transition
	for x := range m.Cells {
		for i := range m.Cells[x] {
			for j := range m.Cells[x][i] {
				if c := m.Cells[x][i][j]; c.Count > 0 {
					out = append(out, Transition{Context(x), Kind(i), Kind(j), c})
				}
			}
		}
	}
	slices.SortStableFunc(out, func(a, b Transition) int {
		switch {
		case a.Ns > b.Ns:
			return -1
		case a.Ns < b.Ns:
			return 1
		}
		return 0
	})
	return out
}

// add adds o into m (for the sum over CPUs).
func (m *Matrix) add(o *Matrix) {
	for x := range m.Cells {
		for i := range m.Cells[x] {
			for j := range m.Cells[x][i] {
				m.Cells[x][i][j].add(&o.Cells[x][i][j])
			}
		}
	}
	for i := range m.Events {
		m.Events[i] += o.Events[i]
		m.Cross[i].add(&o.Cross[i])
	}
	if o.SpanNs > 0 {
		if m.FirstNs == 0 || o.FirstNs < m.FirstNs {
			m.FirstNs = o.FirstNs
		}
		m.LastNs = max(m.LastNs, o.LastNs)
		m.SpanNs += o.SpanNs
	}
	m.SwitchesOut += o.SwitchesOut
	m.SwitchesIn += o.SwitchesIn
	m.Preempted += o.Preempted
	m.Misordered += o.Misordered
	m.Nested += o.Nested
	if o.KVMISA != 0 {
		m.KVMISA = o.KVMISA
	}
	for i := range m.TLBFlushes {
		m.TLBFlushes[i] += o.TLBFlushes[i]
	}
	for _, e := range o.KVMExits {
		i := slices.IndexFunc(m.KVMExits, func(x KVMExit) bool { return x.Reason == e.Reason })
		if i < 0 {
			m.KVMExits = append(m.KVMExits, e)
			continue
		}
		m.KVMExits[i].Count += e.Count
		m.KVMExits[i].Ns += e.Ns
	}
	slices.SortFunc(m.KVMExits, func(a, b KVMExit) int { return int(a.Reason) - int(b.Reason) })
}

// MethodRawTracepoints is how the kernel is probed, the only method
// implemented: every boundary is a raw tracepoint (attached by name,
// without tracefs). The phase models are built on those boundaries.
const MethodRawTracepoints = "raw tracepoints only"

// Snapshot is everything the tracer has recorded since the last reset.
type Snapshot struct {
	// Method says how the kernel was probed ("raw tracepoints only").
	Method string
	// PerCPU has one Matrix per possible CPU, in CPU order.
	PerCPU []Matrix
	// Sum is PerCPU added up.
	Sum Matrix
}

// CPU returns CPU cpu's matrix, or an empty one if there is no such CPU.
func (s *Snapshot) CPU(cpu int) *Matrix {
	if cpu < 0 || cpu >= len(s.PerCPU) {
		return &Matrix{CPU: cpu}
	}
	return &s.PerCPU[cpu]
}

// Pair is the matrices of CPUs a and b added up: the two timelines of a
// hop across CPUs (a alone when a == b).
func (s *Snapshot) Pair(a, b int) *Matrix {
	m := &Matrix{CPU: -1}
	m.add(s.CPU(a))
	if b != a {
		m.add(s.CPU(b))
	}
	return m
}

// NewSnapshot is the snapshot of perCPU (one matrix per possible CPU, in
// CPU order) recorded by method, with Sum built from them: what the loader
// (internal/bpf's Tracer.Snapshot) returns.
func NewSnapshot(method string, perCPU []Matrix) Snapshot {
	s := Snapshot{Method: method, PerCPU: perCPU, Sum: Matrix{CPU: -1}}
	for i := range s.PerCPU {
		s.Sum.add(&s.PerCPU[i])
	}
	return s
}

// bucket is the histogram bucket of a segment of ns, as the BPF side
// computes it (used by tests and by synthetic matrices).
func bucket(ns uint64) int {
	if ns == 0 {
		return 0
	}
	return min(bits.Len64(ns)-1, NumBuckets-1)
}
