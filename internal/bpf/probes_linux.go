package bpf

// probes_linux.go: the probes the tracer attaches on each architecture.

// probeSpec ties a raw tracepoint to the program (by its C name) that
// handles it. only, where set, is the one architecture (GOARCH) whose
// kernel has the tracepoint, and why the other's has not or does not need
// it; never, where set, says why the tracepoint is attached nowhere.
type probeSpec struct {
	tracepoint string
	program    string
	group      Group
	only       string
	why        string
	never      string
}

// Why the probes of one architecture are absent on the other (hop.bpf.c
// compiles their programs for their architecture only).
const (
	x86Switch = "x86-64's only: arm64 switches address spaces by ASID and saves and restores its FPSIMD registers untraced"
	x86KVM    = "x86-64's only: the vm rung's guests are x86-64 programs"
	x86Timer  = "x86-64's only: arm64's tick is the arch_timer interrupt (irq_handler_entry, read as the timer)"
	x86IPI    = "x86-64's only: arm64's IPIs are ipi_entry/ipi_exit, which name the IPI"
	arm64IPI  = "arm64's: on x86-64 an IPI has a tracepoint of its own (reschedule, call_function, irq_work)"
)

// probeTable is every probe, in attach order: the core first, so that a
// kernel without them fails before anything optional is attached.
var probeTable = []probeSpec{
	{tracepoint: "sys_enter", program: "ctxb_sys_enter", group: GroupCore},
	{tracepoint: "sys_exit", program: "ctxb_sys_exit", group: GroupCore},
	{tracepoint: "sched_waking", program: "ctxb_waking", group: GroupCore},
	{tracepoint: "sched_wakeup", program: "ctxb_wakeup", group: GroupCore},
	{tracepoint: "sched_switch", program: "ctxb_switch", group: GroupCore},

	{tracepoint: "sched_entry_tp", program: "ctxb_sched_entry", group: GroupSched},
	{tracepoint: "sched_exit_tp", program: "ctxb_sched_exit", group: GroupSched},
	{tracepoint: "sched_util_est_cfs_tp", program: "ctxb_fair_begin", group: GroupSched},
	{tracepoint: "sched_update_nr_running_tp", program: "ctxb_nr_running", group: GroupSched},
	{tracepoint: "sched_set_need_resched_tp", program: "ctxb_need_resched", group: GroupSched},

	{tracepoint: "tlb_flush", program: "ctxb_tlb_flush", group: GroupSwitch, only: "amd64", why: x86Switch},
	{tracepoint: "x86_fpu_regs_deactivated", program: "ctxb_fpu_save", group: GroupSwitch, only: "amd64", why: x86Switch},
	{tracepoint: "x86_fpu_regs_activated", program: "ctxb_fpu_load", group: GroupSwitch, only: "amd64", why: x86Switch},

	{tracepoint: "kvm_entry", program: "ctxb_kvm_entry", group: GroupKVM, only: "amd64", why: x86KVM},
	{tracepoint: "kvm_exit", program: "ctxb_kvm_exit", group: GroupKVM, only: "amd64", why: x86KVM},
	{tracepoint: "kvm_userspace_exit", program: "ctxb_kvm_uexit", group: GroupKVM, only: "amd64", why: x86KVM},
	{tracepoint: "kvm_fpu", program: "ctxb_kvm_fpu", group: GroupKVM, only: "amd64", why: x86KVM},

	{tracepoint: "cpu_idle", program: "ctxb_cpu_idle", group: GroupCross},
	{tracepoint: "ipi_send_cpu", program: "ctxb_ipi_send", group: GroupCross},
	{tracepoint: "ipi_raise", group: GroupCross,
		never: "ipi_send_cpu records the same send with its one target CPU, on both architectures (ipi_raise, arm64's, names a CPU mask)"},

	{tracepoint: "irq_handler_entry", program: "ctxb_irq_in", group: GroupInterrupts},
	{tracepoint: "irq_handler_exit", program: "ctxb_irq_out", group: GroupInterrupts},
	{tracepoint: "softirq_entry", program: "ctxb_softirq_in", group: GroupInterrupts},
	{tracepoint: "softirq_exit", program: "ctxb_softirq_out", group: GroupInterrupts},
	{tracepoint: "local_timer_entry", program: "ctxb_timer_in", group: GroupInterrupts, only: "amd64", why: x86Timer},
	{tracepoint: "local_timer_exit", program: "ctxb_timer_out", group: GroupInterrupts, only: "amd64", why: x86Timer},
	{tracepoint: "reschedule_entry", program: "ctxb_resched_in", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "reschedule_exit", program: "ctxb_resched_out", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "call_function_entry", program: "ctxb_callf_in", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "call_function_exit", program: "ctxb_callf_out", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "call_function_single_entry", program: "ctxb_callfs_in", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "call_function_single_exit", program: "ctxb_callfs_out", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "irq_work_entry", program: "ctxb_irqwork_in", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "irq_work_exit", program: "ctxb_irqwork_out", group: GroupInterrupts, only: "amd64", why: x86IPI},
	{tracepoint: "ipi_entry", program: "ctxb_ipi_in", group: GroupInterrupts, only: "arm64", why: arm64IPI},
	{tracepoint: "ipi_exit", program: "ctxb_ipi_out", group: GroupInterrupts, only: "arm64", why: arm64IPI},
}

// absentOn says why p is never attached on arch (a GOARCH): its
// tracepoint is another architecture's, or none uses it; "" where it is
// attached unless excluded or refused by the kernel.
func (p probeSpec) absentOn(arch string) string {
	switch {
	case p.never != "":
		return p.never
	case p.only != "" && p.only != arch:
		return p.why
	}
	return ""
}

// probesOn are the probes attached on arch: its object has their programs.
func probesOn(arch string) []probeSpec {
	var out []probeSpec
	for _, p := range probeTable {
		if p.absentOn(arch) == "" {
			out = append(out, p)
		}
	}
	return out
}
