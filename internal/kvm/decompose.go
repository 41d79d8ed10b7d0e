package kvm

import (
	"errors"
	"fmt"
)

// UserExitCost is what returning to the VMM adds to an exit: E-user (an
// exit that KVM_RUN returns to user space for) minus E-kernel (an exit the
// host kernel completes), both per round trip. kvm-unit-tests' decomposition
// (inl_from_qemu - inl_from_kernel; Bonzini, commit 00bfecaa).
func UserExitCost(eUserNs, eKernelNs float64) float64 { return eUserNs - eKernelNs }

// SwitchParts decomposes one hop of the VM-to-VM switch (variant U): a hop
// is an exit to user space on one side, a token through a pipe, a host
// process switch, and the other side's KVM_RUN (research §3).
type SwitchParts struct {
	HopNs        float64 `json:"hop_ns"`         // VM-to-VM, per hop
	ProcessHopNs float64 `json:"process_hop_ns"` // plain process pipe ping-pong, per hop, same placement
	ExitNs       float64 `json:"exit_ns"`        // E-user round trip of one vCPU alone, same guest mode
	// OverProcessNs is HopNs - ProcessHopNs: what switching to another VM
	// costs beyond switching to another process.
	OverProcessNs float64 `json:"over_process_ns"`
	// ResidualNs is HopNs - ProcessHopNs - ExitNs: what neither the exit
	// nor the process switch explains (vcpu_put/vcpu_load of another VM,
	// cache and TLB effects); it can be negative within noise.
	ResidualNs float64 `json:"residual_ns"`
}

// DecomposeSwitch splits a VM-to-VM hop with the two baselines.
func DecomposeSwitch(hopNs, processHopNs, exitNs float64) SwitchParts {
	return SwitchParts{
		HopNs:         hopNs,
		ProcessHopNs:  processHopNs,
		ExitNs:        exitNs,
		OverProcessNs: hopNs - processHopNs,
		ResidualNs:    hopNs - processHopNs - exitNs,
	}
}

// PerOp divides the vCPU statistics of a block by the ops it did; a
// statistic the kernel does not have (negative) is left out.
func PerOp(stats map[string]int64, ops uint64) map[string]float64 {
	m := map[string]float64{}
	if ops == 0 {
		return m
	}
	for k, v := range stats {
		if v >= 0 {
			m[k] = float64(v) / float64(ops)
		}
	}
	return m
}

// MemoryPerVM is what one minimal VM keeps, in KiB, from the deltas of
// /proc/self/smaps_rollup, /proc/self/status and /proc/meminfo over
// creating VMs VMs and holding them open.
type MemoryPerVM struct {
	VMs       int    `json:"vms"`
	Requested int    `json:"requested"`
	Limit     string `json:"limit,omitempty"` // why fewer than Requested were created

	// In the VMM process.
	RSSKB     float64 `json:"rss_kb"`     // resident: touched guest pages + kvm_run
	PSSKB     float64 `json:"pss_kb"`     // proportional set size
	VirtualKB float64 `json:"virtual_kb"` // address space reserved (VmSize), apart from what is resident
	// In the kernel (system-wide /proc/meminfo).
	SlabKB          float64 `json:"slab_kb"`
	SUnreclaimKB    float64 `json:"sunreclaim_kb"`
	KernelStackKB   float64 `json:"kernel_stack_kb"`    // per-VM kernel threads (e.g. kvm-nx-lpage-recovery)
	PageTablesKB    float64 `json:"page_tables_kb"`     // the VMM's own page tables
	SecPageTablesKB float64 `json:"sec_page_tables_kb"` // KVM's shadow or two-dimensional page tables
	VmallocKB       float64 `json:"vmalloc_kb"`
	PercpuKB        float64 `json:"percpu_kb"`
	// KernelAccountedKB is Slab + KernelStack + SecPageTables + VmallocUsed + Percpu.
	KernelAccountedKB float64 `json:"kernel_accounted_kb"`
	// MemFreeDropKB is the fall of MemFree per VM: everything, accounted or
	// not, including whatever else the machine did meanwhile.
	MemFreeDropKB float64 `json:"memfree_drop_kb"`
}

// PerVM computes MemoryPerVM from the before/after snapshots (keys are the
// /proc field names without the colon, values in kB) of n VMs.
func PerVM(before, after map[string]int64, n, requested int, limit string) (MemoryPerVM, error) {
	if n <= 0 {
		return MemoryPerVM{}, errors.New("no VM was created")
	}
	d := func(k string) float64 {
		b, okb := before[k]
		a, oka := after[k]
		if !okb || !oka || b < 0 || a < 0 {
			return 0
		}
		return float64(a-b) / float64(n)
	}
	for _, k := range []string{"Rss", "Pss", "MemFree"} {
		if _, ok := before[k]; !ok {
			return MemoryPerVM{}, fmt.Errorf("memory snapshot lacks %s", k)
		}
	}
	m := MemoryPerVM{
		VMs: n, Requested: requested, Limit: limit,
		RSSKB: d("Rss"), PSSKB: d("Pss"), VirtualKB: d("VmSize"),
		SlabKB: d("Slab"), SUnreclaimKB: d("SUnreclaim"), KernelStackKB: d("KernelStack"),
		PageTablesKB: d("PageTables"), SecPageTablesKB: d("SecPageTables"),
		VmallocKB: d("VmallocUsed"), PercpuKB: d("Percpu"),
		MemFreeDropKB: -d("MemFree"),
	}
	m.KernelAccountedKB = m.SlabKB + m.KernelStackKB + m.SecPageTablesKB + m.VmallocKB + m.PercpuKB
	return m, nil
}
