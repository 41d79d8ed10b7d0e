package phase

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The in-place model passes its checks, and every edit the checks exist
// for is caught: a transition twice, a phase off every path, a path
// through a transition the model does not have, a path from nowhere.
func TestInPlaceModelIsWellFormed(t *testing.T) {
	if err := inPlaceModel.checkChains(inPlaceStarts, inPlaceEnds); err != nil {
		t.Fatal(err)
	}
	edit := func(f func(md *phaseModel)) error {
		md := inPlaceModel
		md.edges = slices.Clone(md.edges)
		md.paths = slices.Clone(md.paths)
		f(&md)
		return md.checkChains(inPlaceStarts, inPlaceEnds)
	}
	cases := map[string]func(md *phaseModel){
		"twice": func(md *phaseModel) { md.edges = append(md.edges, md.edges[0]) },
		"off every path": func(md *phaseModel) {
			md.edges = append(md.edges, ph(KindWakeup, KindFPULoad, "wakeup", "stray", "a phase no path goes through"))
		},
		"not a phase": func(md *phaseModel) {
			md.paths = append(md.paths, path{name: "bad", nodes: task(KindSchedEntry, KindExitOther)})
		},
		"from nowhere": func(md *phaseModel) {
			md.paths = append(md.paths, path{name: "bad", nodes: task(KindSchedExit, KindFPULoad)})
		},
		"no name": func(md *phaseModel) { md.edges[0].name = "" },
	}
	for name, f := range cases {
		if edit(f) == nil {
			t.Errorf("%s: the checks passed an edited model", name)
		}
	}
}

// target builds a target's cells from (from slot, to slot, ns each, count).
type cellSpec struct {
	from, to Slot
	ns, n    uint64
}

func target(cells ...cellSpec) *InPlaceTarget {
	var t InPlaceTarget
	for _, c := range cells {
		t.Cells[c.from][c.to].Ns += c.ns * c.n
		t.Cells[c.from][c.to].Count += c.n
	}
	return &t
}

// With the full probe set every segment is a phase of its own; the phases
// close on the paths' time and come in the model's order.
func TestInPlaceBreakdownFull(t *testing.T) {
	const n = 100
	tg := target(
		cellSpec{SlotSysEnter, SlotSchedEntry, 200, n / 2},
		cellSpec{SlotSchedEntry, SlotSwitch, 900, n},
		cellSpec{SlotSwitch, SlotSchedExit, 500, n},
		cellSpec{SlotSchedExit, SlotSysExit, 400, n / 2},
		cellSpec{SlotSysExit, SlotFPULoad, 500, n / 2},
		cellSpec{SlotSchedExit, SlotFPULoad, 480, n / 2},
		cellSpec{SlotWaking, SlotWakeup, 1000, n / 2},
	)
	b := InPlaceBreakdown(tg, n)
	if math.Abs(b.Closure-1) > 1e-9 || len(b.Unattributed) != 0 {
		t.Fatalf("closure %.4f, unattributed %v:\n%s", b.Closure, b.Unattributed, b.String())
	}
	want := 100.0 + 900 + 500 + 200 + 250 + 240 + 500
	if got := b.SumPhases(); math.Abs(got-want) > 1e-6 {
		t.Errorf("phases sum to %.1f ns per switch, want %.1f", got, want)
	}
	if b.Phases[0].Name != "syscall: up to schedule()" || b.Phases[len(b.Phases)-1].Name != "wakeup" {
		t.Errorf("phases out of order: first %q, last %q", b.Phases[0].Name, b.Phases[len(b.Phases)-1].Name)
	}
	for _, p := range b.Phases {
		if len(p.Merged) > 0 {
			t.Errorf("full set: %q is merged", p.Name)
		}
	}
}

// The light set (no sched_exit_tp, no syscall probes) has phases of its
// own, and a kernel without the scheduler's tracepoints merges what it
// cannot split, still closing.
func TestInPlaceBreakdownLightAndMerged(t *testing.T) {
	const n = 10
	light := InPlaceBreakdown(target(
		cellSpec{SlotSchedEntry, SlotSwitch, 900, n},
		cellSpec{SlotSwitch, SlotFPULoad, 900, n},
		cellSpec{SlotSwitchFromIdle, SlotFPULoad, 700, 2},
		cellSpec{SlotWaking, SlotWakeup, 500, n},
	), n)
	for _, p := range light.Phases {
		if len(p.Merged) > 0 || strings.Contains(p.Name, "+") {
			t.Errorf("light set: %q is merged", p.Name)
		}
	}
	merged := InPlaceBreakdown(target(
		cellSpec{SlotSysEnter, SlotSwitch, 1100, n}, // no sched_entry_tp
		cellSpec{SlotSwitch, SlotSysExit, 800, n},   // no sched_exit_tp
		cellSpec{SlotSysExit, SlotFPULoad, 300, n},
	), n)
	if math.Abs(merged.Closure-1) > 1e-9 || len(merged.Phases) != 3 || len(merged.Phases[0].Merged) != 2 {
		t.Fatalf("merged: closure %.3f, %d phases:\n%s", merged.Closure, len(merged.Phases), merged.String())
	}
}

