package bpf

// crosscpu.go: the phase model of a hop across two CPUs. On one CPU a hop
// is one timeline; across two it is a path through both: the waker's
// syscall up to its wakeup call on one CPU, the time until the other CPU
// reacts (the IPI's flight, and the idle CPU's wake-up), and the wakee's
// way out of idle and back to user space on the other. The rest of the
// waker's CPU's time (finishing its syscall, going to sleep, idling) runs
// in parallel with the hop and is shown apart, never added to it.
//
// The two CPUs' matrices are added up (Snapshot.Pair): in a ping-pong each
// CPU is the waker of every other hop and the wakee of the rest, so the sum
// holds each phase once per hop. The one figure no single CPU holds — from
// sched_waking on one CPU to the IPI's arrival (or the wakeup's completion)
// on the other — comes from Matrix.Cross, which the programs fill from a
// table of pending wakeups shared by all CPUs.

import (
	"slices"
)

// The sides of a hop across CPUs (Phase.CPU).
const (
	SideWaker   = "waker"
	SideBetween = "between"
	SideWakee   = "wakee"
)

// sidedEdge is a phase of the cross-CPU model with the CPU it runs on, and
// whether it is on the hop's path (offPath: in parallel with it).
type sidedEdge struct {
	edge
	side    string
	offPath bool
}

// crossModel is a hop across CPUs: the waker's and the wakee's syscalls
// (pipe write/read, futex wake/wait) and the transitions of both CPUs.
type crossModel struct {
	name  string
	edges []sidedEdge
	gaps  []Gap
	notes []string
}

// crossOptional are the boundaries a cross-CPU hop may skip: those of the
// one-CPU models, and the idle task's events (a kernel without cpu_idle,
// a probe set without the interrupts).
var crossOptional = append(slices.Clip(optionalBoundaries), KindIdleEnter, KindIdleExit, KindIPIIn, KindIPIOut, KindIPISend)

func on(side string, es ...edge) []sidedEdge {
	out := make([]sidedEdge, len(es))
	for i, e := range es {
		out[i] = sidedEdge{edge: e, side: side}
	}
	return out
}

func off(es ...edge) []sidedEdge {
	out := on(SideWaker, es...)
	for i := range out {
		out[i].offPath = true
	}
	return out
}

