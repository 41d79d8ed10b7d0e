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

// probeSpec ties a raw tracepoint to the program (by its C name) that
// handles it.
type probeSpec struct {
	tracepoint string
	program    string
	group      Group
}

// probeTable is every probe, in attach order: the core first, so that a
// kernel without them fails before anything optional is attached.
var probeTable = []probeSpec{
	{"sys_enter", "ctxb_sys_enter", GroupCore},
	{"sys_exit", "ctxb_sys_exit", GroupCore},
	{"sched_waking", "ctxb_waking", GroupCore},
	{"sched_wakeup", "ctxb_wakeup", GroupCore},
	{"sched_switch", "ctxb_switch", GroupCore},

	{"sched_entry_tp", "ctxb_sched_entry", GroupSched},
	{"sched_exit_tp", "ctxb_sched_exit", GroupSched},
	{"sched_util_est_cfs_tp", "ctxb_fair_begin", GroupSched},
	{"sched_update_nr_running_tp", "ctxb_nr_running", GroupSched},
	{"sched_set_need_resched_tp", "ctxb_need_resched", GroupSched},

	{"tlb_flush", "ctxb_tlb_flush", GroupSwitch},
	{"x86_fpu_regs_deactivated", "ctxb_fpu_save", GroupSwitch},
	{"x86_fpu_regs_activated", "ctxb_fpu_load", GroupSwitch},

	{"kvm_entry", "ctxb_kvm_entry", GroupKVM},
	{"kvm_exit", "ctxb_kvm_exit", GroupKVM},
	{"kvm_userspace_exit", "ctxb_kvm_uexit", GroupKVM},
	{"kvm_fpu", "ctxb_kvm_fpu", GroupKVM},

	{"cpu_idle", "ctxb_cpu_idle", GroupCross},
	{"ipi_send_cpu", "ctxb_ipi_send", GroupCross},

	{"irq_handler_entry", "ctxb_irq_in", GroupInterrupts},
	{"irq_handler_exit", "ctxb_irq_out", GroupInterrupts},
	{"softirq_entry", "ctxb_softirq_in", GroupInterrupts},
	{"softirq_exit", "ctxb_softirq_out", GroupInterrupts},
	{"local_timer_entry", "ctxb_timer_in", GroupInterrupts},
	{"local_timer_exit", "ctxb_timer_out", GroupInterrupts},
	{"reschedule_entry", "ctxb_resched_in", GroupInterrupts},
	{"reschedule_exit", "ctxb_resched_out", GroupInterrupts},
	{"call_function_entry", "ctxb_callf_in", GroupInterrupts},
	{"call_function_exit", "ctxb_callf_out", GroupInterrupts},
	{"call_function_single_entry", "ctxb_callfs_in", GroupInterrupts},
	{"call_function_single_exit", "ctxb_callfs_out", GroupInterrupts},
	{"irq_work_entry", "ctxb_irqwork_in", GroupInterrupts},
	{"irq_work_exit", "ctxb_irqwork_out", GroupInterrupts},
}
