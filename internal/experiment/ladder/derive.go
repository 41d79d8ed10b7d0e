package ladder

import (
	"math"

	"github.com/ctxbench/ctxbench/internal/kvm"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// The baseline of every "× baseline" multiple: the single-threaded
// goroutine handoff (the published hierarchy's 1x), else the cheapest
// goroutine row that is a pure user-space handoff.
const (
	baselineName      = "goroutine/chan-gomaxprocs1"
	baselinePlacement = "same-cpu"
)

// Derive computes the figures that combine several rows: the baseline and
// each row's multiple of it, and the VM decomposition. It sets each
// result's Multiple (and its interval) and returns the document's derived
// section.
func Derive(rs []result.Result) *result.Derived {
	d := &result.Derived{}
	if i := baseline(rs); i >= 0 {
		b := rs[i]
		why := "the published table's baseline"
		if b.Name != baselineName {
			why = "the cheapest goroutine handoff (the published baseline was not measured)"
		}
		d.Baseline = &result.BaselineRef{Name: b.Name, Placement: b.Placement, MedianNS: b.OneWayNS.Median, Why: why}
		for j := range rs {
			if b.OneWayNS.Median > 0 && rs[j].OneWayNS.N > 0 {
				rs[j].Multiple, rs[j].MultipleInterval = multipleOf(rs[j], b)
			}
		}
	}
	d.VM = vmDecomposition(rs)
	if d.Baseline == nil && d.VM == nil {
		return nil
	}
	return d
}

// multipleOf is r's multiple of the baseline row b and its interval: taken
// round by round where their blocks pair (the median of the per-round
// ratios of block medians — the figure its interval belongs to, and the
// one the tables print; the ratio of the two medians can lie outside that
// interval), else the ratio of the medians, without an interval.
func multipleOf(r, b result.Result) (*float64, *result.Interval) {
	iv := perRound(func(m []float64) float64 { return m[1] / m[0] }, b, r)
	m := r.OneWayNS.Median / b.OneWayNS.Median
	if iv != nil {
		m = iv.Median
	}
	return &m, iv
}

func baseline(rs []result.Result) int {
	for i, r := range rs {
		if r.Name == baselineName && r.Placement == baselinePlacement && r.OneWayNS.N > 0 {
			return i
		}
	}
	best := -1
	for i, r := range rs {
		if r.Rung != "goroutine" || r.Verification.ExpectedPerHop != nil || r.OneWayNS.N == 0 {
			continue
		}
		if best < 0 || r.OneWayNS.Median < rs[best].OneWayNS.Median {
			best = i
		}
	}
	return best
}

// vmDecomposition puts the same-CPU vm rows side by side (docs/vm.md):
// what returning to the VMM adds to an exit (kvm.UserExitCost), only when
// both exits were real exits (one per op, as KVM counted) of the same guest
// mode; and what a VM-to-VM hop costs beyond a process hop and an exit
// (kvm.DecomposeSwitch).
func vmDecomposition(rs []result.Result) *result.VMDecomposition {
	find := func(name string) *result.Result {
		for i := range rs {
			if rs[i].Name == name && rs[i].Placement == "same-cpu" {
				return &rs[i]
			}
		}
		return nil
	}
	user, kern, sw, proc := find("vm/exit-user"), find("vm/exit-kernel"), find("vm/switch-user"), find("process/pipe")
	v := &result.VMDecomposition{}
	if user != nil && kern != nil && oneExitPerOp(*user) && oneExitPerOp(*kern) && user.KVM.GuestMode == kern.KVM.GuestMode {
		v.Exit = &result.VMExitParts{ExitUserNS: user.OneWayNS.Median, ExitKernelNS: kern.OneWayNS.Median,
			ReturnToVMMNS:       kvm.UserExitCost(user.OneWayNS.Median, kern.OneWayNS.Median),
			ReturnToVMMInterval: perRound(func(m []float64) float64 { return kvm.UserExitCost(m[0], m[1]) }, *user, *kern)}
	}
	if sw != nil && proc != nil && user != nil {
		p := kvm.DecomposeSwitch(sw.OneWayNS.Median, proc.OneWayNS.Median, user.OneWayNS.Median)
		v.Switch = &result.VMSwitchParts{HopNS: p.HopNs, ProcessHopNS: p.ProcessHopNs, ExitNS: p.ExitNs, ResidualNS: p.ResidualNs,
			ResidualInterval: perRound(func(m []float64) float64 { return kvm.DecomposeSwitch(m[0], m[1], m[2]).ResidualNs }, *sw, *proc, *user)}
	}
	if v.Exit == nil && v.Switch == nil {
		return nil
	}
	return v
}

// oneExitPerOp says whether KVM counted one exit per op on a vm row.
func oneExitPerOp(r result.Result) bool {
	if r.KVM == nil {
		return false
	}
	x, ok := r.KVM.PerOp["exits"]
	return ok && math.Abs(x-1) <= 0.05
}

// perRound is a figure combining rows, taken round by round (the ladder's
// cells run one block each per round, so a round's blocks shared its
// stretch of host noise), with its interval; nil when the rows' blocks
// cannot be paired.
func perRound(f func(medians []float64) float64, rows ...result.Result) *result.Interval {
	series := make([]stats.Series, len(rows))
	for i, r := range rows {
		series[i] = stats.Series{Values: r.Samples, Sizes: result.BlockSizes(r.BlockInfo), Rounds: result.BlockRounds(r.BlockInfo)}
	}
	w := stats.PerRound(f, series...)
	if !w.OK {
		return nil
	}
	return &result.Interval{Median: w.Median, Low: w.Lo, High: w.Hi, Confidence: w.Confidence, Rounds: w.N}
}
