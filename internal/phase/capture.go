package phase

// capture.go: a captured hop (internal/bpf's c/capture.h) read through a
// phase model. The kernel copies out, for a hop past the threshold (or one
// of its samples), the hop's own times and the recent entries of the CPUs
// it crossed: the segments cut() closed (the transitions the matrices add
// up), the interrupts, and every switch with the next task's pid and name.
// Here those entries become the hop's parts, on one time axis:
//
//   - a hop on one CPU is that CPU's timeline from the waker's syscall
//     entry to the wakee's return;
//   - a hop across CPUs is the waker's CPU up to its handoff (the IPI's
//     send, or the wakeup completed there), then the wakee's CPU up to the
//     wakee's return;
//
// and each stretch is what ran then: a phase of the model for the hop's
// own tasks (attributed exactly as the matrices are: Context, From, To),
// another task's time (named), interrupts, the wakee's idle CPU waiting
// for the IPI (its flight), or time the model does not know. The parts
// tile the hop by construction, so the closure says how much of it was
// named, not whether the arithmetic adds up.

import (
	"cmp"
	"fmt"
	"math/bits"
	"slices"

	"github.com/ctxbench/ctxbench/internal/model"
)

// CaptureStats are a window's counts, per CPU added up, as the loader
// (internal/bpf's Tracer.Captured) read them.
type CaptureStats struct {
	Hops, Warmup, Past   uint64
	SlowOut, SampleOut   uint64
	SlowLost, SampleLost uint64
	Stale                uint64
	CaptureNs            uint64
	Hist                 []uint64 // every hop's length (CaptureBucketRange)
	Method               string   // how the hops came out (internal/bpf's CaptureRingBuffer or CapturePerfArray)
	CrossCopy            bool
	Unreadable           uint64 // records that did not decode
}

// EntryType is what a ring entry is (enum cap_ent_type).
type EntryType uint8

// The entry types.
const (
	EntSegment EntryType = 1
	EntIRQ     EntryType = 2
	EntSwitch  EntryType = 3
)

// LogEntry is one entry of a CPU's ring.
type LogEntry struct {
	Ts   uint64 // a segment's or interrupt's start; a switch's time
	Wall uint32 // a segment's or interrupt's length
	Ns   uint32 // a segment's length less the interrupts recorded inside it
	TID  uint32 // the task that opened a segment; a switch's next task
	Type EntryType
	Ctx  Context
	From Kind // a segment's opening kind; an interrupt's kind; a switch: 1 if prev was tracked
	To   Kind // a segment's closing kind; a switch: 1 if next is tracked
	Comm string
}

func (e LogEntry) end() uint64 { return e.Ts + uint64(e.Wall) }

// CapturedHop is one hop as the kernel copied it out.
type CapturedHop struct {
	Start, End uint64 // the waker's syscall entry, the wakee's return (kernel clock)
	Waking     uint64 // sched_waking
	Handoff    uint64 // the waker's last event on the path (0: not seen)
	Threshold  uint64
	Seq        uint64
	WakerCPU   int
	WakeeCPU   int
	WakerTID   int
	WakeeTID   int
	PrevCPU    int // the wakee's CPU before the wakeup (-1: not known)
	Slow       bool
	Sampled    bool
	// Entries[0] are the wakee's CPU's, Entries[1] the waker's when it is
	// another, oldest first.
	Entries [2][]LogEntry
}

// Ns is the hop's length on the kernel's clock.
func (h CapturedHop) Ns() uint64 {
	if h.End < h.Start {
		return 0
	}
	return h.End - h.Start
}

// NumCaptureBuckets is the hop-length histogram's size (NCAPHIST).
const NumCaptureBuckets = 560

// CaptureBucketRange is the [lo, hi) ns of bucket i of the hop-length
// histogram: 1 ns wide below 16 ns, then 16 per power of two.
func CaptureBucketRange(i int) (lo, hi float64) {
	if i < 16 {
		return float64(i), float64(i + 1)
	}
	b := i + 48
	o, sub := b>>4, b&15
	return float64(uint64(16+sub) << (o - 4)), float64(uint64(17+sub) << (o - 4))
}

// captureBucket is the bucket of v, as the kernel computes it.
func captureBucket(v uint64) int {
	if v < 16 {
		return int(v)
	}
	o := bits.Len64(v) - 1
	b := (o<<4 | int(v>>(o-4))&15) - 48
	return min(b, NumCaptureBuckets-1)
}

// HistQuantile is the q-th quantile of a hop-length histogram: the middle
// of the bucket that holds it (at most 3% from the hop it stands for).
func HistQuantile(hist []uint64, q float64) float64 {
	var n uint64
	for _, c := range hist {
		n += c
	}
	if n == 0 {
		return 0
	}
	want := uint64(q*float64(n) + 0.5)
	want = max(want, 1)
	var seen uint64
	for i, c := range hist {
		seen += c
		if seen >= want {
			lo, hi := CaptureBucketRange(i)
			return (lo + hi) / 2
		}
	}
	lo, hi := CaptureBucketRange(len(hist) - 1)
	return (lo + hi) / 2
}

