package bpf

// The phase models: what a hop of each kind goes through on Linux 6.x
// (EEVDF, delayed dequeue), as transitions between probe events. Each
// model lists the paths hops really take on the reference machine, not one
// idealised path: on one CPU, a wakeup often preempts the waker, so a
// ping-pong alternates between a hop that blocks and one that was
// preempted (PerHop of each phase says how often each path ran).

// optionalBoundaries may not fire on every hop (FPU restore, TLB flush,
// the fair-class enqueue/dequeue brackets), or have no tracepoint on older
// kernels (sched_entry_tp and sched_exit_tp arrived in 6.16).
var optionalBoundaries = []Kind{
	KindFPULoad, KindFPUSave, KindTLBFlush,
	KindSchedEntry, KindSchedExit,
	KindFairBegin, KindNrRunningInc, KindNrRunningDec,
	KindKVMFPULoad, KindKVMFPUUnload,
}

// The context switch proper, common to every model.
var switchEdges = []edge{
	{KindSwitch, KindTLBFlush, "context switch: switch_mm up to a TLB flush",
		"context_switch: switch_mm_irqs_off loads the next address space, up to flushing the TLB"},
	{KindTLBFlush, KindFPUSave, "context switch: TLB flush, switch_to up to the FPU save",
		"the TLB flush, the rest of switch_mm, switch_to up to saving the outgoing task's FPU registers"},
	{KindSwitch, KindFPUSave, "context switch: mm, up to the FPU save",
		"context_switch: prepare, switch_mm (between threads of one process: nothing to load), switch_to up to saving the outgoing task's FPU registers"},
	{KindFPUSave, KindSchedExit, "context switch: FPU save, stack switch, finish",
		"XSAVE of the outgoing task's FPU state, the register and stack switch, finish_task_switch (runqueue unlock), up to __schedule returning in the next task"},
	{KindSwitch, KindSchedExit, "context switch (no FPU to save)",
		"context_switch when the outgoing task has no live user FPU state"},
}

// The wakeup of a sleeping task, after the syscall that wakes it found it.
var wakeEdges = []edge{
	{KindWaking, KindFairBegin, "wakeup: select CPU, lock runqueue",
		"try_to_wake_up: select_task_rq, the runqueue lock and clock, up to enqueue_task_fair"},
	{KindFairBegin, KindNrRunningInc, "wakeup: enqueue up the cgroup hierarchy",
		"enqueue_task_fair for a wakee that had been dequeued: enqueue_entity at each cgroup level and the load and share updates up the hierarchy"},
	{KindNrRunningInc, KindWakeup, "wakeup: psi, preemption check",
		"psi_enqueue (pressure accounting up the cgroup tree), wakeup_preempt (may ask the waker to reschedule), up to sched_wakeup"},
	{KindFairBegin, KindWakeup, "wakeup: requeue the delayed task, psi, preemption check",
		"the wakee was still queued (EEVDF delayed dequeue): requeue_delayed_entity, psi_enqueue, wakeup_preempt, up to sched_wakeup"},
	{KindWaking, KindWakeup, "wakeup",
		"try_to_wake_up from sched_waking to sched_wakeup, the fair-class brackets not seen"},
}

