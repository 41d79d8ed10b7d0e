package phase

import "fmt"

// Kind is what opened a segment of a CPU's timeline: a kernel event seen by
// a probe. The values are those of enum kind in internal/bpf/c/kinds.h;
// internal/bpf's TestKindsMatchObject compares them with the generated
// object's, so the two cannot drift apart.
type Kind uint8

// The event kinds. Enter*/Exit* are the raw sys_enter/sys_exit tracepoints
// split by syscall class; interrupt kinds (IsInterrupt) never open a segment
// and appear only as the To side of a cell (time spent in interrupts that
// landed in a segment opened by the From side).
const (
	KindNone             Kind = 0
	KindEnterRead        Kind = 1
	KindEnterWrite       Kind = 2
	KindEnterFutexWait   Kind = 3
	KindEnterFutexWake   Kind = 4
	KindEnterFutexOther  Kind = 5
	KindEnterYield       Kind = 6
	KindEnterKVMRun      Kind = 7
	KindEnterIoctl       Kind = 8
	KindEnterOther       Kind = 9
	KindExitRead         Kind = 10
	KindExitWrite        Kind = 11
	KindExitFutexWait    Kind = 12
	KindExitFutexWake    Kind = 13
	KindExitFutexOther   Kind = 14
	KindExitYield        Kind = 15
	KindExitKVMRun       Kind = 16
	KindExitIoctl        Kind = 17
	KindExitOther        Kind = 18
	KindWaking           Kind = 19
	KindWakeup           Kind = 20
	KindNeedResched      Kind = 21
	KindSchedEntry       Kind = 22
	KindFairBegin        Kind = 23
	KindNrRunningInc     Kind = 24
	KindNrRunningDec     Kind = 25
	KindSwitch           Kind = 26
	KindSwitchToOther    Kind = 27
	KindSwitchFromOther  Kind = 28
	KindSwitchToIdle     Kind = 29
	KindSwitchFromIdle   Kind = 30
	KindSchedExit        Kind = 31
	KindTLBFlush         Kind = 32
	KindFPUSave          Kind = 33
	KindFPULoad          Kind = 34
	KindKVMFPULoad       Kind = 35
	KindKVMFPUUnload     Kind = 36
	KindKVMEntry         Kind = 37
	KindKVMExit          Kind = 38
	KindKVMUserspaceExit Kind = 39
	KindIdleEnter        Kind = 40
	KindIdleExit         Kind = 41
	KindIPIIn            Kind = 42
	KindIPIOut           Kind = 43
	KindIPISend          Kind = 44
	KindIRQ              Kind = 45
	KindSoftIRQ          Kind = 46
	KindTimer            Kind = 47
	KindReschedIPI       Kind = 48
	KindCallFuncIPI      Kind = 49
	KindIRQWork          Kind = 50

	// kindCount is KIND_COUNT: kinds from there up to NumKinds are
	// reserved for finer boundaries (fentry/kprobe programs, on kernels
	// that have them).
	kindCount Kind = 51
	irqFirst       = KindIRQ

	// NumKinds is the side of the transition matrix (NKINDS in kinds.h).
	NumKinds = 56
)

// kindInfo is a kind's short name and the probe behind it.
type kindInfo struct {
	name  string // short, stable, for tables and JSON
	probe string // the tracepoint (and condition) that records it
}

