package ladder

import (
	"encoding/json"
	"testing"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// The "× goroutine" multiples divide by the published table's 1x when it
// was measured, even if another goroutine row is cheaper, so the ladder,
// the hierarchy and the replication all speak of the same multiple;
// without it, the cheapest pure user-space goroutine row stands in.
func TestBaselineIsThePublishedRowWhenMeasured(t *testing.T) {
	row := func(name, pl string, median float64) result.Result {
		return result.Result{Name: name, Rung: "goroutine", Placement: pl, OneWayNS: result.Figure{Summary: stats.Summary{N: 10, Median: median}}}
	}
	rs := []result.Result{row("goroutine/gosched", "same-cpu", 50), row(baselineName, baselinePlacement, 150)}
	d := Derive(rs)
	if d == nil || d.Baseline == nil || d.Baseline.Name != baselineName {
		t.Fatalf("baseline = %+v, want the published row", d)
	}
	if rs[0].Multiple == nil || *rs[0].Multiple != 50.0/150 {
		t.Fatalf("gosched multiple = %v, want 1/3", rs[0].Multiple)
	}
	rs = rs[:1]
	if d := Derive(rs); d.Baseline.Name != "goroutine/gosched" {
		t.Fatalf("without the published row the baseline is %s, want the cheapest goroutine", d.Baseline.Name)
	}
}

// The stored multiple is the figure its interval belongs to: the median of
// the per-round ratios, which the tables print. Here the two rows' block
// medians pair round by round into ratios of 1.75 once and about 1.9
// otherwise, while the ratio of the rows' medians is 1.75 — outside the
// per-round interval, as a run once stored for three runtime rows (erlang
// 1.80 against [1.73, 1.77]).
func TestMultipleIsTheFigureOfItsInterval(t *testing.T) {
	row := func(name string, blockMedians []float64) result.Result {
		var v []float64
		var info []result.BlockInfo
		for k, m := range blockMedians {
			v = append(v, m*0.999, m, m*1.001)
			info = append(info, result.BlockInfo{Round: k, Samples: 3})
		}
		return result.Result{Name: name, Rung: "goroutine", Placement: "same-cpu", Samples: v, BlockInfo: info,
			OneWayNS: result.Figure{Summary: stats.SummarizeBlocks(v, result.BlockSizes(info))}}
	}
	// Round 0: 100 and 175; rounds 1–5: 100 and 190; rounds 6–10: 90 and 175.
	var base, other []float64
	for k := range 11 {
		switch {
		case k == 0:
			base, other = append(base, 100), append(other, 175)
		case k <= 5:
			base, other = append(base, 100), append(other, 190)
		default:
			base, other = append(base, 90), append(other, 175)
		}
	}
	rs := []result.Result{row(baselineName, base), row("goroutine/other", other)}
	Derive(rs)
	r := rs[1]
	iv := r.MultipleInterval
	if r.Multiple == nil || iv == nil {
		t.Fatalf("multiple %v, interval %v: both rows' blocks pair round by round", r.Multiple, iv)
	}
	ofMedians := r.OneWayNS.Median / rs[0].OneWayNS.Median
	if iv.Holds(ofMedians) {
		t.Fatalf("the simulation does not separate the estimators: the ratio of medians %.3f lies in [%.3f, %.3f]", ofMedians, iv.Low, iv.High)
	}
	if *r.Multiple != iv.Median || !iv.Holds(*r.Multiple) {
		t.Errorf("multiple_of_baseline %.3f, multiple_interval %.3f [%.3f, %.3f]: the stored figure is not its interval's", *r.Multiple, iv.Median, iv.Low, iv.High)
	}
	if *rs[0].Multiple != 1 {
		t.Errorf("the baseline's multiple of itself is %v", *rs[0].Multiple)
	}
}

// The vm decomposition appears only with its rows, and the exit comparison
// only when both exits were one real exit per op of the same guest mode.
func TestVMDecomposition(t *testing.T) {
	row := func(name string, median float64, exits float64, guest string) result.Result {
		r := result.Result{Name: name, Placement: "same-cpu", OneWayNS: result.Figure{Summary: stats.Summary{N: 10, Median: median}}}
		if guest != "" {
			r.KVM = &result.KVMCounts{GuestMode: guest, PerOp: map[string]float64{"exits": exits, "fpu_reload": 1}}
		}
		return r
	}
	rs := []result.Result{
		row("process/pipe", 2600, 0, ""),
		row("vm/exit-user", 29000, 1, "user"),
		row("vm/exit-kernel", 3000, 1, "user"),
		row("vm/switch-user", 34000, 1, "user"),
	}
	v := vmDecomposition(rs)
	if v == nil || v.Exit == nil || v.Exit.ReturnToVMMNS != 26000 || v.Switch == nil || v.Switch.ResidualNS != 2400 {
		t.Fatalf("decomposition %+v", v)
	}
	rs[2] = row("vm/exit-kernel", 3000, 1, "kernel") // another guest mode
	if v := vmDecomposition(rs); v == nil || v.Exit != nil || v.Switch == nil {
		t.Fatalf("exit comparison across guest modes: %+v", v)
	}
	rs[2] = row("vm/exit-kernel", 3000, 0, "user") // an emulated guest made no exit
	if v := vmDecomposition(rs); v == nil || v.Exit != nil || v.Switch == nil {
		t.Fatalf("exit comparison without a real kernel exit: %+v", v)
	}
	rs[2] = row("vm/exit-kernel", 3000, 0, "") // no counters (KVM's statistics unreadable)
	if v := vmDecomposition(rs); v == nil || v.Exit != nil || v.Switch == nil {
		t.Fatalf("exit comparison without KVM's counters: %+v", v)
	}
	if v := vmDecomposition(rs[:1]); v != nil {
		t.Fatalf("decomposition without vm rows: %+v", v)
	}
}

// KVM's counters reach the decomposition typed: the worker's payload, as
// sent over the wire, of the cell's first block becomes the row's.
func TestKVMCountsReachTheRow(t *testing.T) {
	vm := &model.Benchmark{Name: "vm/exit-user", Rung: model.VM, Kind: model.RefKind, HopsPerOp: 1, Placements: []model.Placement{model.SameCPU}}
	c, err := schedule.Place(vm, model.SameCPU, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	first, second := resp(100, 0, 0, 1, 0), resp(100, 0, 0, 1, 0)
	first.KVM = &model.KVMData{GuestMode: "user", PerOp: map[string]float64{"exits": 1, "insn_emulation": 0}}
	second.KVM = &model.KVMData{GuestMode: "user", PerOp: map[string]float64{"exits": 2}}
	wire, err := json.Marshal(first)
	if err != nil {
		t.Fatal(err)
	}
	var sent model.Response
	if err := json.Unmarshal(wire, &sent); err != nil {
		t.Fatal(err)
	}
	r := Aggregate(cellRun(c, 10, sent, second), "host")
	if r.KVM == nil || r.KVM.GuestMode != "user" || r.KVM.PerOp["exits"] != 1 || !oneExitPerOp(r) {
		t.Fatalf("the row's KVM counts: %+v", r.KVM)
	}
}
