package ladder

import (
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
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

// The vm decomposition appears only with its rows, and the exit comparison
// only when both exits were one real exit per op of the same guest mode.
func TestVMDecomposition(t *testing.T) {
	row := func(name string, median float64, exits, guest string) result.Result {
		r := result.Result{Name: name, Placement: "same-cpu", OneWayNS: result.Figure{Summary: stats.Summary{N: 10, Median: median}}}
		if exits != "" {
			r.Evidence = map[string]string{"kvm_stats_per_op": "exits=" + exits + " fpu_reload=1.00", "guest": guest}
		}
		return r
	}
	rs := []result.Result{
		row("process/pipe", 2600, "", ""),
		row("vm/exit-user", 29000, "1.00", "CPL3"),
		row("vm/exit-kernel", 3000, "1.00", "CPL3"),
		row("vm/switch-user", 34000, "1.00", "CPL3"),
	}
	v := vmDecomposition(rs)
	if v == nil || v.Exit == nil || v.Exit.ReturnToVMMNS != 26000 || v.Switch == nil || v.Switch.ResidualNS != 2400 {
		t.Fatalf("decomposition %+v", v)
	}
	rs[2] = row("vm/exit-kernel", 3000, "0.00", "CPL3") // an emulated guest made no exit
	if v := vmDecomposition(rs); v == nil || v.Exit != nil || v.Switch == nil {
		t.Fatalf("exit comparison without a real kernel exit: %+v", v)
	}
	if v := vmDecomposition(rs[:1]); v != nil {
		t.Fatalf("decomposition without vm rows: %+v", v)
	}
}