// HopBreakdown is a captured hop read through a model.
type HopBreakdown struct {
	Ns        uint64
	Phases    []model.HopPhase
	Pieces    []model.HopPiece
	Closure   float64 // the known causes over Ns
	Truncated bool
	Migrated  bool
	// OtherSyscalls: the hop's own tasks entered syscalls its model does
	// not hold meanwhile (a benchmark's loop between samples; a load
	// generator's timer).
	OtherSyscalls bool
}

// SplitHop is the reader of captured hops of the model named phases (a
// benchmark's Phases): a hop on one CPU through the one-CPU model, a hop
// across CPUs through the cross-CPU one where there is one. ok is false
// when the model does not exist.
func SplitHop(phases string) (func(CapturedHop) HopBreakdown, bool) {
	one, ok := oneCPU[phases]
	if !ok {
		return nil, false
	}
	cross := acrossCPUs[phases]
	return func(h CapturedHop) HopBreakdown {
		if h.WakerCPU != h.WakeeCPU && cross != nil {
			return cross.hop(h)
		}
		return one.hop(h)
	}, true
}

// HopCalls are the syscalls a captured hop of the model named phases
// begins and ends in: the waker's wake call (its entry) and the wakee's
// sleep call (its exit). ok is false for a model whose hops wake nobody
// (a yield, a VM's exit), which has nothing to capture.
func HopCalls(phases string) (wake, sleep Kind, ok bool) {
	md, found := oneCPU[phases]
	if !found || md.wake == KindNone {
		return KindNone, KindNone, false
	}
	return md.wake, md.sleep, true
}

// span is a stretch [lo, hi) of one CPU's timeline.
type span struct{ lo, hi uint64 }

func (s span) overlap(a, b uint64) uint64 {
	lo, hi := max(s.lo, a), min(s.hi, b)
	if hi <= lo {
		return 0
	}
	return hi - lo
}

// hopReader gathers a hop's parts.
type hopReader struct {
	md     *phaseModel
	h      CapturedHop
	comms  map[int]string // every task a switch named, either CPU
	out    HopBreakdown
	byKey  map[string]int
	pieces []model.HopPiece
}

// hop reads h through md.
func (md *phaseModel) hop(h CapturedHop) HopBreakdown {
	r := &hopReader{md: md, h: h, byKey: map[string]int{}, comms: map[int]string{}}
	for _, es := range h.Entries {
		for _, e := range es {
			if e.Type == EntSwitch && e.Comm != "" {
				r.comms[int(e.TID)] = e.Comm
			}
		}
	}
	r.out.Ns = h.Ns()
	r.out.Migrated = h.PrevCPU >= 0 && h.PrevCPU != h.WakeeCPU
	if r.out.Ns == 0 {
		return r.out
	}
	if h.WakerCPU == h.WakeeCPU {
		r.cpu(h.WakeeCPU, h.Entries[0], span{h.Start, h.End}, "")
	} else {
		hand := h.Handoff
		if hand == 0 || hand < h.Start || hand > h.End {
			hand = h.Waking
		}
		hand = min(max(hand, h.Start), h.End)
		r.cpu(h.WakerCPU, h.Entries[1], span{h.Start, hand}, model.SideWaker)
		r.cpu(h.WakeeCPU, h.Entries[0], span{hand, h.End}, model.SideWakee)
	}
	slices.SortStableFunc(r.pieces, func(a, b model.HopPiece) int { return cmp.Compare(a.AtNs, b.AtNs) })
	// The parts in the order they first ran.
	order := make([]int, 0, len(r.out.Phases))
	at := make([]int, len(r.out.Phases))
	for i := range at {
		at[i] = -1
	}
	for _, p := range r.pieces {
		if at[p.Phase] < 0 {
			at[p.Phase] = len(order)
			order = append(order, p.Phase)
		}
	}
	phases := make([]model.HopPhase, len(order))
	for i, old := range order {
		phases[i] = r.out.Phases[old]
	}
	for i := range r.pieces {
		r.pieces[i].Phase = at[r.pieces[i].Phase]
	}
	r.out.Phases = phases
	r.out.Pieces = r.pieces
	var known float64
	for _, p := range r.out.Phases {
		if p.Cause.Known() {
			known += p.Ns
		}
	}
	r.out.Closure = known / float64(r.out.Ns)
	return r.out
}

