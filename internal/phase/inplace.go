package phase

// inplace.go: what the in-place programs (internal/bpf's attach: c/attach.bpf.c)
// recorded for each target of ctxbench attach, and the model that reads a
// switch's path as phases. A path runs on one CPU from the outgoing task's
// entry into the syscall it blocks in (or into __schedule when it was
// preempted) through sched_switch to the incoming task's return to user
// space; the wakeup that made the incoming task runnable is added to it.
// The programs add each segment to a cell [slot][slot] as explain's
// matrices do (only the path's segments: the target's own work between
// switches is never recorded), so the same attribution reads them: a
// segment that skips an optional boundary (a kernel without
// sched_entry_tp, no FPU restore) is the phases it spans, merged.

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"

	"github.com/ctxbench/ctxbench/internal/model"
)

// Sizes of c/attach.h (internal/bpf's test checks them against the object).
const (
	// InPlaceTargets is how many targets one attach measures (MAX_TARGETS).
	InPlaceTargets = 8
	// InPlaceBuckets is a histogram's buckets (NHIST): 0 to 7 ns one
	// bucket each, then four per power of two, the last open-ended.
	InPlaceBuckets = 160
	// InPlaceSyscalls is the syscall numbers counted one by one (NSYS);
	// larger ones share the last slot.
	InPlaceSyscalls = 512
)

// Slot is a boundary of a switch's path (enum slot in c/attach.h).
type Slot uint8

// The slots, in the order of enum slot.
const (
	SlotNone Slot = iota
	SlotSysEnter
	SlotSysExit
	SlotSchedEntry
	SlotSwitch
	SlotSwitchToOther
	SlotSwitchToIdle
	SlotSwitchFromOther
	SlotSwitchFromIdle
	SlotSchedExit
	SlotFPULoad
	SlotWaking
	SlotWakeup
	// NumSlots is NSLOT.
	NumSlots = 13
)

// slotKinds is the event kind each slot is: the in-place programs do not
// split syscalls by class, so every entry is KindEnterOther and every
// return KindExitOther.
var slotKinds = [NumSlots]Kind{
	SlotNone: KindNone, SlotSysEnter: KindEnterOther, SlotSysExit: KindExitOther, SlotSchedEntry: KindSchedEntry,
	SlotSwitch: KindSwitch, SlotSwitchToOther: KindSwitchToOther, SlotSwitchToIdle: KindSwitchToIdle,
	SlotSwitchFromOther: KindSwitchFromOther, SlotSwitchFromIdle: KindSwitchFromIdle, SlotSchedExit: KindSchedExit,
	SlotFPULoad: KindFPULoad, SlotWaking: KindWaking, SlotWakeup: KindWakeup,
}

// Kind is the event kind the slot records.
func (s Slot) Kind() Kind {
	if int(s) >= NumSlots {
		return KindNone
	}
	return slotKinds[s]
}

// SlotNames are the C names of the slots (enum slot), for the test that
// compares them with the object.
var SlotNames = [NumSlots]string{"SL_NONE", "SL_SYS_ENTER", "SL_SYS_EXIT", "SL_SCHED_ENTRY", "SL_SWITCH",
	"SL_SWITCH_TO_OTHER", "SL_SWITCH_TO_IDLE", "SL_SWITCH_FROM_OTHER", "SL_SWITCH_FROM_IDLE", "SL_SCHED_EXIT",
	"SL_FPU_LOAD", "SL_WAKING", "SL_WAKEUP"}

// SwitchClass is a kind of switch (enum class): how the outgoing task
// left and how the incoming one came.
type SwitchClass uint8

// The classes, in the order of enum class.
const (
	ClassVoluntary   SwitchClass = iota // the outgoing task blocked
	ClassInvoluntary                    // it was preempted, still runnable
	ClassWokenSame                      // the incoming task was woken from this CPU
	ClassWokenCross                     // ... from another CPU
	ClassResumed                        // it was resumed after a preemption
	ClassNew                            // its first run
	ClassUnknown                        // its past was not seen (before the attach, or a full table)
	NumClasses       = 7
)