var kinds = map[Kind]kindInfo{
	KindNone:             {"none", "no event since the reset"},
	KindEnterRead:        {"enter-read", "sys_enter, read"},
	KindEnterWrite:       {"enter-write", "sys_enter, write"},
	KindEnterFutexWait:   {"enter-futex-wait", "sys_enter, futex wait"},
	KindEnterFutexWake:   {"enter-futex-wake", "sys_enter, futex wake"},
	KindEnterFutexOther:  {"enter-futex-other", "sys_enter, other futex op"},
	KindEnterYield:       {"enter-yield", "sys_enter, sched_yield"},
	KindEnterKVMRun:      {"enter-kvm-run", "sys_enter, ioctl KVM_RUN"},
	KindEnterIoctl:       {"enter-ioctl", "sys_enter, other ioctl"},
	KindEnterOther:       {"enter-other", "sys_enter, any other syscall"},
	KindExitRead:         {"exit-read", "sys_exit, read"},
	KindExitWrite:        {"exit-write", "sys_exit, write"},
	KindExitFutexWait:    {"exit-futex-wait", "sys_exit, futex wait"},
	KindExitFutexWake:    {"exit-futex-wake", "sys_exit, futex wake"},
	KindExitFutexOther:   {"exit-futex-other", "sys_exit, other futex op"},
	KindExitYield:        {"exit-yield", "sys_exit, sched_yield"},
	KindExitKVMRun:       {"exit-kvm-run", "sys_exit, ioctl KVM_RUN"},
	KindExitIoctl:        {"exit-ioctl", "sys_exit, other ioctl"},
	KindExitOther:        {"exit-other", "sys_exit, any other syscall"},
	KindWaking:           {"waking", "sched_waking"},
	KindWakeup:           {"wakeup", "sched_wakeup"},
	KindNeedResched:      {"need-resched", "sched_set_need_resched_tp (counted, never a boundary)"},
	KindSchedEntry:       {"sched-entry", "sched_entry_tp"},
	KindFairBegin:        {"fair-begin", "sched_util_est_cfs_tp"},
	KindNrRunningInc:     {"nr-running-inc", "sched_update_nr_running_tp, change > 0"},
	KindNrRunningDec:     {"nr-running-dec", "sched_update_nr_running_tp, change < 0"},
	KindSwitch:           {"switch", "sched_switch, tracked to tracked"},
	KindSwitchToOther:    {"switch-to-other", "sched_switch, tracked to another task"},
	KindSwitchFromOther:  {"switch-from-other", "sched_switch, another task to tracked"},
	KindSwitchToIdle:     {"switch-to-idle", "sched_switch, tracked to idle"},
	KindSwitchFromIdle:   {"switch-from-idle", "sched_switch, idle to tracked"},
	KindSchedExit:        {"sched-exit", "sched_exit_tp"},
	KindTLBFlush:         {"tlb-flush", "tlb_flush"},
	KindFPUSave:          {"fpu-save", "x86_fpu_regs_deactivated"},
	KindFPULoad:          {"fpu-load", "x86_fpu_regs_activated"},
	KindKVMFPULoad:       {"kvm-fpu-load", "kvm_fpu, load"},
	KindKVMFPUUnload:     {"kvm-fpu-unload", "kvm_fpu, unload"},
	KindKVMEntry:         {"kvm-entry", "kvm_entry"},
	KindKVMExit:          {"kvm-exit", "kvm_exit"},
	KindKVMUserspaceExit: {"kvm-userspace-exit", "kvm_userspace_exit"},
	KindIdleEnter:        {"idle-enter", "cpu_idle, entering a state (on a CPU a tracked task left idle)"},
	KindIdleExit:         {"idle-exit", "cpu_idle, PWR_EVENT_EXIT (on a CPU a tracked task left idle)"},
	KindIPIIn:            {"ipi-in", "call_function(_single)_entry or reschedule_entry, on the idle task of a CPU a tracked task left idle"},
	KindIPIOut:           {"ipi-out", "the exit of that IPI"},
	KindIPISend:          {"ipi-send", "ipi_send_cpu, by a tracked task"},
	KindIRQ:              {"irq", "irq_handler_entry/exit"},
	KindSoftIRQ:          {"softirq", "softirq_entry/exit"},
	KindTimer:            {"timer", "local_timer_entry/exit"},
	KindReschedIPI:       {"resched-ipi", "reschedule_entry/exit"},
	KindCallFuncIPI:      {"call-func-ipi", "call_function(_single)_entry/exit"},
	KindIRQWork:          {"irq-work", "irq_work_entry/exit"},
}

// String is the kind's short name.
func (k Kind) String() string {
	if i, ok := kinds[k]; ok {
		return i.name
	}
	return fmt.Sprintf("kind-%d", uint8(k))
}

// Probe names the tracepoint (and condition) that records the kind.
func (k Kind) Probe() string {
	if i, ok := kinds[k]; ok {
		return i.probe
	}
	return "reserved"
}

// IsInterrupt reports whether k is an interrupt: a nested interval whose
// time is kept apart from the segment it landed in.
func (k Kind) IsInterrupt() bool { return k >= irqFirst && k < kindCount }

// AllKinds lists the defined kinds in order.
func AllKinds() []Kind {
	out := make([]Kind, 0, kindCount)
	for k := KindNone; k < kindCount; k++ {
		out = append(out, k)
	}
	return out
}