// crossEdges builds the model of a ping-pong whose waker enters wakeEnter
// (write, futex wake) and whose sleeper waits in sleepEnter (read, futex
// wait); copy names what the waker's syscall does before the wakeup.
func crossEdges(wakeEnter, wakeExit, sleepEnter, sleepExit Kind, wakeCall, sleepCall, copyWhat string) []sidedEdge {
	var es []sidedEdge
	es = append(es, on(SideWaker,
		edge{wakeEnter, KindWaking, wakeCall + ": up to the wakeup", copyWhat},
		edge{KindWaking, KindIPISend, "wakeup: select CPU, queue, send the IPI",
			"try_to_wake_up on the waker's CPU: select_task_rq, queue the wakee on the idle CPU's wake list, up to sending the IPI"},
	)...)
	es = append(es, on(SideWakee,
		edge{KindIPIIn, KindFairBegin, "IPI: wake list, runqueue lock",
			"the IPI handler runs the wake list (sched_ttwu_pending): the wakee's runqueue lock and clock, up to enqueue_task_fair"},
		edge{KindFairBegin, KindNrRunningInc, "IPI: enqueue up the cgroup hierarchy",
			"enqueue_task_fair on the idle CPU: enqueue_entity at each cgroup level"},
		edge{KindNrRunningInc, KindWakeup, "IPI: psi, preemption check",
			"psi_enqueue, wakeup_preempt against the idle task, up to sched_wakeup"},
		edge{KindFairBegin, KindWakeup, "IPI: requeue the delayed task, psi, preemption check",
			"the wakee was still queued (EEVDF delayed dequeue): requeue, psi_enqueue, wakeup_preempt"},
		edge{KindWakeup, KindIPIOut, "IPI: handler returns",
			"the rest of the wake list, the IPI's return"},
		edge{KindIPIOut, KindIdleExit, "idle-state exit",
			"from the IPI's return to the idle loop leaving the idle state (after HLT or MWAIT returns, or polling stops)"},
		edge{KindIdleExit, KindSchedEntry, "idle loop: leave, schedule_idle",
			"do_idle sees need_resched, leaves the loop (tick restart, RCU), and calls schedule_idle"},
		edge{KindSchedEntry, KindSwitchFromIdle, "schedule(): pick the woken task",
			"__schedule from idle: runqueue lock, put_prev_task_idle, pick_next_task_fair (set_next_entity per cgroup level), psi_task_switch"},
		edge{KindSwitchFromIdle, KindSchedExit, "context switch from idle",
			"context_switch from the idle task: switch_mm (the idle task borrows the previous mm: loading the wakee's may flush), switch_to, finish_task_switch"},
		edge{KindSchedExit, sleepExit, sleepCall + " returns",
			"the woken task leaves its wait in " + sleepCall + ", up to sys_exit"},
		edge{sleepExit, KindFPULoad, "exit to user: FPU restore",
			"exit_to_user_mode: restore the woken task's FPU registers"},
		edge{KindFPULoad, wakeEnter, "user space, " + wakeCall + " entry",
			"back to user space, the loop, the next " + wakeCall + "'s kernel entry: the woken task is the next hop's waker"},
		edge{sleepExit, wakeEnter, "user space, " + wakeCall + " entry (FPU already loaded)",
			"exit to user space, the loop, the next " + wakeCall + "'s kernel entry"},
	)...)
	es = append(es, off(
		edge{KindIPISend, wakeExit, wakeCall + ": IPI sent, returns",
			"the IPI's send (in a guest without IPI virtualization, the write to the APIC exits to the host), the rest of try_to_wake_up, unlock, up to sys_exit"},
		edge{KindWaking, wakeExit, wakeCall + ": wakeup sent, returns",
			"try_to_wake_up on the waker's CPU when no IPI send was seen: select_task_rq, queue the wakee, unlock, up to sys_exit"},
		edge{KindWaking, KindFairBegin, "wakeup: select CPU, lock the other runqueue",
			"the other CPU was busy: try_to_wake_up enqueues the wakee there from here (remote runqueue lock)"},
		edge{KindFairBegin, KindNrRunningInc, "wakeup: remote enqueue",
			"enqueue_task_fair on the other CPU's runqueue, from the waker's CPU"},
		edge{KindNrRunningInc, KindWakeup, "wakeup: psi, preemption check (remote)",
			"psi_enqueue, wakeup_preempt: a reschedule IPI to the other CPU if its task must yield"},
		edge{KindNrRunningInc, KindIPISend, "wakeup: remote enqueue, reschedule IPI sent",
			"the other CPU was busy: after the remote enqueue, wakeup_preempt asks its task to yield by a reschedule IPI"},
		edge{KindIPISend, KindWakeup, "wakeup: completes (remote)",
			"the rest of the remote wakeup, up to sched_wakeup"},
		edge{KindWakeup, wakeExit, wakeCall + " returns",
			"rest of try_to_wake_up, up to sys_exit"},
		edge{wakeExit, sleepEnter, "user space, " + sleepCall + " entry",
			"exit to user space, the loop, " + sleepCall + "'s kernel entry"},
		edge{sleepEnter, KindSchedEntry, sleepCall + ": go to sleep",
			sleepCall + " finds nothing yet and prepares to wait, up to schedule()"},
		edge{KindSchedEntry, KindFairBegin, "schedule(): lock runqueue, start blocking",
			"__schedule: runqueue lock and clock, try_to_block_task, up to dequeue_task_fair"},
		edge{KindFairBegin, KindNrRunningDec, "block: dequeue up the cgroup hierarchy",
			"dequeue_entities at each cgroup level that empties"},
		edge{KindNrRunningDec, KindSwitchToIdle, "pick next: idle",
			"pick_next_task finds nothing to run: the idle task"},
		edge{KindFairBegin, KindSwitchToIdle, "block: delayed dequeue, pick idle",
			"dequeue_task_fair keeps the sleeper queued (delayed dequeue), and the pick finds only idle"},
		edge{KindSwitchToIdle, KindSchedExit, "context switch to idle",
			"context_switch to the idle task (it keeps the previous mm: nothing to load), switch_to, finish_task_switch"},
		edge{KindSchedExit, KindIdleEnter, "idle loop entry",
			"do_idle up to entering an idle state (tick stop, the governor's choice)"},
		edge{KindIdleEnter, KindIPIIn, "idle: waiting for the partner",
			"the CPU idles (in a guest, HLT exits to the host and the vCPU sleeps there) until the partner's IPI"},
		edge{KindIdleEnter, KindIdleExit, "idle: woken by something else",
			"the idle state ended without the partner's IPI (a timer, another interrupt)"},
		edge{KindIdleExit, KindIdleEnter, "idle loop again",
			"woken with nothing to run (a timer): back into the idle state"},
	)...)
	return es
}

