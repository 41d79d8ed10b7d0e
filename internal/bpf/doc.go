// Package bpf splits context-switch hops into phases on the kernel's clock,
// with BPF programs on raw tracepoints that add up, in the kernel, the time
// between consecutive events on each CPU.
//
// # How
//
// Each CPU keeps its last event (kind, time). The next event on that CPU
// adds (now - last) to the cell [last kind][this kind] of a per-CPU
// transition matrix: sum, count and a log2 histogram. Nothing is streamed
// to user space. Because every segment ends where the next one begins, the
// cells of a CPU tile its timeline from its first recorded event to its
// last: a phase model that names some cells can always say how much of the
// traced time it explains (its closure), and what it left over.
//
// Only tracked processes (TGIDs given to Track) contribute. A switch to or
// from an untracked task or the idle task is an event of its own kind, so
// the time others took inside the window is a visible cell, not a hole.
// Interrupts are nested intervals: their time goes to [segment][interrupt
// kind] and is taken out of the segment they landed in.
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
// hard and soft interrupts, the local timer, and IPIs.
//
// # Use
//
//	t, err := bpf.Open(bpf.Options{})   // *MissingError if the machine cannot trace
//	defer t.Close()                     // detaches everything
//	t.Track(pid)                        // processes whose threads count
//	t.Reset()                           // start a recording window
//	... run the hops, pinned to cpu ...
//	s, err := t.Snapshot()              // end the window and read it
//	b := bpf.PipeHop(s.CPU(cpu), hops)  // phases per hop, closure, gaps
//
// Open checks privileges (root, or CAP_BPF and CAP_PERFMON), the bpf()
// syscall, the kernel's BTF and raw tracepoint support first, and refuses
// with a *MissingError wrapping ErrPrivilege, ErrNoBPF, ErrNoBTF or
// ErrNoRawTracepoint: one line, meant for an exit status of 2. Check runs
// the same checks alone. Nothing is pinned, so the kernel detaches
// everything when the process exits, however it exits.
//
// # Method
//
// Raw tracepoints only (Tracer.Method): they attach by name without
// tracefs, on kernels without fentry or kprobes, such as the reference
// machine's. DetectFeatures says whether a kernel would also allow fentry
// or kprobes; the phase models name, as Gaps, the work they cannot split
// with tracepoints and the boundary that would split it (for the
// per-cgroup-level put_prev_entity/set_next_entity of a pick, fentry on
// those functions). Kinds from KIND_COUNT to NumKinds are reserved for
// such finer boundaries.
//
// # Phase models
//
// PipeHop, FutexHop and YieldHop read a matrix as same-CPU ping-pong hops;
// KVMUserExit as a vCPU's exits to its VMM. A model is the set of
// transitions a hop goes through, in time order, including every path hops
// really take (on one CPU under EEVDF a wakeup often preempts the waker, so
// ping-pong hops alternate between blocking and being preempted; each
// phase's PerHop says how often its path ran). A transition that skips
// optional boundaries (an event that did not fire, or a tracepoint the
// kernel lacks) is reported as the phases it spans, merged.
//
// The C source is c/hop.bpf.c; the generated Go and object files are
// committed (see gen.go), so building needs no clang.
package bpf
