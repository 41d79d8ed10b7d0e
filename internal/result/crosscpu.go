package result

// CrossCPU is what a cross-CPU row's extra cost over the same benchmark's
// same-CPU row consists of, as far as the run can tell
// (internal/experiment/ladder/crosscpu.go): the difference of the two
// medians, the wake-up IPIs counted per hop on the row's CPUs, and
// how this machine's idle CPUs wait (from its configuration, not
// measured).
type CrossCPU struct {
	SameCPUNS float64 `json:"same_cpu_ns"`
	ExtraNS   float64 `json:"extra_ns"`
	// WakeupIPIsPerHop: wake-up IPIs the row's CPUs received per hop
	// (/proc/interrupts RES + CAL over its blocks, over the hops its sides
	// counted; start-up included); null where the machine does not count them.
	WakeupIPIsPerHop *float64 `json:"wakeup_ipis_per_hop"`
	// IdleHalts is Environment.Idle.Halts: how an idle CPU waits here.
	IdleHalts *bool `json:"idle_halts"`
	// Consists says it in words: what was measured, then what the
	// configuration adds, each marked as which it is.
	Consists string `json:"consists"`
}