// A cell the model does not know is unattributed and lowers the closure.
func TestInPlaceBreakdownUnattributed(t *testing.T) {
	b := InPlaceBreakdown(target(
		cellSpec{SlotSchedEntry, SlotSwitch, 900, 10},
		cellSpec{SlotWakeup, SlotSwitch, 100, 10},
	), 10)
	if len(b.Unattributed) != 1 || math.Abs(b.Closure-0.9) > 1e-9 {
		t.Fatalf("unattributed %v, closure %.3f", b.Unattributed, b.Closure)
	}
	if b := InPlaceBreakdown(target(), 0); len(b.Notes) == 0 || b.Closure != 0 {
		t.Errorf("no switches: %+v", b)
	}
}

// Every value lands in a bucket whose bounds hold it, the buckets are in
// order, and a bucket is at most a quarter of its lower bound wide.
func TestHistBuckets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		v := r.Uint64N(1 << uint(r.IntN(42)+1))
		i := HistBucket(v)
		lo, hi := HistBounds(i)
		if v < lo || v >= hi {
			t.Fatalf("%d in bucket %d [%d, %d)", v, i, lo, hi)
		}
	}
	for i := 1; i < InPlaceBuckets; i++ {
		lo, _ := HistBounds(i)
		_, prevHi := HistBounds(i - 1)
		if lo != prevHi {
			t.Fatalf("bucket %d starts at %d, the one before ends at %d", i, lo, prevHi)
		}
		if hi := func() uint64 { _, h := HistBounds(i); return h }(); i >= 8 && i < InPlaceBuckets-1 && float64(hi-lo) > 0.25*float64(lo)+1e-9 {
			t.Fatalf("bucket %d [%d, %d) wider than a quarter of its start", i, lo, hi)
		}
	}
	if lo, hi := HistBounds(InPlaceBuckets - 1); hi != math.MaxUint64 || HistBucket(1<<62) != InPlaceBuckets-1 || lo == 0 {
		t.Errorf("the last bucket [%d, %d) is not open-ended", lo, hi)
	}
}

// Quantiles of a histogram come within a bucket's width of the exact ones.
func TestHistQuantile(t *testing.T) {
	var h Hist
	var vals []float64
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		v := 1000 + r.ExpFloat64()*3000
		vals = append(vals, v)
		h[HistBucket(uint64(v))]++
	}
	slices.Sort(vals)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		exact := vals[int(q*float64(len(vals)))-1]
		if got := h.Quantile(q); math.Abs(got/exact-1) > 0.125 {
			t.Errorf("q%.2f: %.0f, exact %.0f", q, got, exact)
		}
	}
	var empty Hist
	if empty.Quantile(0.5) != 0 || empty.Count() != 0 {
		t.Error("an empty histogram has a quantile")
	}
}

// A window is the difference of two readings, and adding it back gives the
// later reading.
func TestInPlaceWindow(t *testing.T) {
	a := target(cellSpec{SlotSchedEntry, SlotSwitch, 900, 10})
	a.Counts[CountOutVoluntary], a.Counts[CountTimed] = 10, 10
	a.RunQueue[RunQueueWokenSame][HistBucket(1000)] = 5
	b := *a
	b.Add(target(cellSpec{SlotSchedEntry, SlotSwitch, 800, 5}))
	b.Counts[CountOutInvoluntary] += 4
	b.Counts[CountUntimed] += 5
	b.RunQueue[RunQueueWokenSame][HistBucket(1000)] += 3
	d := b.Sub(a)
	if d.Switches() != 4 || d.DirectNs() != 4000 || d.RunQueue[RunQueueWokenSame].Count() != 3 || d.Counts[CountUntimed] != 5 {
		t.Fatalf("window: %d switches, %d ns, %d waits", d.Switches(), d.DirectNs(), d.RunQueue[RunQueueWokenSame].Count())
	}
	back := *a
	back.Add(&d)
	if back != b {
		t.Error("a reading plus the window is not the later reading")
	}
	if s := b.TimedShare(); math.Abs(s-10.0/15) > 1e-9 {
		t.Errorf("timed share %.3f", s)
	}
}

// The slots name the events they record, and every name table has one
// entry per value.
func TestInPlaceNames(t *testing.T) {
	if SlotSchedEntry.Kind() != KindSchedEntry || SlotFPULoad.Kind() != KindFPULoad || Slot(NumSlots).Kind() != KindNone {
		t.Error("slots and kinds disagree")
	}
	if len(CounterNames) != int(CountSelfFromIdle)+1 || CounterNames[CountRunQueueN] != "C_RUNQ_N_0" || CounterNames[CountStateMiss] != "C_STATE_MISS" {
		t.Errorf("%d counter names", len(CounterNames))
	}
	for c := range SwitchClass(NumClasses) {
		if c.Key() == "" {
			t.Errorf("class %d has no key", c)
		}
	}
}