// ClassNames are the C names (enum class).
var ClassNames = [NumClasses]string{"CL_VOLUNTARY", "CL_INVOLUNTARY", "CL_WOKEN_SAME", "CL_WOKEN_CROSS",
	"CL_RESUMED", "CL_NEW", "CL_UNKNOWN"}

// Key is the class's name in the result file.
func (c SwitchClass) Key() string {
	return [...]string{"voluntary", "involuntary", "woken_same_cpu", "woken_cross_cpu", "resumed", "new", "unknown"}[c]
}

// RunQueueKind is how a task became runnable before a wait on a run
// queue (enum rq).
type RunQueueKind uint8

// The kinds, in the order of enum rq.
const (
	RunQueueWokenSame RunQueueKind = iota
	RunQueueWokenCross
	RunQueuePreempted
	RunQueueNew
	NumRunQueueKinds = 4
)

// RunQueueNames are the C names (enum rq).
var RunQueueNames = [NumRunQueueKinds]string{"RQ_WOKEN_SAME", "RQ_WOKEN_CROSS", "RQ_PREEMPTED", "RQ_NEW"}

// Key is the kind's name in the result file.
func (r RunQueueKind) Key() string {
	return [...]string{"woken_same_cpu", "woken_cross_cpu", "preempted", "new"}[r]
}

// Counter indexes InPlaceTarget.Counts (enum counter in c/attach.h; see
// there what each counts).
type Counter uint8

// The counters, in the order of enum counter.
const (
	CountOutVoluntary Counter = iota
	CountOutInvoluntary
	CountIn
	CountOutToIdle
	CountInFromIdle
	CountPreemptBySame
	CountPreemptByTarget
	CountPreemptByKthread
	CountPreemptByOther
	CountWakeups
	CountWakeupsBySame
	CountWakeRemote
	CountTimed
	CountUntimed
	CountInTimed
	CountMigrated
	CountPaths
	CountPathOpen
	CountWakeNs
	CountWakeN
	CountRunQueueNs // + RunQueueKind
	_
	_
	_
	CountRunQueueN // + RunQueueKind
	_
	_
	_
	CountStateMiss
	CountMisordered
	CountSelfFromIdle
	// NumCounters is NCOUNTERS (room for more).
	NumCounters = 32
)

// CounterNames are the C names, in order (enum counter).
var CounterNames = []string{"C_OUT_VOLUNTARY", "C_OUT_INVOLUNTARY", "C_IN", "C_OUT_TO_IDLE", "C_IN_FROM_IDLE",
	"C_PREEMPT_BY_SAME", "C_PREEMPT_BY_TARGET", "C_PREEMPT_BY_KTHREAD", "C_PREEMPT_BY_OTHER", "C_WAKEUPS",
	"C_WAKEUPS_BY_SAME", "C_WAKE_REMOTE", "C_TIMED", "C_UNTIMED", "C_IN_TIMED", "C_MIGRATED", "C_PATHS",
	"C_PATH_OPEN", "C_WAKE_NS", "C_WAKE_N", "C_RUNQ_NS_0", "C_RUNQ_NS_1", "C_RUNQ_NS_2", "C_RUNQ_NS_3",
	"C_RUNQ_N_0", "C_RUNQ_N_1", "C_RUNQ_N_2", "C_RUNQ_N_3", "C_STATE_MISS", "C_MISORDERED", "C_SELF_FROM_IDLE"}

// Seg is a sum of segments: their time and how many.
type Seg struct {
	Ns    uint64 `json:"ns"`
	Count uint64 `json:"count"`
}

// Hist is a log-linear histogram of nanoseconds (the in-place programs'
// layout: hbucket in c/attach.bpf.c).
type Hist [InPlaceBuckets]uint64