// add puts ns of phase p (at at on cpu) into the hop.
func (r *hopReader) add(cpu int, at, ns uint64, p model.HopPhase) {
	if ns == 0 {
		return
	}
	k := p.Key()
	i, ok := r.byKey[k]
	if !ok {
		i = len(r.out.Phases)
		r.byKey[k] = i
		r.out.Phases = append(r.out.Phases, p)
	}
	r.out.Phases[i].Ns += float64(ns)
	r.out.Phases[i].Count++
	r.pieces = append(r.pieces, model.HopPiece{CPU: cpu, AtNs: float64(at - r.h.Start), Ns: float64(ns), Phase: i})
}

// cpu reads one CPU's entries over w: the segments that cover it, split
// where the running task changed, less the interrupts inside them, which
// are parts of their own; what no segment covers is not recorded.
func (r *hopReader) cpu(cpu int, entries []LogEntry, w span, side model.Side) {
	if w.hi <= w.lo {
		return
	}
	var segs, irqs, switches []LogEntry
	for _, e := range entries {
		if e.Ts == 0 {
			continue
		}
		switch e.Type {
		case EntSegment:
			segs = append(segs, e)
		case EntIRQ:
			irqs = append(irqs, e)
		case EntSwitch:
			switches = append(switches, e)
		}
	}
	slices.SortStableFunc(switches, func(a, b LogEntry) int { return cmp.Compare(a.Ts, b.Ts) })
	// Interrupts: parts of their own, wherever they landed.
	for _, q := range irqs {
		if ov := w.overlap(q.Ts, q.end()); ov > 0 {
			k := q.From
			r.add(cpu, max(q.Ts, w.lo), ov, model.HopPhase{Name: "interrupts: " + k.String(), Cause: model.CauseInterrupts,
				Kinds: []model.PhaseKind{model.PhaseInterrupts}, CPU: string(side)})
		}
	}
	// Segments in the order they were closed; each covers what no earlier
	// one did. They tile the CPU, except where a probe read the clock,
	// was held up (on a guest the host can stop a vCPU anywhere) and
	// closed its segment after others had: that segment reaches back over
	// time already covered, which it must not count again.
	var covered []span
	for _, s := range segs {
		lo, hi := max(s.Ts, w.lo), min(s.end(), w.hi)
		for _, free := range uncovered(covered, span{lo, hi}) {
			r.segment(cpu, s, free, switches, irqs, side)
		}
		if hi > lo {
			covered = append(covered, span{lo, hi})
		}
	}
	for _, gap := range uncovered(covered, w) {
		r.unrecorded(cpu, gap.lo, gap.hi, side)
	}
}

// uncovered is what of s the spans do not cover, in order.
func uncovered(spans []span, s span) []span {
	if s.hi <= s.lo {
		return nil
	}
	sorted := slices.Clone(spans)
	slices.SortFunc(sorted, func(a, b span) int { return cmp.Compare(a.lo, b.lo) })
	var out []span
	at := s.lo
	for _, c := range sorted {
		if c.hi <= at || c.lo >= s.hi {
			continue
		}
		if c.lo > at {
			out = append(out, span{at, c.lo})
		}
		at = max(at, c.hi)
		if at >= s.hi {
			break
		}
	}
	if at < s.hi {
		out = append(out, span{at, s.hi})
	}
	return out
}

// segment names the part free of segment s: split where the running task
// changed, less the interrupts inside it (parts of their own).
func (r *hopReader) segment(cpu int, s LogEntry, free span, switches, irqs []LogEntry, side model.Side) {
	cuts := []uint64{free.lo}
	for _, sw := range switches {
		if sw.Ts > free.lo && sw.Ts < free.hi {
			cuts = append(cuts, sw.Ts)
		}
	}
	cuts = append(cuts, free.hi)
	for i := 0; i+1 < len(cuts); i++ {
		a, b := cuts[i], cuts[i+1]
		ns := b - a
		for _, q := range irqs {
			ns -= min(ns, span{a, b}.overlap(q.Ts, q.end()))
		}
		tid, comm := running(switches, a, s)
		r.piece(cpu, s, a, ns, tid, comm, side)
	}
}

// running is the task on the CPU at t: the next task of the last switch
// at or before t, else the task that opened the segment.
func running(switches []LogEntry, t uint64, s LogEntry) (tid int, comm string) {
	tid = int(s.TID)
	for _, sw := range switches {
		if sw.Ts > t {
			break
		}
		tid, comm = int(sw.TID), sw.Comm
	}
	return tid, comm
}

func (r *hopReader) unrecorded(cpu int, lo, hi uint64, side model.Side) {
	r.out.Truncated = true
	r.add(cpu, lo, hi-lo, model.HopPhase{Name: "not recorded (the copied entries do not reach back here)", Cause: model.CauseUnrecorded, CPU: string(side)})
}

