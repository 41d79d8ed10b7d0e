package phase

// The phase models: what a hop of each kind goes through on Linux 6.x
// (EEVDF, delayed dequeue), as transitions between probe events. Each
// model lists the paths hops really take on the reference machine, not one
// idealised path: on one CPU, a wakeup often preempts the waker, so a
// ping-pong alternates between a hop that blocks and one that was
// preempted (PerHop of each phase says how often each path ran). Every
// phase has a kind (what work it is: model.PhaseKind), and every model
// lists its paths as data; check.go proves them (no transition twice, no
// phase off every path, every path closed) and models_test.go feeds each
// path's cells through the model.

import "github.com/ctxbench/ctxbench/internal/model"

// optionalBoundaries may not fire on every hop (FPU restore, TLB flush,
// the fair-class enqueue/dequeue brackets), or have no tracepoint on older
// kernels (sched_entry_tp and sched_exit_tp arrived in 6.16).
var optionalBoundaries = []Kind{
	KindFPULoad, KindFPUSave, KindTLBFlush,
	KindSchedEntry, KindSchedExit,
	KindFairBegin, KindNrRunningInc, KindNrRunningDec,
	KindKVMFPULoad, KindKVMFPUUnload,
}

// ph is a phase from -> to of kind k, in a task's context.
func ph(from, to Kind, k model.PhaseKind, name, what string) edge {
	return edge{from: from, to: to, kind: k, name: name, what: what}
}

// task and idle are events in a task's and in the idle task's context,
// for paths; cycle is a path of them.
func task(ks ...Kind) []node { return nodesIn(CtxTask, ks) }
func idle(ks ...Kind) []node { return nodesIn(CtxIdle, ks) }

func nodesIn(x Context, ks []Kind) []node {
	out := make([]node, len(ks))
	for i, k := range ks {
		out[i] = node{k, x}
	}
	return out
}

func cycle(name string, parts ...[]node) path {
	p := path{name: name}
	for _, n := range parts {
		p.nodes = append(p.nodes, n...)
	}
	return p
}

// The context switch proper, common to every model.
var switchEdges = []edge{
	ph(KindSwitch, KindTLBFlush, model.PhaseSwitchMM, "context switch: switch_mm up to a TLB flush",
		"context_switch: switch_mm_irqs_off loads the next address space, up to flushing the TLB"),
	ph(KindTLBFlush, KindFPUSave, model.PhaseSwitchMM, "context switch: TLB flush, switch_to up to the FPU save",
		"the TLB flush, the rest of switch_mm, switch_to up to saving the outgoing task's FPU registers"),
	ph(KindSwitch, KindFPUSave, model.PhaseSwitchMM, "context switch: mm, up to the FPU save",
		"context_switch: prepare, switch_mm (between threads of one process: nothing to load), switch_to up to saving the outgoing task's FPU registers"),
	ph(KindFPUSave, KindSchedExit, model.PhaseSwitchTo, "context switch: FPU save, stack switch, finish",
		"XSAVE of the outgoing task's FPU state, the register and stack switch, finish_task_switch (runqueue unlock), up to __schedule returning in the next task"),
	ph(KindSwitch, KindSchedExit, model.PhaseSwitch, "context switch (no FPU to save)",
		"context_switch when the outgoing task has no live user FPU state"),
}