// HistBounds is bucket i's range [lo, hi) in ns.
func HistBounds(i int) (lo, hi uint64) {
	if i < 8 {
		return uint64(i), uint64(i) + 1
	}
	m := uint(3 + (i-8)/4)
	sub := uint64((i - 8) % 4)
	lo = (4 + sub) << (m - 2)
	if i == InPlaceBuckets-1 {
		return lo, math.MaxUint64
	}
	return lo, (5 + sub) << (m - 2)
}

// HistBucket is the bucket of v ns, as the programs compute it.
func HistBucket(v uint64) int {
	if v < 8 {
		return int(v)
	}
	m := 63 - bits.LeadingZeros64(v)
	i := 8 + (m-3)*4 + int(v>>(m-2)&3)
	return min(i, InPlaceBuckets-1)
}

// Count is the values the histogram holds.
func (h *Hist) Count() uint64 {
	var n uint64
	for _, c := range h {
		n += c
	}
	return n
}

// Quantile is the q-th quantile (0 < q <= 1) in ns, interpolated inside
// its bucket (whose width is a quarter of a power of two: the answer is
// within 12.5% of the value); 0 when the histogram is empty. The last,
// open-ended bucket answers its lower bound.
func (h *Hist) Quantile(q float64) float64 {
	n := h.Count()
	if n == 0 {
		return 0
	}
	want := q * float64(n)
	var seen float64
	for i, c := range h {
		if c == 0 {
			continue
		}
		if seen+float64(c) >= want {
			lo, hi := HistBounds(i)
			if hi == math.MaxUint64 {
				return float64(lo)
			}
			return float64(lo) + (want-seen)/float64(c)*float64(hi-lo)
		}
		seen += float64(c)
	}
	lo, _ := HistBounds(InPlaceBuckets - 1)
	return float64(lo)
}

// InPlaceTarget is everything the programs recorded for one target, added
// over CPUs: cumulative since the attach; Sub makes a window of two.
type InPlaceTarget struct {
	Counts [NumCounters]uint64
	// Cells[from][to] is the path's time between two boundaries.
	Cells [NumSlots][NumSlots]Seg
	// Classes and ClassHist: the switches of each class whose path was
	// timed, their share of its time, and each one's in a histogram.
	Classes   [NumClasses]Seg
	ClassHist [NumClasses]Hist
	// RunQueue is each switch-in's wait on a run queue, by how the task
	// became runnable.
	RunQueue [NumRunQueueKinds]Hist
	// Blocked counts the voluntary switches by the syscall the task
	// blocked in (by number; the last slot holds the larger numbers).
	Blocked [InPlaceSyscalls]uint64
}

// Add adds o into t.
func (t *InPlaceTarget) Add(o *InPlaceTarget) { t.combine(o, 1) }

// Sub is t less o: what a window between two readings holds.
func (t *InPlaceTarget) Sub(o *InPlaceTarget) InPlaceTarget {
	d := *t
	d.combine(o, -1)
	return d
}

func (t *InPlaceTarget) combine(o *InPlaceTarget, sign int) {
	f := func(a *uint64, b uint64) {
		if sign > 0 {
			*a += b
		} else {
			*a -= b
		}
	}
	for i := range t.Counts {
		f(&t.Counts[i], o.Counts[i])
	}
	for i := range t.Cells {
		for j := range t.Cells[i] {
			f(&t.Cells[i][j].Ns, o.Cells[i][j].Ns)
			f(&t.Cells[i][j].Count, o.Cells[i][j].Count)
		}
	}
	for c := range t.Classes {
		f(&t.Classes[c].Ns, o.Classes[c].Ns)
		f(&t.Classes[c].Count, o.Classes[c].Count)
		for b := range t.ClassHist[c] {
			f(&t.ClassHist[c][b], o.ClassHist[c][b])
		}
	}
	for r := range t.RunQueue {
		for b := range t.RunQueue[r] {
			f(&t.RunQueue[r][b], o.RunQueue[r][b])
		}
	}
	for i := range t.Blocked {
		f(&t.Blocked[i], o.Blocked[i])
	}
}

