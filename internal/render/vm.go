package render

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/units"

	"github.com/ctxbench/ctxbench/internal/result"
)

// VMLines renders the stored VM decomposition (docs/vm.md), for the ladder
// and the report: what returning to the VMM adds to an exit, and what a
// VM-to-VM hop costs beyond a process hop and an exit, each difference with
// its interval ("not resolved here" when it holds zero). A difference with
// an interval is shown as the figure that interval belongs to (the median
// of its per-round values), never as the difference of the medians, which
// can lie outside it.
func VMLines(d *result.Document) []string {
	if d.Derived == nil || d.Derived.VM == nil {
		return nil
	}
	var out []string
	if e := d.Derived.VM.Exit; e != nil {
		if iv := e.ReturnToVMMInterval; iv != nil {
			out = append(out, fmt.Sprintf("VM exit: returning to the VMM adds %s to an exit the host kernel completes (exit-user − exit-kernel taken round by round; the medians are exit-user %s, exit-kernel %s)",
				withInterval(iv), units.Time(e.ExitUserNS), units.Time(e.ExitKernelNS)))
		} else {
			out = append(out, fmt.Sprintf("VM exit: returning to the VMM adds %s to an exit the host kernel completes (exit-user %s − exit-kernel %s)",
				units.Time(e.ReturnToVMMNS), units.Time(e.ExitUserNS), units.Time(e.ExitKernelNS)))
		}
	}
	if s := d.Derived.VM.Switch; s != nil {
		if iv := s.ResidualInterval; iv != nil {
			out = append(out, fmt.Sprintf("VM-to-VM hop %s = process hop %s + exit to user space %s + a residual (another VM's vcpu_put/vcpu_load, cache effects); the residual, taken round by round, is %s",
				units.Time(s.HopNS), units.Time(s.ProcessHopNS), units.Time(s.ExitNS), withInterval(iv)))
		} else {
			out = append(out, fmt.Sprintf("VM-to-VM hop %s = process hop %s + exit to user space %s + residual %s (another VM's vcpu_put/vcpu_load, cache effects)",
				units.Time(s.HopNS), units.Time(s.ProcessHopNS), units.Time(s.ExitNS), units.Time(s.ResidualNS)))
		}
	}
	return out
}

// withInterval renders a difference taken round by round as its median
// with its interval (its level where it is not 95%), "not resolved here"
// when the interval holds zero.
func withInterval(iv *result.Interval) string {
	s := fmt.Sprintf("%s [%s, %s]", units.Time(iv.Median), units.Time(iv.Low), units.Time(iv.High))
	s += LevelMark(iv.Confidence)
	if iv.Holds(0) {
		s += ", not resolved here"
	}
	return s
}
