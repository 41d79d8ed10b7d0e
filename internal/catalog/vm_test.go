package catalog

import (
	"testing"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/kvm"
	"github.com/ctxbench/ctxbench/internal/model"
)

// A vm block's KVM counters travel as a typed payload, per op and with the
// guest mode the VM decomposition compares; the evidence is for the reader.
func TestVMDescribeTypesKVMCounts(t *testing.T) {
	var r model.Response
	ko := kernels.KVMOut{Stats: map[string]int64{"exits": 200, "insn_emulation": -1}}
	vmDescribe(&r, "exit-user", kernels.KVMGuestUser, kvm.SelfCheck{}, ko, 100)
	if r.KVM == nil || r.KVM.GuestMode != "user" || r.KVM.PerOp["exits"] != 2 {
		t.Fatalf("KVM payload %+v", r.KVM)
	}
	if _, ok := r.KVM.PerOp["insn_emulation"]; ok {
		t.Errorf("a statistic the kernel lacks is counted: %+v", r.KVM.PerOp)
	}
	if _, ok := r.Evidence["kvm_stats_per_op"]; ok || r.Evidence["guest"] == "" {
		t.Errorf("evidence %v", r.Evidence)
	}
}