// Switches is the switches away from the target's tasks: what the kernel's
// nvcsw and nivcsw count.
func (t *InPlaceTarget) Switches() uint64 {
	return t.Counts[CountOutVoluntary] + t.Counts[CountOutInvoluntary]
}

// DirectNs is the time of the paths recorded: every cell.
func (t *InPlaceTarget) DirectNs() uint64 {
	var n uint64
	for i := range t.Cells {
		for j := range t.Cells[i] {
			n += t.Cells[i][j].Ns
		}
	}
	return n
}

// TimedShare is the share of the target's switches away whose path was
// timed (1 without a rate limit; below under one).
func (t *InPlaceTarget) TimedShare() float64 {
	n := t.Counts[CountTimed] + t.Counts[CountUntimed]
	if n == 0 {
		return 0
	}
	return float64(t.Counts[CountTimed]) / float64(n)
}

// Matrix is the target's cells as a Matrix in event kinds (one CPU's
// shape, a task's context), for the in-place model.
func (t *InPlaceTarget) Matrix() *Matrix {
	m := &Matrix{CPU: -1}
	for i := range t.Cells {
		for j := range t.Cells[i] {
			c := t.Cells[i][j]
			if c.Count == 0 && c.Ns == 0 {
				continue
			}
			cell := &m.Cells[CtxTask][Slot(i).Kind()][Slot(j).Kind()]
			cell.Ns += c.Ns
			cell.Count += c.Count
		}
	}
	return m
}

// Preempter is who preempted a target's tasks, how often.
type Preempter struct {
	Target int
	TGID   int
	Comm   string
	N      uint64
}

// ProgramCost is one BPF program's run time from the kernel's statistics
// (kernel.bpf_stats_enabled): cumulative since it was loaded.
type ProgramCost struct {
	Name  string
	Runs  uint64
	RunNs uint64
	// Missed is the runs the kernel skipped because another BPF program
	// was running on the CPU (recursion protection): events not seen.
	Missed uint64
}

// InPlaceReading is one reading of everything the programs recorded.
type InPlaceReading struct {
	// AtNs is CLOCK_MONOTONIC when it was read.
	AtNs       uint64
	Targets    []InPlaceTarget
	Preempters []Preempter
	// Programs is each program's cost; StatsOn says the kernel kept it.
	Programs []ProgramCost
	StatsOn  bool
}