// Giving up the CPU: blocking, or being preempted on the way to user space.
func scheduleEdges(exitWaker Kind) []edge {
	return []edge{
		{exitWaker, KindSchedEntry, "exit to user: preempted",
			"the wakeup asked for a reschedule: exit_to_user_mode calls schedule() before returning to user space (the waker is preempted, still runnable)"},
		{KindSchedEntry, KindFairBegin, "schedule(): lock runqueue, start blocking",
			"__schedule: the runqueue lock and clock, try_to_block_task, up to dequeue_task_fair"},
		{KindFairBegin, KindNrRunningDec, "block: dequeue up the cgroup hierarchy",
			"dequeue_entities: dequeue_entity at each cgroup level that empties, update_curr and load averages on the way up"},
		{KindNrRunningDec, KindSwitch, "pick next task",
			"pick_next_task_fair: pick an entity per cgroup level, put_prev_entity/set_next_entity for the levels that change, psi_task_switch; up to sched_switch"},
		{KindFairBegin, KindSwitch, "block: delayed dequeue, pick next task",
			"dequeue_task_fair keeps the sleeper queued (EEVDF delayed dequeue: set_delayed up the hierarchy), then pick_next_task_fair (pick per cgroup level, put_prev_entity/set_next_entity for the levels that change) and psi_task_switch"},
		{KindSchedEntry, KindSwitch, "schedule(): pick next (the preempted task stays queued)",
			"__schedule without blocking: the runqueue lock and clock, pick_next_task_fair (put_prev_entity/set_next_entity per cgroup level that changes), psi_task_switch"},
	}
}

// The gaps every scheduler-bound model shares: with raw tracepoints only,
// the per-cgroup-level work of a pick cannot be told apart from the rest.
var schedGaps = []Gap{
	{
		Work:   "put_prev_entity/set_next_entity and pick_next_entity at each cgroup level (the hierarchy part of a pick)",
		Inside: "pick next task; block: delayed dequeue, pick next task; schedule(): pick next",
		Needs:  "fentry/fexit (or kprobes) on pick_next_task_fair, put_prev_entity and set_next_entity; this kernel has neither",
	},
	{
		Work:   "psi_task_switch and psi_enqueue: pressure accounting at each ancestor cgroup",
		Inside: "pick next task (psi_task_switch); wakeup: psi, preemption check (psi_enqueue)",
		Needs:  "fentry/fexit on psi_task_switch and psi_task_change",
	},
	{
		Work:   "the delayed dequeue (set_delayed up the hierarchy) as distinct from the pick that follows it",
		Inside: "block: delayed dequeue, pick next task",
		Needs:  "fexit on dequeue_task_fair (sched_update_nr_running_tp only fires when the task really leaves the runqueue)",
	},
	{
		Work:   "cgroup CPU-time accounting (update_curr -> cgroup_account_cputime) at each level",
		Inside: "the block and pick phases",
		Needs:  "fentry on update_curr or cgroup_rstat_updated",
	},
}

