package bpf

// Group is a set of probes attached or left out together.
type Group string

// The probe groups. Core is required: without it there is no hop to see.
// The others are optional: a tracepoint the kernel lacks is reported in
// Probes and its boundary is simply absent (the phases around it merge).
const (
	GroupCore       Group = "core"       // sys_enter/exit, sched_waking/wakeup/switch
	GroupSched      Group = "sched"      // __schedule entry/exit, fair enqueue/dequeue, need-resched
	GroupSwitch     Group = "switch"     // TLB flush and FPU save/restore around a switch
	GroupKVM        Group = "kvm"        // kvm_entry/exit/userspace_exit/fpu
	GroupInterrupts Group = "interrupts" // hard and soft interrupts, timer, IPIs
	GroupCross      Group = "cross"      // cpu_idle and ipi_send_cpu: what a hop across CPUs adds
)

// ProbeStatus says whether one tracepoint is attached.
type ProbeStatus struct {
	Tracepoint string `json:"tracepoint"`
	Group      Group  `json:"group"`
	Attached   bool   `json:"attached"`
	// Why it is not attached: excluded by the options, or the kernel's
	// refusal (a tracepoint this kernel does not have).
	Reason string `json:"reason,omitempty"`
}