// The in-place model: a switch's path as phases.
var inPlaceModel = phaseModel{
	name:     "a switch of a running program",
	optional: optionalBoundaries,
	edges: []edge{
		ph(KindEnterOther, KindSchedEntry, model.PhaseSyscall, "syscall: up to schedule()",
			"the syscall the task blocks in, from its entry to __schedule: its own work before it sleeps (a wait queue, a futex hash bucket, a socket's receive queue found empty)"),
		ph(KindSchedEntry, KindSwitch, model.PhaseSchedule, "schedule(): pick a task of the target",
			"__schedule: the runqueue lock and clock, the outgoing task dequeued (or left queued when preempted), pick_next_task, psi_task_switch; another task of the target picked"),
		ph(KindSchedEntry, KindSwitchToOther, model.PhaseSchedule, "schedule(): pick another process",
			"__schedule as above; a task of no target picked"),
		ph(KindSchedEntry, KindSwitchToIdle, model.PhaseSchedule, "schedule(): nothing to run, pick idle",
			"__schedule as above; the runqueue empty, the idle task picked"),
		ph(KindSwitch, KindSchedExit, model.PhaseSwitch, "context switch",
			"context_switch: switch_mm (an address-space switch between processes), switch_to (registers, stack, the FPU save), finish_task_switch, up to __schedule returning in the task switched to"),
		ph(KindSwitchToOther, KindSchedExit, model.PhaseSwitch, "context switch to another process",
			"context_switch as above, to a task of no target"),
		ph(KindSwitchToIdle, KindSchedExit, model.PhaseSwitch, "context switch to idle",
			"context_switch to the idle task (no address space to load: a kernel thread borrows the last one)"),
		ph(KindSwitchFromOther, KindSchedExit, model.PhaseSwitch, "context switch from another process",
			"context_switch from a task of no target to the target's"),
		ph(KindSwitchFromIdle, KindSchedExit, model.PhaseSwitch, "context switch from idle",
			"context_switch from the idle task, after its schedule_idle picked the woken task"),
		ph(KindSchedExit, KindExitOther, model.PhaseSyscall, "the syscall returns",
			"the incoming task finishes the syscall it slept in (off the wait queue, the data copied out), up to sys_exit"),
		ph(KindExitOther, KindFPULoad, model.PhaseFPURestore, "exit to user: FPU restore",
			"exit_to_user_mode after the sys_exit tracepoint: restore the FPU registers of the task switched in (XRSTOR)"),
		ph(KindSchedExit, KindFPULoad, model.PhaseFPURestore, "return to user space, FPU restore",
			"the incoming task's way back to user space: the rest of the syscall it slept in where no sys_exit is probed, or a preempted task's way back through exit_to_user_mode; its FPU registers restored"),
		// The light probe set (no sched_exit_tp, no syscall probes): the
		// switch and the return to user space are one segment.
		ph(KindSwitch, KindFPULoad, model.PhaseSwitch, "context switch, return to user space",
			"context_switch, the rest of the syscall the incoming task slept in (or its way back after a preemption), exit_to_user_mode up to the FPU restore"),
		ph(KindSwitchFromOther, KindFPULoad, model.PhaseSwitch, "context switch from another process, return to user space",
			"as above, from a task of no target"),
		ph(KindSwitchFromIdle, KindFPULoad, model.PhaseSwitch, "context switch from idle, return to user space",
			"as above, from the idle task"),
		ph(KindWaking, KindWakeup, model.PhaseWakeup, "wakeup",
			"try_to_wake_up from sched_waking to sched_wakeup on the waker's CPU: select_task_rq, the runqueue lock, enqueue up the cgroup hierarchy, psi, the preemption check"),
	},
	paths: []path{
		{name: "a task blocks in a syscall, another of the target returns from its own",
			nodes: task(KindEnterOther, KindSchedEntry, KindSwitch, KindSchedExit, KindExitOther, KindFPULoad)},
		{name: "a task is preempted, the preempting task returns to user space", nodes: task(KindSchedEntry, KindSwitch, KindSchedExit, KindFPULoad)},
		{name: "a task blocks, another process runs", nodes: task(KindEnterOther, KindSchedEntry, KindSwitchToOther, KindSchedExit)},
		{name: "a task blocks, its CPU goes idle", nodes: task(KindEnterOther, KindSchedEntry, KindSwitchToIdle, KindSchedExit)},
		{name: "another process gives way to a task of the target, which returns from its syscall",
			nodes: task(KindSwitchFromOther, KindSchedExit, KindExitOther, KindFPULoad)},
		{name: "an idle CPU runs a woken kernel thread (its path ends when __schedule returns)",
			nodes: task(KindSwitchFromIdle, KindSchedExit)},
		{name: "the wakeup that made the incoming task runnable", nodes: task(KindWaking, KindWakeup)},
		{name: "light: a task blocks or is preempted, another of the target returns to user space",
			nodes: task(KindSchedEntry, KindSwitch, KindFPULoad)},
		{name: "light: another process gives way", nodes: task(KindSwitchFromOther, KindFPULoad)},
		{name: "light: an idle CPU runs a woken task", nodes: task(KindSwitchFromIdle, KindFPULoad)},
	},
	gaps: schedGaps,
	notes: []string{
		"interrupts that land inside a path stay in it: the in-place programs attach no interrupt probe (they would fire on every CPU of the machine)",
	},
}

