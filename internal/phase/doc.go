// Package phase reads what the kernel phase tracer (internal/bpf) recorded
// as the phases of context-switch hops: the event kinds and the per-CPU
// transition matrices of a snapshot, the phase models that read a matrix as
// hops, and the captured hops of the flight recorder read through the same
// models. It needs no kernel: it imports nothing that loads BPF, builds on
// every platform, and its tests feed it synthetic matrices and hops.
//
// # What a snapshot holds
//
// Each CPU keeps its last event (Kind, time). The next event on that CPU
// adds (now - last) to the cell [last kind][this kind] of a per-CPU
// transition matrix (Matrix): sum, count and a log2 histogram (Cell),
// kept by the Context the segment opened in (a task, or the idle task of a
// CPU a tracked task left idle). Because every segment ends where the next
// one begins, the cells of a CPU tile its timeline from its first recorded
// event to its last: a phase model that names some cells can always say how
// much of the traced time it explains (its closure), and what it left over.
//
// Only tracked processes contribute. A switch to or from an untracked task
// or the idle task is an event of its own kind, so the time others took
// inside the window is a visible cell, not a hole. Interrupts are nested
// intervals: their time goes to [segment][interrupt kind] and is taken out
// of the segment they landed in. Matrix.Cross holds the one figure no
// single CPU does: from a tracked task's wakeup on one CPU to what it
// caused on another.
//
// The events (see Kind): sys_enter/sys_exit by syscall class (read, write,
// futex wait/wake/other, sched_yield, ioctl KVM_RUN/other, other);
// sched_waking, sched_wakeup, sched_switch (tracked to tracked, to or from
// another task, to or from idle); the bare tracepoints sched_entry_tp and
// sched_exit_tp (__schedule's start and its return in the next task),
// sched_util_est_cfs_tp and sched_update_nr_running_tp (the start and end
// of a fair-class enqueue or dequeue, bracketing its walk up the cgroup
// hierarchy), sched_set_need_resched_tp (counted only); tlb_flush,
// x86_fpu_regs_deactivated/activated; kvm_entry, kvm_exit (with the exit
// reason where the backend's BTF has it), kvm_userspace_exit, kvm_fpu; and
// hard and soft interrupts, the local timer, and IPIs. Kinds from
// len(AllKinds()) to NumKinds are reserved for finer boundaries (fentry or
// kprobe programs).
//
// # Phase models
//
// PipeHop, FutexHop and YieldHop read a matrix as same-CPU ping-pong hops;
// KVMUserExit as a vCPU's exits to its VMM; PipeHopCross and FutexHopCross
// as hops across two CPUs (crosscpu.go, from Snapshot.Pair); Split finds a
// model by a benchmark's Phases. A model is the set of transitions a hop
// goes through, in time order, including every path hops really take (on
// one CPU under EEVDF a wakeup often preempts the waker, so ping-pong hops
// alternate between blocking and being preempted; each phase's PerHop says
// how often its path ran). A transition that skips optional boundaries (an
// event that did not fire, or a tracepoint the kernel lacks) is reported as
// the phases it spans, merged. The models name, as Gaps, the work they
// cannot split with raw tracepoints and the boundary that would split it.
// check.go proves every model well formed: no transition twice, no phase
// off every path, every path closed.
//
// # Captured hops
//
// The flight recorder copies out single slow hops (and a sample of all of
// them) with the recent entries of the CPUs they crossed (CapturedHop,
// LogEntry); SplitHop reads one through its model as parts that tile it:
// the model's phases, another task's time (named), interrupts, an idle
// CPU's wait for the IPI, or what the model does not know (HopBreakdown).
// HistQuantile reads the window's hop-length histogram (CaptureStats.Hist).
package phase
