package ladder

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// CrossCPU sets, on every cross-cpu row whose benchmark also ran on one
// CPU, what its extra cost consists of as far as this run can tell: the
// wake-up IPIs its CPUs received per hop (measured: did the woken
// side's CPU have to be interrupted, i.e. was it idle and not polling?)
// and how idle CPUs wait on this machine (configured: does that wake-up
// also pay a halt's exit and, in a guest, the host's re-entry?). It names
// no cause the run did not see; splitting a cross-CPU hop into phases is
// explain's work, not this.
func CrossCPU(d *result.Document) {
	same := map[string]float64{}
	for _, r := range d.Results {
		if r.Placement == string(model.SameCPU) && r.OneWayNS.Median > 0 {
			same[r.Name] = r.OneWayNS.Median
		}
	}
	for i := range d.Results {
		r := &d.Results[i]
		base, ok := same[r.Name]
		if r.Placement != string(model.CrossCPU) || !ok || r.OneWayNS.Median <= 0 {
			continue
		}
		c := &result.CrossCPU{SameCPUNS: base, ExtraNS: r.OneWayNS.Median - base, IdleHalts: d.Environment.Idle.Halts,
			WakeupIPIsPerHop: ipisPerHop(*r)}
		c.Consists = crossCPUWords(*c, d.Environment)
		r.CrossCPU = c
	}
}

// ipisPerHop is the wake-up IPIs of a row's blocks over the hops those
// blocks made (Verification.Hops: every op the sides counted, warm-up
// samples included, as the IPIs are). nil when a block was not counted.
func ipisPerHop(r result.Result) *float64 {
	if r.Verification.Hops <= 0 || len(r.BlockInfo) == 0 {
		return nil
	}
	var ipis int64
	for _, b := range r.BlockInfo {
		if b.WakeupIPIs == nil {
			return nil
		}
		ipis += *b.WakeupIPIs
	}
	v := float64(ipis) / r.Verification.Hops
	return &v
}

// crossCPUWords says what c's extra cost consists of: the measured part
// first, then the configured part, each saying which it is.
func crossCPUWords(c result.CrossCPU, env result.Environment) string {
	s := fmt.Sprintf("%s more per hop than on one CPU (%s)", units.Time(c.ExtraNS), units.Multiple((c.SameCPUNS+c.ExtraNS)/c.SameCPUNS))
	ipi := c.WakeupIPIsPerHop
	switch {
	case ipi == nil:
		return s + "; wake-up IPIs are not counted on this machine, so the run cannot tell what the difference consists of"
	case *ipi >= 0.5:
		s += fmt.Sprintf("; measured: %.2f wake-up IPIs per hop on its CPUs — at most hops the woken side's CPU was idle and had to be interrupted to run it", *ipi)
	case *ipi < 0.1:
		return s + fmt.Sprintf("; measured: %.2f wake-up IPIs per hop — the other CPU was running or polling when woken, so the difference is the cross-CPU wake-up path and the cache lines both sides touch, not an idle wake-up", *ipi)
	default:
		s += fmt.Sprintf("; measured: %.2f wake-up IPIs per hop — some hops woke an idle CPU, others found it running or polling", *ipi)
	}
	switch h := c.IdleHalts; {
	case h == nil:
		return s
	case *h && env.Virtualization.Guest:
		return s + fmt.Sprintf("; configured: this guest's idle vCPUs halt at once (cpuidle driver %q%s), so such a wake-up also pays the halted vCPU's exit and the host's re-entry (not measured apart here)", env.Idle.Driver, pollWords(env.Idle))
	case *h:
		return s + fmt.Sprintf("; configured: idle CPUs halt at once (cpuidle driver %q), so such a wake-up also pays the exit from halt (not measured apart here)", env.Idle.Driver)
	}
	how := "idle=poll"
	if env.Idle.HaltPollNS != nil {
		how = fmt.Sprintf("guest_halt_poll_ns=%d", *env.Idle.HaltPollNS)
	}
	return s + fmt.Sprintf("; configured: idle CPUs poll before halting (%s), which hides part of the wake-up", how)
}

func pollWords(i result.IdleInfo) string {
	if i.HaltPollNS != nil {
		return fmt.Sprintf(", guest_halt_poll_ns=%d", *i.HaltPollNS)
	}
	return ""
}