// The wakeup of a sleeping task on the waker's CPU, after the syscall that
// wakes it found it.
var wakeEdges = []edge{
	ph(KindWaking, KindFairBegin, model.PhaseWakeup, "wakeup: select CPU, lock runqueue",
		"try_to_wake_up: select_task_rq, the runqueue lock and clock, up to enqueue_task_fair"),
	ph(KindFairBegin, KindNrRunningInc, model.PhaseWakeup, "wakeup: enqueue up the cgroup hierarchy",
		"enqueue_task_fair for a wakee that had been dequeued: enqueue_entity at each cgroup level and the load and share updates up the hierarchy"),
	ph(KindNrRunningInc, KindWakeup, model.PhaseWakeup, "wakeup: psi, preemption check",
		"psi_enqueue (pressure accounting up the cgroup tree), wakeup_preempt (may ask the waker to reschedule), up to sched_wakeup"),
	ph(KindFairBegin, KindWakeup, model.PhaseWakeup, "wakeup: requeue the delayed task, psi, preemption check",
		"the wakee was still queued (EEVDF delayed dequeue): requeue_delayed_entity, psi_enqueue, wakeup_preempt, up to sched_wakeup"),
	ph(KindWaking, KindWakeup, model.PhaseWakeup, "wakeup",
		"try_to_wake_up from sched_waking to sched_wakeup, the fair-class brackets not seen"),
}