// inPlaceStarts and inPlaceEnds are where a recorded path can begin and
// end (checkChains).
var (
	inPlaceStarts = []Kind{KindEnterOther, KindSchedEntry, KindSwitchFromOther, KindSwitchFromIdle, KindWaking}
	inPlaceEnds   = []Kind{KindFPULoad, KindExitOther, KindSchedExit, KindWakeup, KindSwitchToOther, KindSwitchToIdle, KindSwitch}
)

// checkChains says everything wrong with the in-place model, nil when
// nothing is: the checks of check.go for its phases (no transition twice,
// valid kinds, one name each, every phase on a path), with paths that are
// chains from where a recorded path begins to where it ends rather than
// cycles (the program's own work between switches is never recorded).
func (md *phaseModel) checkChains(starts, ends []Kind) error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(md.name+": "+format, a...)) }
	edges := md.checkEdges(bad)
	names := map[string]bool{}
	for _, e := range md.edges {
		k := key{e.ctx, e.from, e.to}
		if e.name == "" || e.what == "" || names[e.name] {
			bad("%s needs a name of its own and a what", k)
		}
		names[e.name] = true
		if e.ctx != CtxTask || e.side != "" || e.parallel {
			bad("%s: a side, a parallel or an idle context on one CPU", k)
		}
	}
	onPath := make([]bool, len(md.edges))
	for _, p := range md.paths {
		n := p.nodes
		switch {
		case len(n) < 2:
			bad("path %q: no step", p.name)
			continue
		case !slices.Contains(starts, n[0].kind):
			bad("path %q begins at %s, where no path is recorded from", p.name, n[0].kind)
		case !slices.Contains(ends, n[len(n)-1].kind):
			bad("path %q ends at %s, where no path ends", p.name, n[len(n)-1].kind)
		}
		for i := range len(n) - 1 {
			j, ok := edges[key{n[i].ctx, n[i].kind, n[i+1].kind}]
			if !ok {
				bad("path %q: step %d, %s -> %s, is not a phase of the model", p.name, i+1, n[i].kind, n[i+1].kind)
				continue
			}
			onPath[j] = true
		}
	}
	for i, used := range onPath {
		if !used {
			bad("%q is on none of the paths: unreachable", md.edges[i].name)
		}
	}
	if len(md.paths) == 0 {
		errs = append(errs, errors.New(md.name+": no paths"))
	}
	return errors.Join(errs...)
}

// InPlaceBreakdown reads a target's paths through the in-place model as
// phases per switch (switches: the target's switches away whose path was
// timed). Every cell is a path's segment, so TracedNs is the paths' time
// and Closure the share of it the model names.
func InPlaceBreakdown(t *InPlaceTarget, switches uint64) Breakdown {
	m := t.Matrix()
	md := &inPlaceModel
	b, h := newBreakdown(md.name, md.gaps, md.notes, m, switches)
	if h == 0 {
		return b
	}
	var phases []placed
	var attributed uint64
	for _, tr := range m.Transitions() {
		a, ok := md.attribute(tr.Ctx, tr.From, tr.To)
		if !ok {
			b.Unattributed = append(b.Unattributed, tr)
			continue
		}
		attributed += tr.Ns
		phases = append(phases, placed{a.order, md.phaseOf(a, tr, h)})
	}
	b.Phases = inOrder(phases, Phase{}, h)
	b.HopNsPerHop = float64(b.TracedNs) / h
	if b.TracedNs > 0 {
		b.Closure = float64(attributed) / float64(b.TracedNs)
	}
	b.UnattributedNsPerHop = nsOf(b.Unattributed) / h
	b.PerHop = map[string]float64{}
	return b
}