var crossPipeModel = crossModel{
	name: "pipe hop, across CPUs",
	edges: crossEdges(KindEnterWrite, KindExitWrite, KindEnterRead, KindExitRead, "write()", "read()",
		"pipe_write: lock the pipe, copy the token into the buffer, up to try_to_wake_up of the reader asleep on the other CPU"),
	gaps:  crossGaps,
	notes: crossNotes,
}

var crossFutexModel = crossModel{
	name: "futex hop, across CPUs",
	edges: crossEdges(KindEnterFutexWake, KindExitFutexWake, KindEnterFutexWait, KindExitFutexWait, "futex wake", "futex wait",
		"futex_wake: hash the address, lock the bucket, find the waiter asleep on the other CPU, up to try_to_wake_up"),
	gaps:  crossGaps,
	notes: crossNotes,
}

var crossGaps = []Gap{
	{
		Work:   "the IPI's delivery and the idle CPU's wake-up: on bare metal the interrupt's flight and the idle state's exit latency; in a guest, the host's share (the APIC write's exit, waking the halted vCPU's thread, scheduling it, entering the guest)",
		Inside: "IPI: flight and the idle CPU's wake-up (or, without ipi_send_cpu, IPI: from the wakeup call to its arrival)",
		Needs:  "tracing on the host (kvm:kvm_apic_ipi, kvm_vcpu_wakeup, sched_switch of the vCPU thread) — a guest cannot see it",
	},
}

var crossNotes = []string{
	"a hop across CPUs is a path through both: the waker's CPU up to its wakeup call, the IPI to the other CPU, the wakee's CPU from the IPI to the woken task's next syscall; what the waker's CPU does meanwhile (finishing its syscall, going to sleep, idling) is shown apart as parallel, not added to the hop",
}

// PipeHopCross reads m (both CPUs' matrices added up, Snapshot.Pair) as
// hops of a pipe ping-pong across two CPUs.
func PipeHopCross(m *Matrix, hops uint64) Breakdown { return crossPipeModel.breakdown(m, hops) }

// FutexHopCross reads m as hops of a futex ping-pong across two CPUs.
func FutexHopCross(m *Matrix, hops uint64) Breakdown { return crossFutexModel.breakdown(m, hops) }

// plain is the model of the edges alone, for attribute's merging of
// skipped optional boundaries.
func (cm *crossModel) plain() *model {
	md := &model{name: cm.name, optional: crossOptional}
	for _, e := range cm.edges {
		md.edges = append(md.edges, e.edge)
	}
	return md
}

// between are the phases across the two CPUs, from Matrix.Cross, by the
// kind that began them; each hop adds to one of them.
var between = []struct {
	from       Kind
	name, what string
	probes     string
	order      float64 // after the waker's last phase on the path
}{
	{KindIPISend, "IPI: flight and the idle CPU's wake-up",
		"from the IPI's send on the waker's CPU to its entry on the idle wakee's CPU: the interrupt's delivery and the idle state's wake-up (in a guest: the host takes the APIC write, wakes the halted vCPU's thread, schedules it and enters the guest)",
		"ipi_send_cpu -> call_function(_single)_entry or reschedule_entry (on the other CPU)", 1.75},
	{KindIPIIn, "IPI: from the wakeup call to its arrival",
		"from sched_waking on the waker's CPU to the IPI's entry on the idle wakee's CPU (the send not seen): select_task_rq, the wake-list queueing, the IPI's send and flight, the idle CPU's wake-up",
		"sched_waking -> call_function(_single)_entry or reschedule_entry (on the other CPU)", 0.75},
	{KindWakeup, "wakeup completed on the other CPU without an IPI seen",
		"from sched_waking on the waker's CPU to sched_wakeup on the wakee's, with no IPI boundary between (the CPU was polling, or the interrupt probes are not attached)",
		"sched_waking -> sched_wakeup (on the other CPU)", 0.75},
}