// piece names ns of segment s from at, while task tid ran.
func (r *hopReader) piece(cpu int, s LogEntry, at, ns uint64, tid int, comm string, side model.Side) {
	h := r.h
	own := tid == h.WakerTID || tid == h.WakeeTID
	switch {
	case tid != 0 && !own:
		if comm == "" {
			comm = r.comms[tid]
		}
		if comm == "" {
			comm = fmt.Sprintf("pid %d", tid)
		}
		r.add(cpu, at, ns, model.HopPhase{Name: "another task ran: " + comm, Cause: model.CauseOtherTask, CPU: string(side),
			Task: &model.Task{Comm: comm, PID: tid}})
		return
	case tid == 0 || s.Ctx == CtxIdle:
		a, ok := r.md.attribute(s.Ctx, s.From, s.To)
		if ok && r.md.cross && !slices.Contains(a.kinds, model.PhaseIdle) {
			r.add(cpu, at, ns, r.modelPhase(a, s, side))
			return
		}
		if side == model.SideWakee {
			r.add(cpu, at, ns, model.HopPhase{Name: "the wakee's CPU idle until the IPI arrived (its flight, the idle state's wake-up)",
				Cause: model.CauseIPIFlight, Kinds: []model.PhaseKind{model.PhaseIPIFlight}, CPU: string(model.SideBetween)})
			return
		}
		r.add(cpu, at, ns, model.HopPhase{Name: "the CPU idle", Cause: model.CauseIdle, Kinds: []model.PhaseKind{model.PhaseIdle}, CPU: string(side)})
		return
	}
	nodes := r.md.nodes()
	other := false
	for _, k := range []Kind{s.From, s.To} {
		if k >= KindEnterRead && k <= KindExitOther && !nodes[k] {
			other = true
		}
	}
	a, ok := r.md.attribute(s.Ctx, s.From, s.To)
	if ok {
		r.add(cpu, at, ns, r.modelPhase(a, s, side))
		return
	}
	if other {
		// A syscall the model does not hold, by one of the hop's own tasks.
		r.out.OtherSyscalls = true
		who := "the woken task's"
		if tid == h.WakerTID {
			who = "the waker's"
		}
		r.add(cpu, at, ns, model.HopPhase{Name: fmt.Sprintf("%s other work: %s -> %s", who, s.From, s.To), Cause: model.CauseOtherWork,
			From: s.From.String(), To: s.To.String(), CPU: string(side)})
		return
	}
	// The scheduler's own way to and from another task or idle, which the
	// models of an undisturbed hop do not hold (on one CPU they count it
	// as others' time): the pick that chose another task, the switch back.
	if p, ok := foreignSwitch(s); ok {
		p.CPU = string(side)
		r.add(cpu, at, ns, p)
		return
	}
	r.add(cpu, at, ns, model.HopPhase{Name: fmt.Sprintf("not attributed: %s -> %s", s.From, s.To), Cause: model.CauseUnattributed,
		From: s.From.String(), To: s.To.String(), CPU: string(side)})
}

// foreignSwitch names a hop's task's segment that ends in a switch to
// another task or idle (the pick that chose it) or begins at a switch from
// one (the switch back to the hop's task), or that went from schedule()
// straight back into it: the scheduler's work on paths an undisturbed
// hop's model does not hold.
func foreignSwitch(s LogEntry) (model.HopPhase, bool) {
	p := model.HopPhase{Cause: model.CauseWork, From: s.From.String(), To: s.To.String()}
	switch {
	case s.To == KindSwitchToOther || s.To == KindSwitchToIdle:
		p.Name, p.Kinds = "schedule(): pick another task or idle", []model.PhaseKind{model.PhaseSchedule}
	case s.From == KindSwitchFromOther || s.From == KindSwitchFromIdle || s.From == KindSwitchToOther || s.From == KindSwitchToIdle:
		p.Name, p.Kinds = "context switch to or from another task or idle", []model.PhaseKind{model.PhaseSwitch}
	case s.From == KindSchedExit && s.To == KindSchedEntry:
		// Back from schedule() and into it again with no syscall between:
		// preempted on the way back (a wakeup or the tick asked).
		p.Name, p.Kinds = "resumed and preempted at once", []model.PhaseKind{model.PhasePreempt}
	default:
		return p, false
	}
	return p, true
}

// modelPhase is attribution a of segment s as a part of the hop.
func (r *hopReader) modelPhase(a attribution, s LogEntry, side model.Side) model.HopPhase {
	p := model.HopPhase{Name: a.name, Cause: model.CauseWork, Kinds: a.kinds, From: s.From.String(), To: s.To.String()}
	if r.md.cross {
		p.CPU = string(r.md.edges[a.first].side)
		if p.CPU == "" {
			p.CPU = string(side)
		}
	}
	if slices.Contains(a.kinds, model.PhaseIdleExit) {
		p.Cause = model.CauseIdleExit
	}
	return p
}