func join(parts ...[]edge) []edge {
	var out []edge
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var pipeModel = model{
	name:     "pipe hop, same CPU",
	optional: optionalBoundaries,
	edges: join(
		[]edge{
			{KindSchedExit, KindExitRead, "read() returns",
				"the woken reader finishes pipe_read: off the wait queue, copy the token out, unlock; up to sys_exit"},
			{KindExitRead, KindFPULoad, "exit to user: FPU restore",
				"exit_to_user_mode after the sys_exit tracepoint: restore the FPU registers of the task switched in (XRSTOR)"},
			{KindFPULoad, KindEnterWrite, "user space, write() entry",
				"back to user space, the loop, and write()'s kernel entry up to sys_enter (entry code, PTI CR3 switches and mitigations have no tracepoint)"},
			{KindExitRead, KindEnterWrite, "user space, write() entry (FPU already loaded)",
				"exit to user space, the loop, write()'s kernel entry up to sys_enter"},
			{KindEnterWrite, KindWaking, "write(): copy into the pipe",
				"pipe_write: lock the pipe, copy the token into the buffer, up to try_to_wake_up of the waiting reader"},
		},
		wakeEdges,
		[]edge{
			{KindWakeup, KindExitWrite, "write() returns",
				"rest of try_to_wake_up (runqueue unlock), pipe unlock, up to sys_exit"},
			{KindEnterWrite, KindExitWrite, "write(): no reader asleep",
				"pipe_write when the reader is runnable (it was preempted before its read): copy, no wakeup"},
			{KindExitWrite, KindEnterRead, "user space, read() entry",
				"exit to user space, the loop, read()'s kernel entry up to sys_enter"},
			{KindEnterRead, KindSchedEntry, "read(): pipe empty, go to sleep",
				"pipe_read: lock, no data, prepare_to_wait on the pipe, up to schedule()"},
			{KindEnterRead, KindExitRead, "read(): data already there",
				"pipe_read finds the token (the reader had been preempted before reading): no sleep"},
		},
		scheduleEdges(KindExitWrite),
		switchEdges,
		[]edge{
			{KindSchedExit, KindFPULoad, "the preempted task resumes: exit to user, FPU restore",
				"back in exit_to_user_mode after its preemption: restore its FPU registers"},
			{KindFPULoad, KindEnterRead, "user space, read() entry",
				"back to user space, the loop, read()'s kernel entry up to sys_enter"},
		},
	),
	gaps: schedGaps,
}

var futexModel = model{
	name:     "futex hop, same CPU",
	optional: optionalBoundaries,
	edges: join(
		[]edge{
			{KindSchedExit, KindExitFutexWait, "futex wait returns",
				"the woken waiter leaves futex_wait (off the hash bucket queue); up to sys_exit"},
			{KindExitFutexWait, KindFPULoad, "exit to user: FPU restore",
				"exit_to_user_mode after the sys_exit tracepoint: restore the FPU registers of the task switched in"},
			{KindFPULoad, KindEnterFutexWake, "user space, futex wake entry",
				"back to user space: check the turn, store the flag, futex(WAKE)'s kernel entry up to sys_enter"},
			{KindExitFutexWait, KindEnterFutexWake, "user space, futex wake entry (FPU already loaded)",
				"exit to user space, store the flag, futex(WAKE)'s kernel entry"},
			{KindEnterFutexWake, KindWaking, "futex wake: find the waiter",
				"futex_wake: hash the address, lock the bucket, find the waiter, up to try_to_wake_up"},
		},
		wakeEdges,
		[]edge{
			{KindWakeup, KindExitFutexWake, "futex wake returns",
				"rest of try_to_wake_up (runqueue unlock), bucket unlock, up to sys_exit"},
			{KindEnterFutexWake, KindExitFutexWake, "futex wake: nobody waiting",
				"futex_wake finds no waiter (the partner was preempted before waiting)"},
			{KindExitFutexWake, KindEnterFutexWait, "user space, futex wait entry",
				"exit to user space, check the flag, futex(WAIT)'s kernel entry"},
			{KindEnterFutexWait, KindSchedEntry, "futex wait: queue and sleep",
				"futex_wait: read the word, queue on the hash bucket, up to schedule()"},
			{KindEnterFutexWait, KindExitFutexWait, "futex wait: word already changed",
				"futex_wait returns at once (EAGAIN): the partner passed the turn before this task slept"},
		},
		scheduleEdges(KindExitFutexWake),
		switchEdges,
		[]edge{
			{KindSchedExit, KindFPULoad, "the preempted task resumes: exit to user, FPU restore",
				"back in exit_to_user_mode after its preemption: restore its FPU registers"},
			{KindFPULoad, KindEnterFutexWait, "user space, futex wait entry",
				"back to user space, check the flag, futex(WAIT)'s kernel entry"},
		},
	),
	gaps: schedGaps,
}

var yieldModel = model{
	name:     "sched_yield hop, same CPU",
	optional: optionalBoundaries,
	edges: join(
		[]edge{
			{KindSchedExit, KindExitYield, "sched_yield returns",
				"back from schedule() in do_sched_yield; up to sys_exit"},
			{KindExitYield, KindFPULoad, "exit to user: FPU restore",
				"exit_to_user_mode after the sys_exit tracepoint: restore the FPU registers of the task switched in"},
			{KindFPULoad, KindEnterYield, "user space, sched_yield entry",
				"back to user space, the loop, sched_yield's kernel entry up to sys_enter"},
			{KindExitYield, KindEnterYield, "user space, sched_yield entry (FPU already loaded)",
				"exit to user space, the loop, sched_yield's kernel entry"},
			{KindEnterYield, KindSchedEntry, "sched_yield: yield_task",
				"do_sched_yield: runqueue lock, yield_task_fair (the task gives up the rest of its slice), unlock, up to schedule()"},
			{KindSchedEntry, KindSwitch, "schedule(): pick next",
				"__schedule: the runqueue lock and clock, pick_next_task_fair (put_prev_entity/set_next_entity per cgroup level that changes), psi_task_switch; the yielder stays queued"},
			{KindSchedEntry, KindSchedExit, "schedule(): picked the yielder again",
				"__schedule found nothing better to run: no switch"},
			{KindEnterYield, KindExitYield, "sched_yield: no switch",
				"sched_yield returned without switching (sched_entry_tp not seen)"},
		},
		switchEdges,
	),
	gaps: schedGaps[:2],
}

// kvmModel: one op is one KVM_RUN that ends in an exit to the VMM. On
// VMX/SVM kvm_entry and kvm_exit split guest time from exit handling; the
// PVM backend of the reference machine emits neither, so there the guest
// and the handling of its exit are one phase, bounded by the guest FPU
// swap in and out (x86_fpu_regs_activated next to kvm_fpu).
var kvmModel = model{
	name:     "KVM exit to user space",
	optional: optionalBoundaries,
	edges: []edge{
		{KindEnterKVMRun, KindFPULoad, "KVM_RUN: vcpu_load, guest FPU in",
			"kvm_vcpu_ioctl: the vCPU mutex, vcpu_load (the backend's host state for this CPU), swapping the guest FPU state into the registers"},
		{KindFPULoad, KindKVMFPULoad, "KVM_RUN: guest FPU loaded",
			"from the FPU swap to the kvm_fpu tracepoint right after it"},
		{KindKVMFPULoad, KindKVMEntry, "KVM_RUN: requests, guest entry",
			"process pending requests and events, up to the kvm_entry tracepoint"},
		{KindKVMEntry, KindKVMExit, "guest",
			"from kvm_entry to kvm_exit: the world switch into the guest, the guest, the switch back"},
		{KindKVMExit, KindKVMEntry, "exit handled in the kernel, re-entry",
			"an exit KVM completes itself (interrupt, fault, emulation) and re-enters the guest without going to the VMM"},
		{KindKVMExit, KindFPULoad, "exit handling in the kernel, host FPU back",
			"the backend's exit handler decodes the exit (an `out` no in-kernel device claims: kvm_run filled for user space), then the host FPU state swapped back"},
		{KindKVMFPULoad, KindFPULoad, "guest entry, guest, exit and its handling",
			"vcpu_run without kvm_entry/kvm_exit (the PVM backend emits neither): the switcher into the guest, the guest up to its trap, the exit's handling (for `out`: one emulated instruction), the host FPU state swapped back"},
		{KindFPULoad, KindKVMFPUUnload, "KVM_RUN: host FPU loaded",
			"from the FPU swap to the kvm_fpu tracepoint right after it"},
		{KindKVMFPUUnload, KindKVMUserspaceExit, "KVM_RUN: vcpu_put",
			"post_kvm_run_save, vcpu_put (on PVM the host context is restored here), up to kvm_userspace_exit"},
		{KindKVMUserspaceExit, KindExitKVMRun, "return to the VMM",
			"kvm_vcpu_ioctl returns; up to the ioctl's sys_exit"},
		{KindExitKVMRun, KindEnterKVMRun, "VMM: return to user, handle the exit, KVM_RUN again",
			"exit_to_user_mode (with KVM's user-return notifiers: host MSRs and, on PVM, more host state restored), the VMM reading kvm_run, and the next KVM_RUN's kernel entry up to sys_enter"},
		{KindExitKVMRun, KindFPULoad, "exit to user: FPU restore",
			"exit_to_user_mode after the sys_exit tracepoint: restore the VMM's FPU registers"},
		{KindFPULoad, KindEnterKVMRun, "VMM: handle the exit, KVM_RUN again",
			"back to the VMM: read kvm_run, and the next KVM_RUN's kernel entry up to sys_enter"},
	},
	gaps: []Gap{
		{
			Work:   "guest time as distinct from the exit's handling in the kernel, on a backend without kvm_entry/kvm_exit (PVM)",
			Inside: "guest entry, guest, exit and its handling",
			Needs:  "the backend calling trace_kvm_entry/trace_kvm_exit (VMX and SVM do), or fentry/fexit on pvm_vcpu_run and the PVM exit handler",
		},
		{
			Work:   "the backend's world switch into and out of the guest (PVM's switcher; VMRESUME/VMRUN on VMX/SVM)",
			Inside: "guest (or, on PVM, guest entry, guest, exit and its handling)",
			Needs:  "fentry/fexit on the backend's vcpu_run (pvm_vcpu_run, vmx_vcpu_run, svm_vcpu_run)",
		},
		{
			Work:   "the return-to-user work after KVM_RUN (user-return notifiers restoring host MSRs and state)",
			Inside: "VMM: return to user, handle the exit, KVM_RUN again",
			Needs:  "fentry on kvm_on_user_return (and the backend's own return hook), or a tracepoint at exit_to_user_mode's end",
		},
	},
	notes: []string{
		"exit reasons are read at kvm_exit from vcpu_pvm.exit_reason where the kernel's BTF has it; a backend without kvm_exit (PVM) records none, and on VMX/SVM they land under reason 255",
	},
}

// vmSwitchUserModel: a hop from one VM to another through their VMMs on
// one CPU (vm/switch-user). A's guest exits to its VMM (the KVM exit
// model's phases), the VMM writes a token down a pipe and blocks reading
// the answer (the pipe model's), B's VMM returns from its read and enters
// its guest again (the KVM model's again): the union of the two models,
// and the VMM's user space between them.
var vmSwitchUserModel = model{
	name:     "VM-to-VM hop through the VMMs, same CPU",
	optional: optionalBoundaries,
	edges: join(
		kvmModel.edges,
		pipeModel.edges,
		[]edge{
			{KindExitKVMRun, KindEnterWrite, "VMM: read the exit, write the token",
				"KVM_RUN returned: exit to user space, the VMM reads kvm_run and writes the token to the other VMM, up to sys_enter"},
			{KindFPULoad, KindEnterKVMRun, "VMM: token read, KVM_RUN again",
				"the woken VMM back in user space after its read, and KVM_RUN's kernel entry"},
			{KindExitRead, KindEnterKVMRun, "VMM: token read, KVM_RUN again (FPU already loaded)",
				"exit to user space after the read, and KVM_RUN's kernel entry"},
		},
	),
	gaps:  join2(kvmModel.gaps, schedGaps),
	notes: kvmModel.notes,
}

func join2(parts ...[]Gap) []Gap {
	var out []Gap
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// VMSwitchUser reads m as hops of vm/switch-user on one CPU: a guest's
// exit to its VMM, a pipe token to the other VMM, its guest entered.
func VMSwitchUser(m *Matrix, hops uint64) Breakdown { return vmSwitchUserModel.breakdown(m, hops) }

// PipeHop reads m as hops of a same-CPU pipe ping-pong (write wakes the
// reader, read blocks).
func PipeHop(m *Matrix, hops uint64) Breakdown { return pipeModel.breakdown(m, hops) }

// FutexHop reads m as hops of a same-CPU futex ping-pong (FUTEX_WAKE the
// partner, FUTEX_WAIT for the turn).
func FutexHop(m *Matrix, hops uint64) Breakdown { return futexModel.breakdown(m, hops) }

// YieldHop reads m as hops of a same-CPU sched_yield ping-pong.
func YieldHop(m *Matrix, hops uint64) Breakdown { return yieldModel.breakdown(m, hops) }

// KVMUserExit reads m as exits of a vCPU to its VMM (KVM_RUN returning to
// user space), one hop per exit.
func KVMUserExit(m *Matrix, exits uint64) Breakdown { return kvmModel.breakdown(m, exits) }