// breakdown reads m through the cross-CPU model.
func (cm *crossModel) breakdown(m *Matrix, hops uint64) Breakdown {
	md := cm.plain()
	b, h := newBreakdown(cm.name, cm.gaps, cm.notes, m, hops)
	if h == 0 {
		return b
	}
	var phases []placed
	onFrom := map[Kind]bool{}
	for _, e := range cm.edges {
		if !e.offPath {
			onFrom[e.from] = true
		}
	}
	irq := Phase{Name: "interrupts", CPU: SideWakee, What: "interrupts that landed inside the hop's phases on either CPU (their time is not in the phases)", Probes: "irq/softirq/local_timer/reschedule/call_function/irq_work entry -> exit"}
	var onPath, other uint64
	for _, t := range m.Transitions() {
		if isOtherTask(t.From) || isOtherTask(t.To) {
			b.Other = append(b.Other, t)
			other += t.Ns
			continue
		}
		if t.To.IsInterrupt() {
			if onFrom[t.From] {
				irq.Cell.add(&t.Cell)
				onPath += t.Ns
			} else {
				b.Parallel = append(b.Parallel, Phase{Name: "interrupts (parallel)", CPU: SideWaker, From: t.From, To: t.To,
					Probes: probes(t.From, t.To), NsPerHop: float64(t.Ns) / h, PerHop: float64(t.Count) / h, MeanNs: t.Mean(), Firings: 2 * float64(t.Count) / h})
			}
			continue
		}
		a, ok := md.attribute(t.From, t.To)
		if !ok {
			b.Unattributed = append(b.Unattributed, t)
			continue
		}
		e := cm.edges[int(a.order)]
		p := phaseOf(a, t, h)
		p.CPU = e.side
		if e.offPath {
			b.Parallel = append(b.Parallel, p)
			continue
		}
		onPath += t.Ns
		phases = append(phases, placed{a.order, p})
	}
	for _, x := range between {
		c := m.Cross[x.from]
		if c.Count == 0 {
			continue
		}
		phases = append(phases, placed{x.order, Phase{Name: x.name, What: x.what, CPU: SideBetween,
			Probes: x.probes, NsPerHop: float64(c.Ns) / h, PerHop: float64(c.Count) / h, MeanNs: c.Mean(), Cell: c}})
		onPath += c.Ns
	}
	b.Phases = inOrder(phases, irq, h)
	b.OtherNsPerHop = float64(other) / h
	// Only the firings on the hop's path slow it: those on the waker's CPU
	// meanwhile run in parallel. The untraced scale divides the probes'
	// cost by these.
	for _, p := range b.Phases {
		b.FiringsPerHop += p.Firings
	}
	// Each CPU's timeline spans every hop: per hop and CPU, the time that
	// was not another task's is the hop on the kernel's clock.
	b.HopNsPerHop = float64(b.TracedNs-other) / (2 * h)
	if b.HopNsPerHop > 0 {
		b.Closure = float64(onPath) / h / b.HopNsPerHop
	}
	b.UnattributedNsPerHop = nsOf(b.Unattributed) / h
	b.PerHop = perHopCounts(m, irq.Cell.Count, h)
	for k, v := range map[string]float64{
		"idle_ipis":     float64(m.Events[KindIPIIn]) / h,
		"idle_enters":   float64(m.Events[KindIdleEnter]) / h,
		"ipis_sent":     float64(m.Events[KindIPISend]) / h,
		"cross_wakeups": float64(m.Cross[KindIPISend].Count+m.Cross[KindIPIIn].Count+m.Cross[KindWakeup].Count) / h,
	} {
		b.PerHop[k] = v
	}
	return b
}
