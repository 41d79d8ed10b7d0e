package export

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/kvm"
	"github.com/ctxbench/ctxbench/internal/result"
)

// VMDecomposition puts the vm rows side by side as docs/vm.md describes
// (same CPU, medians): what returning to the VMM adds to an exit
// (kvm.UserExitCost), and what a VM-to-VM hop costs beyond a process hop
// and an exit (kvm.DecomposeSwitch). A line appears only when its rows were
// measured; the exit comparison only when both exits were real exits (one
// per op, as KVM counted) of the same guest mode.
func VMDecomposition(d *result.Document) []string {
	user := find(d, "vm/exit-user", "same-cpu")
	kern := find(d, "vm/exit-kernel", "same-cpu")
	sw := find(d, "vm/switch-user", "same-cpu")
	proc := find(d, "process/pipe", "same-cpu")
	var out []string
	if user != nil && kern != nil && oneExitPerOp(*user) && oneExitPerOp(*kern) && user.Evidence["guest"] == kern.Evidence["guest"] {
		c := kvm.UserExitCost(user.OneWayNS.Median, kern.OneWayNS.Median)
		out = append(out, fmt.Sprintf("VM exit: returning to the VMM adds %s to an exit the host kernel completes (exit-user %s − exit-kernel %s)",
			FormatNS(c), FormatNS(user.OneWayNS.Median), FormatNS(kern.OneWayNS.Median)))
	}
	if sw != nil && proc != nil && user != nil {
		p := kvm.DecomposeSwitch(sw.OneWayNS.Median, proc.OneWayNS.Median, user.OneWayNS.Median)
		out = append(out, fmt.Sprintf("VM-to-VM hop %s = process hop %s + exit to user space %s + residual %s (another VM's vcpu_put/vcpu_load, cache effects; within noise when small)",
			FormatNS(p.HopNs), FormatNS(p.ProcessHopNs), FormatNS(p.ExitNs), FormatNS(p.ResidualNs)))
	}
	return out
}

// oneExitPerOp reads KVM's exit count per op from a vm row's evidence.
func oneExitPerOp(r result.Result) bool {
	for _, kv := range strings.Fields(r.Evidence["kvm_stats_per_op"]) {
		if v, ok := strings.CutPrefix(kv, "exits="); ok {
			x, err := strconv.ParseFloat(v, 64)
			return err == nil && math.Abs(x-1) <= 0.05
		}
	}
	return false
}
