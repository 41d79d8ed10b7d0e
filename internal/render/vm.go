package render

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/units"

	"github.com/ctxbench/ctxbench/internal/result"
)

// VMLines renders the stored VM decomposition (docs/vm.md), for the ladder
// and the report: what returning to the VMM adds to an exit, and what a
// VM-to-VM hop costs beyond a process hop and an exit, each difference with
// its interval ("not resolved here" when it holds zero).
func VMLines(d *result.Document) []string {
	if d.Derived == nil || d.Derived.VM == nil {
		return nil
	}
	var out []string
	if e := d.Derived.VM.Exit; e != nil {
		out = append(out, fmt.Sprintf("VM exit: returning to the VMM adds %s%s to an exit the host kernel completes (exit-user %s − exit-kernel %s)",
			units.Time(e.ReturnToVMMNS), interval(e.ReturnToVMMInterval), units.Time(e.ExitUserNS), units.Time(e.ExitKernelNS)))
	}
	if s := d.Derived.VM.Switch; s != nil {
		out = append(out, fmt.Sprintf("VM-to-VM hop %s = process hop %s + exit to user space %s + residual %s%s (another VM's vcpu_put/vcpu_load, cache effects)",
			units.Time(s.HopNS), units.Time(s.ProcessHopNS), units.Time(s.ExitNS), units.Time(s.ResidualNS), interval(s.ResidualInterval)))
	}
	return out
}

// interval renders a difference's interval, "not resolved here" when it
// holds zero.
func interval(iv *result.Interval) string {
	if iv == nil {
		return ""
	}
	s := fmt.Sprintf(" [%s, %s]", units.Time(iv.Low), units.Time(iv.High))
	if iv.Holds(0) {
		s += ", not resolved here"
	}
	return s
}
