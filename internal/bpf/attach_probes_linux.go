package bpf

// inPlaceProbes is every probe of the in-place programs, in attach order:
// the core ones first (without them there is no switch to see). A path
// opens at __schedule's entry (sched_entry_tp, Linux 6.16+) and closes at
// the FPU restore on the way to user space (x86_fpu_regs_activated); the
// syscall probes, which fire on every syscall of the machine, are
// attached for the full set, or where one of those is missing (arm64 has
// no FPU restore tracepoint: there a path closes at the syscall's return,
// or at __schedule's exit).
var inPlaceProbes = []probeSpec{
	{tracepoint: "sched_switch", program: "ctxb_in_switch", group: GroupCore},
	{tracepoint: "sched_waking", program: "ctxb_in_waking", group: GroupCore},
	{tracepoint: "sched_wakeup", program: "ctxb_in_wakeup", group: GroupCore},
	{tracepoint: "sched_wakeup_new", program: "ctxb_in_wakeup_new", group: GroupCore},
	{tracepoint: "sched_entry_tp", program: "ctxb_in_sched_entry", group: GroupSched},
	{tracepoint: "x86_fpu_regs_activated", program: "ctxb_in_fpu_load", group: GroupSwitch, only: "amd64", why: x86Switch},
	{tracepoint: "sched_exit_tp", program: "ctxb_in_sched_exit", group: groupFull},
	{tracepoint: "sys_enter", program: "ctxb_in_sys_enter", group: groupSyscalls},
	{tracepoint: "sys_exit", program: "ctxb_in_sys_exit", group: groupSyscalls},
}

// The in-place programs' own groups: the scheduler's exit only with the
// full set; the syscalls with the full set or as a fallback.
const (
	groupFull     Group = "full"
	groupSyscalls Group = "syscalls"
)