// Giving up the CPU: blocking, or being preempted on the way to user space.
func scheduleEdges(exitWaker Kind) []edge {
	return []edge{
		ph(exitWaker, KindSchedEntry, model.PhasePreempt, "exit to user: preempted",
			"the wakeup asked for a reschedule: exit_to_user_mode calls schedule() before returning to user space (the waker is preempted, still runnable)"),
		ph(KindSchedEntry, KindFairBegin, model.PhaseSchedule, "schedule(): lock runqueue, start blocking",
			"__schedule: the runqueue lock and clock, try_to_block_task, up to dequeue_task_fair"),
		ph(KindFairBegin, KindNrRunningDec, model.PhaseSchedule, "block: dequeue up the cgroup hierarchy",
			"dequeue_entities: dequeue_entity at each cgroup level that empties, update_curr and load averages on the way up"),
		ph(KindNrRunningDec, KindSwitch, model.PhaseSchedule, "pick next task",
			"pick_next_task_fair: pick an entity per cgroup level, put_prev_entity/set_next_entity for the levels that change, psi_task_switch; up to sched_switch"),
		ph(KindFairBegin, KindSwitch, model.PhaseSchedule, "block: delayed dequeue, pick next task",
			"dequeue_task_fair keeps the sleeper queued (EEVDF delayed dequeue: set_delayed up the hierarchy), then pick_next_task_fair (pick per cgroup level, put_prev_entity/set_next_entity for the levels that change) and psi_task_switch"),
		ph(KindSchedEntry, KindSwitch, model.PhaseSchedule, "schedule(): pick next (the preempted task stays queued)",
			"__schedule without blocking: the runqueue lock and clock, pick_next_task_fair (put_prev_entity/set_next_entity per cgroup level that changes), psi_task_switch"),
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

func join[T any](parts ...[]T) []T {
	var out []T
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// label is a phase's name and what the kernel does in it.
type label struct{ name, what string }

// pingPong is a same-CPU ping-pong whose waker enters wakeEnter (a pipe
// write, a futex wake) and whose sleeper waits in sleepEnter (a pipe read,
// a futex wait): its own syscalls' phases, then the wakeup, the scheduler
// and the switch every such hop shares.
type pingPong struct {
	name                                   string
	wakeEnter, wakeExit                    Kind
	sleepEnter, sleepExit                  Kind
	wakeCall, sleepCall                    string
	sleepReturns, wakeWork, wakeReturns    label
	wakeNobody, sleepGoes, sleepFound      label
	loopToWake, loopToSleep, resumeToSleep string
}

func (pp pingPong) model() phaseModel {
	we, wx, se, sx := pp.wakeEnter, pp.wakeExit, pp.sleepEnter, pp.sleepExit
	of := func(from, to Kind, k model.PhaseKind, l label) edge { return ph(from, to, k, l.name, l.what) }
	return phaseModel{
		name:     pp.name,
		wake:     we,
		sleep:    sx,
		optional: optionalBoundaries,
		edges: join(
			[]edge{
				of(KindSchedExit, sx, model.PhaseSyscall, pp.sleepReturns),
				ph(sx, KindFPULoad, model.PhaseFPURestore, "exit to user: FPU restore",
					"exit_to_user_mode after the sys_exit tracepoint: restore the FPU registers of the task switched in (XRSTOR)"),
				ph(KindFPULoad, we, model.PhaseUser, "user space, "+pp.wakeCall+" entry", pp.loopToWake),
				ph(sx, we, model.PhaseUser, "user space, "+pp.wakeCall+" entry (FPU already loaded)",
					"exit to user space, the loop, "+pp.wakeCall+"'s kernel entry up to sys_enter"),
				of(we, KindWaking, model.PhaseSyscall, pp.wakeWork),
			},
			wakeEdges,
			[]edge{
				of(KindWakeup, wx, model.PhaseSyscall, pp.wakeReturns),
				of(we, wx, model.PhaseSyscall, pp.wakeNobody),
				ph(wx, se, model.PhaseUser, "user space, "+pp.sleepCall+" entry", pp.loopToSleep),
				of(se, KindSchedEntry, model.PhaseSyscall, pp.sleepGoes),
				of(se, sx, model.PhaseSyscall, pp.sleepFound),
			},
			scheduleEdges(wx),
			switchEdges,
			[]edge{
				ph(KindSchedExit, KindFPULoad, model.PhaseFPURestore, "the preempted task resumes: exit to user, FPU restore",
					"back in exit_to_user_mode after its preemption: restore its FPU registers"),
				ph(KindFPULoad, se, model.PhaseUser, "user space, "+pp.sleepCall+" entry (after a preemption)", pp.resumeToSleep),
			},
		),
		paths: []path{
			cycle("a hop that blocks, every boundary seen",
				task(KindSchedExit, sx, KindFPULoad, we, KindWaking, KindFairBegin, KindNrRunningInc, KindWakeup, wx, se,
					KindSchedEntry, KindFairBegin, KindNrRunningDec, KindSwitch, KindTLBFlush, KindFPUSave, KindSchedExit)),
			cycle("a wakeup that preempts the waker, then the hop back to it",
				task(KindSchedExit, KindFPULoad, se, sx, KindFPULoad, we, KindWaking, KindFairBegin, KindWakeup, wx,
					KindSchedEntry, KindSwitch, KindFPUSave, KindSchedExit, sx, we, wx, se,
					KindSchedEntry, KindFairBegin, KindSwitch, KindSchedExit)),
			cycle("the fair-class brackets not seen",
				task(KindSchedExit, sx, we, KindWaking, KindWakeup, wx, se, KindSchedEntry, KindFairBegin, KindNrRunningDec,
					KindSwitch, KindFPUSave, KindSchedExit)),
		},
		gaps: schedGaps,
	}
}

var pipePingPong = pingPong{
	name:      "pipe hop, same CPU",
	wakeEnter: KindEnterWrite, wakeExit: KindExitWrite, sleepEnter: KindEnterRead, sleepExit: KindExitRead,
	wakeCall: "write()", sleepCall: "read()",
	sleepReturns:  label{"read() returns", "the woken reader finishes pipe_read: off the wait queue, copy the token out, unlock; up to sys_exit"},
	wakeWork:      label{"write(): copy into the pipe", "pipe_write: lock the pipe, copy the token into the buffer, up to try_to_wake_up of the waiting reader"},
	wakeReturns:   label{"write() returns", "rest of try_to_wake_up (runqueue unlock), pipe unlock, up to sys_exit"},
	wakeNobody:    label{"write(): no reader asleep", "pipe_write when the reader is runnable (it was preempted before its read): copy, no wakeup"},
	sleepGoes:     label{"read(): pipe empty, go to sleep", "pipe_read: lock, no data, prepare_to_wait on the pipe, up to schedule()"},
	sleepFound:    label{"read(): data already there", "pipe_read finds the token (the reader had been preempted before reading): no sleep"},
	loopToWake:    "back to user space, the loop, and write()'s kernel entry up to sys_enter (entry code, PTI CR3 switches and mitigations have no tracepoint)",
	loopToSleep:   "exit to user space, the loop, read()'s kernel entry up to sys_enter",
	resumeToSleep: "back to user space, the loop, read()'s kernel entry up to sys_enter",
}

var pipeModel = pipePingPong.model()

var futexPingPong = pingPong{
	name:      "futex hop, same CPU",
	wakeEnter: KindEnterFutexWake, wakeExit: KindExitFutexWake, sleepEnter: KindEnterFutexWait, sleepExit: KindExitFutexWait,
	wakeCall: "futex wake", sleepCall: "futex wait",
	sleepReturns:  label{"futex wait returns", "the woken waiter leaves futex_wait (off the hash bucket queue); up to sys_exit"},
	wakeWork:      label{"futex wake: find the waiter", "futex_wake: hash the address, lock the bucket, find the waiter, up to try_to_wake_up"},
	wakeReturns:   label{"futex wake returns", "rest of try_to_wake_up (runqueue unlock), bucket unlock, up to sys_exit"},
	wakeNobody:    label{"futex wake: nobody waiting", "futex_wake finds no waiter (the partner was preempted before waiting)"},
	sleepGoes:     label{"futex wait: queue and sleep", "futex_wait: read the word, queue on the hash bucket, up to schedule()"},
	sleepFound:    label{"futex wait: word already changed", "futex_wait returns at once (EAGAIN): the partner passed the turn before this task slept"},
	loopToWake:    "back to user space: check the turn, store the flag, futex(WAKE)'s kernel entry up to sys_enter",
	loopToSleep:   "exit to user space, check the flag, futex(WAIT)'s kernel entry",
	resumeToSleep: "back to user space, check the flag, futex(WAIT)'s kernel entry",
}

var futexModel = futexPingPong.model()

var yieldModel = phaseModel{
	name:     "sched_yield hop, same CPU",
	optional: optionalBoundaries,
	edges: join(
		[]edge{
			ph(KindSchedExit, KindExitYield, model.PhaseSyscall, "sched_yield returns",
				"back from schedule() in do_sched_yield; up to sys_exit"),
			ph(KindExitYield, KindFPULoad, model.PhaseFPURestore, "exit to user: FPU restore",
				"exit_to_user_mode after the sys_exit tracepoint: restore the FPU registers of the task switched in"),
			ph(KindFPULoad, KindEnterYield, model.PhaseUser, "user space, sched_yield entry",
				"back to user space, the loop, sched_yield's kernel entry up to sys_enter"),
			ph(KindExitYield, KindEnterYield, model.PhaseUser, "user space, sched_yield entry (FPU already loaded)",
				"exit to user space, the loop, sched_yield's kernel entry"),
			ph(KindEnterYield, KindSchedEntry, model.PhaseSyscall, "sched_yield: yield_task",
				"do_sched_yield: runqueue lock, yield_task_fair (the task gives up the rest of its slice), unlock, up to schedule()"),
			ph(KindSchedEntry, KindSwitch, model.PhaseSchedule, "schedule(): pick next",
				"__schedule: the runqueue lock and clock, pick_next_task_fair (put_prev_entity/set_next_entity per cgroup level that changes), psi_task_switch; the yielder stays queued"),
			ph(KindSchedEntry, KindSchedExit, model.PhaseSchedule, "schedule(): picked the yielder again",
				"__schedule found nothing better to run: no switch"),
			ph(KindEnterYield, KindExitYield, model.PhaseSyscall, "sched_yield: no switch",
				"sched_yield returned without switching (sched_entry_tp not seen)"),
		},
		switchEdges,
	),
	paths: []path{
		cycle("a yield that switches, every boundary seen",
			task(KindSchedExit, KindExitYield, KindFPULoad, KindEnterYield, KindSchedEntry, KindSwitch, KindTLBFlush, KindFPUSave, KindSchedExit)),
		cycle("a yield back to itself", task(KindSchedExit, KindExitYield, KindEnterYield, KindSchedEntry, KindSchedExit)),
		cycle("a yield without sched_entry_tp", task(KindExitYield, KindEnterYield, KindExitYield)),
		cycle("no address-space switch", task(KindSchedExit, KindExitYield, KindEnterYield, KindSchedEntry, KindSwitch, KindFPUSave, KindSchedExit)),
		cycle("no FPU to save", task(KindSchedExit, KindExitYield, KindEnterYield, KindSchedEntry, KindSwitch, KindSchedExit)),
	},
	gaps: schedGaps[:2],
}

// kvmRunEdges are one KVM_RUN: into the guest, the exit, back to the VMM.
// On VMX/SVM kvm_entry and kvm_exit split guest time from exit handling;
// the PVM backend of the reference machine emits neither, so there the
// guest and the handling of its exit are one phase, bounded by the guest
// FPU swap in and out (x86_fpu_regs_activated next to kvm_fpu).
var kvmRunEdges = []edge{
	ph(KindEnterKVMRun, KindFPULoad, model.PhaseKVMEnter, "KVM_RUN: vcpu_load, guest FPU in",
		"kvm_vcpu_ioctl: the vCPU mutex, vcpu_load (the backend's host state for this CPU), swapping the guest FPU state into the registers"),
	ph(KindFPULoad, KindKVMFPULoad, model.PhaseKVMEnter, "KVM_RUN: guest FPU loaded",
		"from the FPU swap to the kvm_fpu tracepoint right after it"),
	ph(KindKVMFPULoad, KindKVMEntry, model.PhaseKVMEnter, "KVM_RUN: requests, guest entry",
		"process pending requests and events, up to the kvm_entry tracepoint"),
	ph(KindKVMEntry, KindKVMExit, model.PhaseGuest, "guest",
		"from kvm_entry to kvm_exit: the world switch into the guest, the guest, the switch back"),
	ph(KindKVMExit, KindKVMEntry, model.PhaseGuest, "exit handled in the kernel, re-entry",
		"an exit KVM completes itself (interrupt, fault, emulation) and re-enters the guest without going to the VMM"),
	ph(KindKVMExit, KindFPULoad, model.PhaseGuest, "exit handling in the kernel, host FPU back",
		"the backend's exit handler decodes the exit (an `out` no in-kernel device claims: kvm_run filled for user space), then the host FPU state swapped back"),
	ph(KindKVMFPULoad, KindFPULoad, model.PhaseGuest, "guest entry, guest, exit and its handling",
		"vcpu_run without kvm_entry/kvm_exit (the PVM backend emits neither): the switcher into the guest, the guest up to its trap, the exit's handling (for `out`: one emulated instruction), the host FPU state swapped back"),
	ph(KindFPULoad, KindKVMFPUUnload, model.PhaseKVMLeave, "KVM_RUN: host FPU loaded",
		"from the FPU swap to the kvm_fpu tracepoint right after it"),
	ph(KindKVMFPUUnload, KindKVMUserspaceExit, model.PhaseKVMLeave, "KVM_RUN: vcpu_put",
		"post_kvm_run_save, vcpu_put (on PVM the host context is restored here), up to kvm_userspace_exit"),
	ph(KindKVMUserspaceExit, KindExitKVMRun, model.PhaseKVMLeave, "return to the VMM",
		"kvm_vcpu_ioctl returns; up to the ioctl's sys_exit"),
}

// kvmModel: one op is one KVM_RUN that ends in an exit to the VMM, which
// runs KVM_RUN again at once.
var kvmModel = phaseModel{
	name:     "KVM exit to user space",
	optional: optionalBoundaries,
	edges: join(kvmRunEdges, []edge{
		ph(KindExitKVMRun, KindEnterKVMRun, model.PhaseVMM, "VMM: return to user, handle the exit, KVM_RUN again",
			"exit_to_user_mode (with KVM's user-return notifiers: host MSRs and, on PVM, more host state restored), the VMM reading kvm_run, and the next KVM_RUN's kernel entry up to sys_enter"),
		ph(KindExitKVMRun, KindFPULoad, model.PhaseFPURestore, "exit to user: FPU restore",
			"exit_to_user_mode after the sys_exit tracepoint: restore the VMM's FPU registers"),
		ph(KindFPULoad, KindEnterKVMRun, model.PhaseVMM, "VMM: handle the exit, KVM_RUN again",
			"back to the VMM: read kvm_run, and the next KVM_RUN's kernel entry up to sys_enter"),
	}),
	paths: []path{
		cycle("an exit on VMX/SVM (kvm_entry and kvm_exit seen)",
			task(KindEnterKVMRun, KindFPULoad, KindKVMFPULoad, KindKVMEntry, KindKVMExit, KindFPULoad, KindKVMFPUUnload,
				KindKVMUserspaceExit, KindExitKVMRun, KindEnterKVMRun)),
		cycle("an exit on PVM (no kvm_entry or kvm_exit)",
			task(KindEnterKVMRun, KindFPULoad, KindKVMFPULoad, KindFPULoad, KindKVMFPUUnload, KindKVMUserspaceExit,
				KindExitKVMRun, KindFPULoad, KindEnterKVMRun)),
		cycle("exits KVM handles itself", task(KindKVMEntry, KindKVMExit, KindKVMEntry)),
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
// one CPU (vm/switch-user). A's guest exits to its VMM (KVM_RUN's phases),
// the VMM writes a token down a pipe and blocks reading the answer (the
// pipe's, the wakeup's, the scheduler's and the switch's phases), B's VMM
// returns from its read and enters its guest again. The VMM's user space
// joins them: after KVM_RUN it writes, after its read it runs KVM_RUN, so
// the pipe model's user-space phases (read returns, then write) are not
// here.
var vmSwitchUserModel = phaseModel{
	name:     "VM-to-VM hop through the VMMs, same CPU",
	wake:     KindEnterWrite,
	sleep:    KindExitRead,
	optional: optionalBoundaries,
	edges: join(
		kvmRunEdges,
		[]edge{
			ph(KindExitKVMRun, KindEnterWrite, model.PhaseVMM, "VMM: read the exit, write the token",
				"KVM_RUN returned: exit to user space, the VMM reads kvm_run and writes the token to the other VMM, up to sys_enter"),
			ph(KindExitKVMRun, KindFPULoad, model.PhaseFPURestore, "exit to user: FPU restore",
				"exit_to_user_mode after the sys_exit tracepoint: restore the VMM's FPU registers"),
			ph(KindFPULoad, KindEnterWrite, model.PhaseVMM, "VMM: read the exit, write the token (after the FPU restore)",
				"back in the VMM after KVM_RUN: it reads kvm_run and writes the token, up to sys_enter"),
			ph(KindEnterWrite, KindWaking, model.PhaseSyscall, "write(): copy into the pipe",
				"pipe_write: lock the pipe, copy the token into the buffer, up to try_to_wake_up of the other VMM's read"),
			ph(KindWakeup, KindExitWrite, model.PhaseSyscall, "write() returns",
				"rest of try_to_wake_up (runqueue unlock), pipe unlock, up to sys_exit"),
			ph(KindEnterWrite, KindExitWrite, model.PhaseSyscall, "write(): nobody asleep",
				"pipe_write when the other VMM is runnable (it was preempted before its read): copy, no wakeup"),
			ph(KindExitWrite, KindEnterRead, model.PhaseUser, "user space, read() entry",
				"exit to user space, the VMM's loop, read()'s kernel entry up to sys_enter"),
			ph(KindEnterRead, KindSchedEntry, model.PhaseSyscall, "read(): pipe empty, go to sleep",
				"pipe_read: lock, no data, prepare_to_wait on the pipe, up to schedule()"),
			ph(KindEnterRead, KindExitRead, model.PhaseSyscall, "read(): data already there",
				"pipe_read finds the token (the VMM had been preempted before reading): no sleep"),
			ph(KindSchedExit, KindExitRead, model.PhaseSyscall, "read() returns",
				"the woken VMM finishes pipe_read: off the wait queue, copy the token out, unlock; up to sys_exit"),
			ph(KindSchedExit, KindFPULoad, model.PhaseFPURestore, "the preempted VMM resumes: exit to user, FPU restore",
				"back in exit_to_user_mode after its preemption: restore its FPU registers"),
			ph(KindFPULoad, KindEnterRead, model.PhaseUser, "user space, read() entry (after a preemption)",
				"back to the VMM's loop, read()'s kernel entry up to sys_enter"),
			ph(KindExitRead, KindEnterKVMRun, model.PhaseVMM, "VMM: token read, KVM_RUN again",
				"exit to user space after the read, and KVM_RUN's kernel entry"),
			ph(KindExitRead, KindFPULoad, model.PhaseFPURestore, "exit to user after the read: FPU restore",
				"exit_to_user_mode after the read's sys_exit: restore the VMM's FPU registers"),
			ph(KindFPULoad, KindEnterKVMRun, model.PhaseVMM, "VMM: token read, KVM_RUN again (after the FPU restore)",
				"back in the VMM after its read, and KVM_RUN's kernel entry"),
		},
		wakeEdges,
		scheduleEdges(KindExitWrite),
		switchEdges,
	),
	paths: []path{
		cycle("a hop that blocks, on PVM, no FPU restore around the VMM",
			task(KindKVMUserspaceExit, KindExitKVMRun, KindEnterWrite, KindWaking, KindFairBegin, KindNrRunningInc, KindWakeup,
				KindExitWrite, KindEnterRead, KindSchedEntry, KindFairBegin, KindNrRunningDec, KindSwitch, KindTLBFlush, KindFPUSave,
				KindSchedExit, KindExitRead, KindEnterKVMRun, KindFPULoad, KindKVMFPULoad, KindFPULoad, KindKVMFPUUnload,
				KindKVMUserspaceExit)),
		cycle("a hop that blocks, on VMX, FPU restores, delayed requeue and dequeue",
			task(KindKVMUserspaceExit, KindExitKVMRun, KindFPULoad, KindEnterWrite, KindWaking, KindFairBegin, KindWakeup,
				KindExitWrite, KindEnterRead, KindSchedEntry, KindFairBegin, KindSwitch, KindFPUSave, KindSchedExit, KindExitRead,
				KindFPULoad, KindEnterKVMRun, KindFPULoad, KindKVMFPULoad, KindKVMEntry, KindKVMExit, KindKVMEntry, KindKVMExit,
				KindFPULoad, KindKVMFPUUnload, KindKVMUserspaceExit)),
		cycle("a wakeup that preempts the waking VMM",
			task(KindKVMUserspaceExit, KindExitKVMRun, KindEnterWrite, KindWaking, KindWakeup, KindExitWrite, KindSchedEntry,
				KindSwitch, KindSchedExit, KindFPULoad, KindEnterRead, KindExitRead, KindEnterKVMRun, KindFPULoad, KindKVMFPULoad,
				KindFPULoad, KindKVMFPUUnload, KindKVMUserspaceExit)),
		cycle("a write with nobody asleep",
			task(KindKVMUserspaceExit, KindExitKVMRun, KindEnterWrite, KindExitWrite, KindEnterRead, KindSchedEntry, KindFairBegin,
				KindNrRunningDec, KindSwitch, KindSchedExit, KindExitRead, KindEnterKVMRun, KindFPULoad, KindKVMFPULoad, KindFPULoad,
				KindKVMFPUUnload, KindKVMUserspaceExit)),
	},
	gaps:  join(kvmModel.gaps, schedGaps),
	notes: kvmModel.notes,
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
