package phase

// crosscpu.go: the phase model of a hop across two CPUs. On one CPU a hop
// is one timeline; across two it is a path through both: the waker's
// syscall up to its wakeup call on one CPU, the time until the other CPU
// reacts (the IPI's flight, and the idle CPU's wake-up or the busy CPU's
// task getting out of the way), and the wakee's way back to user space on
// the other. The rest of the waker's CPU's time (finishing its syscall,
// going to sleep, idling) runs in parallel with the hop and is shown apart,
// never added to it.
//
// The two CPUs' matrices are added up (Snapshot.Pair): in a ping-pong each
// CPU is the waker of every other hop and the wakee of the rest, so the sum
// holds each phase once per hop. Where the same two events are different
// work on the two sides — an enqueue from the waker's syscall onto a busy
// CPU's runqueue, or from the IPI handler on an idle one — the cells'
// context (task or idle task, Context) tells them apart. The one figure no
// single CPU holds — from an event on one CPU to what it caused on the
// other — comes from Matrix.Cross, which the programs fill from tables of
// pending wakeups and IPIs shared by all CPUs.

import (
	"slices"

	"github.com/ctxbench/ctxbench/internal/model"
)

// The sides of a hop across CPUs (Phase.Side).
const (
	SideWaker   = model.SideWaker
	SideBetween = model.SideBetween
	SideWakee   = model.SideWakee
)

// crossOptional are the boundaries a cross-CPU hop may skip: those of the
// one-CPU models, and the idle task's events (a kernel without cpu_idle,
// a probe set without the interrupts).
var crossOptional = append(slices.Clip(optionalBoundaries), KindIdleEnter, KindIdleExit, KindIPIIn, KindIPIOut, KindIPISend)

// on puts phases on a side of the hop's path; inIdle marks them as the
// idle task's; parallel puts them on the waker's CPU beside the hop.
func on(side model.Side, es ...edge) []edge {
	out := slices.Clone(es)
	for i := range out {
		out[i].side = side
	}
	return out
}

func inIdle(es ...edge) []edge {
	out := slices.Clone(es)
	for i := range out {
		out[i].ctx = CtxIdle
	}
	return out
}

func parallel(es ...edge) []edge {
	out := on(SideWaker, es...)
	for i := range out {
		out[i].parallel = true
	}
	return out
}

// crossModel is the model of a ping-pong across two CPUs whose waker
// enters wakeEnter (write, futex wake) and whose sleeper waits in
// sleepEnter (read, futex wait); copyWhat says what the waker's syscall
// does before the wakeup.
func crossModel(name string, wakeEnter, wakeExit, sleepEnter, sleepExit Kind, wakeCall, sleepCall, copyWhat string) phaseModel {
	h := crossHop{we: wakeEnter, wx: wakeExit, se: sleepEnter, sx: sleepExit, wakeCall: wakeCall, sleepCall: sleepCall}
	return phaseModel{
		name:     name,
		cross:    true,
		wake:     h.we,
		sleep:    h.sx,
		optional: crossOptional,
		edges:    join(h.wakerEdges(copyWhat), h.wakeeEdges(), h.parallelEdges()),
		paths:    h.paths(),
		gaps:     crossGaps,
		notes:    crossNotes,
	}
}

// crossHop is what a cross-CPU model is made of: the calls that wake
// (we, wx: their enter and exit boundaries) and sleep (se, sx), and their
// names. Its methods hold the model's parts, one side of the hop each.
type crossHop struct {
	we, wx, se, sx      Kind
	wakeCall, sleepCall string
}

// wakerEdges are the waker's syscall up to its wakeup call, and the
// wakeup from there onto an idle CPU (the IPI) or a busy one (a remote
// enqueue); copyWhat says what the syscall does before the wakeup.
func (h crossHop) wakerEdges(copyWhat string) []edge {
	we, wakeCall := h.we, h.wakeCall
	return on(SideWaker,
		ph(we, KindWaking, model.PhaseSyscall, wakeCall+": up to the wakeup", copyWhat),
		ph(KindWaking, KindIPISend, model.PhaseIPI, "wakeup: select CPU, queue, send the IPI",
			"try_to_wake_up on the waker's CPU: select_task_rq, queue the wakee on the idle CPU's wake list, up to sending the IPI"),
		// The wakee's CPU was busy (another task ran there): the waker
		// enqueues it there itself, and asks that task to yield.
		ph(KindWaking, KindFairBegin, model.PhaseWakeup, "wakeup: select CPU, lock the busy CPU's runqueue",
			"the wakee's CPU runs another task: try_to_wake_up takes that CPU's runqueue lock from here, up to enqueue_task_fair"),
		ph(KindFairBegin, KindNrRunningInc, model.PhaseWakeup, "wakeup: enqueue on the busy CPU",
			"enqueue_task_fair on the other CPU's runqueue, from the waker's CPU: enqueue_entity at each cgroup level"),
		ph(KindNrRunningInc, KindIPISend, model.PhaseIPI, "wakeup: preemption check, reschedule IPI sent",
			"psi_enqueue, wakeup_preempt: the wakee should preempt the task running there, so a reschedule IPI is sent"),
		ph(KindNrRunningInc, KindWakeup, model.PhaseWakeup, "wakeup: preemption check, no IPI",
			"psi_enqueue, wakeup_preempt: no reschedule IPI (the task running there is not preempted now: the wakee waits for that CPU to schedule)"),
	)
}

// wakeeEdges are the other CPU's way from the wakeup to the woken task's
// return to user space: from idle (the IPI, the idle exit) or from the
// task the wakee preempts.
func (h crossHop) wakeeEdges() []edge {
	we, sx, wakeCall, sleepCall := h.we, h.sx, h.wakeCall, h.sleepCall
	return join(
		on(SideWakee, inIdle(
			ph(KindIPIIn, KindFairBegin, model.PhaseIPI, "IPI: wake list, runqueue lock",
				"the IPI handler runs the wake list (sched_ttwu_pending): the wakee's runqueue lock and clock, up to enqueue_task_fair"),
			ph(KindFairBegin, KindNrRunningInc, model.PhaseIPI, "IPI: enqueue up the cgroup hierarchy",
				"enqueue_task_fair on the idle CPU: enqueue_entity at each cgroup level"),
			ph(KindNrRunningInc, KindWakeup, model.PhaseIPI, "IPI: psi, preemption check",
				"psi_enqueue, wakeup_preempt against the idle task, up to sched_wakeup"),
			ph(KindFairBegin, KindWakeup, model.PhaseIPI, "IPI: requeue the delayed task, psi, preemption check",
				"the wakee was still queued (EEVDF delayed dequeue): requeue, psi_enqueue, wakeup_preempt"),
			ph(KindWakeup, KindIPIOut, model.PhaseIPI, "IPI: handler returns",
				"the rest of the wake list, the IPI's return"),
			ph(KindIPIOut, KindIdleExit, model.PhaseIdleExit, "idle-state exit",
				"from the IPI's return to the idle loop leaving the idle state (after HLT or MWAIT returns, or polling stops)"),
			ph(KindIdleExit, KindSchedEntry, model.PhaseIdleExit, "idle loop: leave, schedule_idle",
				"do_idle sees need_resched, leaves the loop (tick restart, RCU), and calls schedule_idle"),
			ph(KindSchedEntry, KindSwitchFromIdle, model.PhaseIdleExit, "schedule(): pick the woken task",
				"__schedule from idle: runqueue lock, put_prev_task_idle, pick_next_task_fair (set_next_entity per cgroup level), psi_task_switch"),
			ph(KindSwitchFromIdle, KindSchedExit, model.PhaseIdleExit, "context switch from idle",
				"context_switch from the idle task: switch_mm (the idle task borrows the previous mm: loading the wakee's may flush), switch_to, finish_task_switch"),
		)...),
		on(SideWakee,
			ph(KindSwitchFromOther, KindSchedExit, model.PhaseSwitch, "context switch from the busy CPU's task",
				"context_switch from the task the wakee preempted (or that gave up the CPU): switch_mm, switch_to, finish_task_switch"),
			ph(KindSchedExit, sx, model.PhaseSyscall, sleepCall+" returns",
				"the woken task leaves its wait in "+sleepCall+", up to sys_exit"),
			ph(sx, KindFPULoad, model.PhaseFPURestore, "exit to user: FPU restore",
				"exit_to_user_mode: restore the woken task's FPU registers"),
			ph(KindFPULoad, we, model.PhaseUser, "user space, "+wakeCall+" entry",
				"back to user space, the loop, the next "+wakeCall+"'s kernel entry: the woken task is the next hop's waker"),
			ph(sx, we, model.PhaseUser, "user space, "+wakeCall+" entry (FPU already loaded)",
				"exit to user space, the loop, the next "+wakeCall+"'s kernel entry"),
		),
	)
}

// parallelEdges are the waker's CPU's time beside the hop: the rest of
// its syscall, going to sleep, and the idle loop.
func (h crossHop) parallelEdges() []edge {
	wx, se, wakeCall, sleepCall := h.wx, h.se, h.wakeCall, h.sleepCall
	return join(
		parallel(
			ph(KindIPISend, wx, model.PhaseSyscall, wakeCall+": IPI sent, returns",
				"the IPI's send (in a guest without IPI virtualization, the write to the APIC exits to the host), the rest of try_to_wake_up, unlock, up to sys_exit"),
			ph(KindWaking, wx, model.PhaseSyscall, wakeCall+": wakeup sent, returns",
				"try_to_wake_up on the waker's CPU when no IPI send was seen: select_task_rq, queue the wakee, unlock, up to sys_exit"),
			ph(KindIPISend, KindWakeup, model.PhaseWakeup, "wakeup: completes after the reschedule IPI",
				"the rest of the wakeup onto the busy CPU, up to sched_wakeup"),
			ph(KindWakeup, wx, model.PhaseSyscall, wakeCall+" returns",
				"rest of try_to_wake_up, up to sys_exit"),
			ph(wx, se, model.PhaseUser, "user space, "+sleepCall+" entry",
				"exit to user space, the loop, "+sleepCall+"'s kernel entry"),
			ph(se, KindSchedEntry, model.PhaseSyscall, sleepCall+": go to sleep",
				sleepCall+" finds nothing yet and prepares to wait, up to schedule()"),
			ph(KindSchedEntry, KindFairBegin, model.PhaseSchedule, "schedule(): lock runqueue, start blocking",
				"__schedule: runqueue lock and clock, try_to_block_task, up to dequeue_task_fair"),
			ph(KindFairBegin, KindNrRunningDec, model.PhaseSchedule, "block: dequeue up the cgroup hierarchy",
				"dequeue_entities at each cgroup level that empties"),
			ph(KindNrRunningDec, KindSwitchToIdle, model.PhaseSchedule, "pick next: idle",
				"pick_next_task finds nothing to run: the idle task"),
			ph(KindFairBegin, KindSwitchToIdle, model.PhaseSchedule, "block: delayed dequeue, pick idle",
				"dequeue_task_fair keeps the sleeper queued (delayed dequeue), and the pick finds only idle"),
			ph(KindNrRunningDec, KindSwitchToOther, model.PhaseSchedule, "pick next: the CPU's other task",
				"pick_next_task finds another task runnable on this CPU (a busy CPU): it runs until the next wakeup preempts it"),
			ph(KindFairBegin, KindSwitchToOther, model.PhaseSchedule, "block: delayed dequeue, pick the CPU's other task",
				"dequeue_task_fair keeps the sleeper queued (delayed dequeue), and the pick finds another task runnable here"),
			ph(KindSwitchToIdle, KindSchedExit, model.PhaseSwitch, "context switch to idle",
				"context_switch to the idle task (it keeps the previous mm: nothing to load), switch_to, finish_task_switch"),
		),
		parallel(inIdle(
			ph(KindSchedExit, KindIdleEnter, model.PhaseIdle, "idle loop entry",
				"do_idle up to entering an idle state (tick stop, the governor's choice)"),
			ph(KindIdleEnter, KindIPIIn, model.PhaseIdle, "idle: waiting for the partner",
				"the CPU idles (in a guest, HLT exits to the host and the vCPU sleeps there) until the partner's IPI"),
			ph(KindIdleEnter, KindIdleExit, model.PhaseIdle, "idle: woken by something else",
				"the idle state ended without the partner's IPI (a timer, another interrupt)"),
			ph(KindIdleExit, KindIdleEnter, model.PhaseIdle, "idle loop again",
				"woken with nothing to run (a timer): back into the idle state"),
		)...),
	)
}

// paths are the model's paths: each is one CPU's round, as the wakee,
// the waker and in parallel (two hops); the other CPU's round is the same
// or, with one CPU busy, its counterpart.
func (h crossHop) paths() []path {
	we, wx, se, sx := h.we, h.wx, h.se, h.sx
	wakee := func(rest ...Kind) []node { return task(append([]Kind{KindSchedExit, sx}, rest...)...) }
	return []path{
		cycle("both CPUs idle while they wait: the wake-list IPI, every boundary seen",
			task(we, KindWaking, KindIPISend, wx, se, KindSchedEntry, KindFairBegin, KindNrRunningDec, KindSwitchToIdle),
			idle(KindSchedExit, KindIdleEnter, KindIPIIn, KindFairBegin, KindNrRunningInc, KindWakeup, KindIPIOut, KindIdleExit,
				KindSchedEntry, KindSwitchFromIdle),
			wakee(KindFPULoad, we)),
		cycle("no IPI send seen, delayed requeue and dequeue, a timer in idle",
			task(we, KindWaking, wx, se, KindSchedEntry, KindFairBegin, KindSwitchToIdle),
			idle(KindSchedExit, KindIdleEnter, KindIdleExit, KindIdleEnter, KindIPIIn, KindFairBegin, KindWakeup, KindIPIOut,
				KindIdleExit, KindSchedEntry, KindSwitchFromIdle),
			wakee(we)),
		cycle("an idle CPU waking a busy one: the remote enqueue and the reschedule IPI",
			task(we, KindWaking, KindFairBegin, KindNrRunningInc, KindIPISend, KindWakeup, wx, se, KindSchedEntry, KindFairBegin,
				KindNrRunningDec, KindSwitchToIdle),
			idle(KindSchedExit, KindIdleEnter, KindIPIIn, KindFairBegin, KindNrRunningInc, KindWakeup, KindIPIOut, KindIdleExit,
				KindSchedEntry, KindSwitchFromIdle),
			wakee(KindFPULoad, we)),
		cycle("the busy CPU: woken by the reschedule, it wakes the idle one and gives the CPU back to its task",
			task(KindSwitchFromOther), wakee(KindFPULoad, we, KindWaking, KindIPISend, wx, se, KindSchedEntry, KindFairBegin,
				KindNrRunningDec, KindSwitchToOther, KindSwitchFromOther)),
		cycle("both CPUs busy, no reschedule IPI, delayed dequeue",
			task(KindSwitchFromOther), wakee(we, KindWaking, KindFairBegin, KindNrRunningInc, KindWakeup, wx, se, KindSchedEntry,
				KindFairBegin, KindSwitchToOther, KindSwitchFromOther)),
	}
}

var crossPipeModel = crossModel("pipe hop, across CPUs", KindEnterWrite, KindExitWrite, KindEnterRead, KindExitRead, "write()", "read()",
	"pipe_write: lock the pipe, copy the token into the buffer, up to try_to_wake_up of the reader asleep on the other CPU")

var crossFutexModel = crossModel("futex hop, across CPUs", KindEnterFutexWake, KindExitFutexWake, KindEnterFutexWait, KindExitFutexWait, "futex wake", "futex wait",
	"futex_wake: hash the address, lock the bucket, find the waiter asleep on the other CPU, up to try_to_wake_up")

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

// between are the phases across the two CPUs, from Matrix.Cross, by the
// kind that ends them on the second CPU: each hop adds to at most one of
// them. after is the waker's phase they follow in time.
var between = []struct {
	cross      Kind
	name, what string
	probes     string
	after      [2]Kind
	from, to   Kind // the events on the first CPU and on the second
}{
	{KindIPIIn, "IPI: from the wakeup call to its arrival",
		"from sched_waking on the waker's CPU to the IPI's entry on the idle wakee's CPU (the send not seen): select_task_rq, the wake-list queueing, the IPI's send and flight, the idle CPU's wake-up",
		"sched_waking -> " + x86IPIEntry + " (on the other CPU)", [2]Kind{KindNone, KindWaking}, KindWaking, KindIPIIn},
	{KindWakeup, "wakeup completed on the other CPU without an IPI seen",
		"from sched_waking on the waker's CPU to sched_wakeup on the wakee's, with no IPI boundary between (the CPU was polling, or the interrupt probes are not attached)",
		"sched_waking -> sched_wakeup (on the other CPU)", [2]Kind{KindNone, KindWaking}, KindWaking, KindWakeup},
	{KindIPISend, "IPI: flight and the idle CPU's wake-up",
		"from the IPI's send on the waker's CPU to its entry on the idle wakee's CPU: the interrupt's delivery and the idle state's wake-up (in a guest: the host takes the APIC write, wakes the halted vCPU's thread, schedules it and enters the guest)",
		"ipi_send_cpu -> " + x86IPIEntry + " (on the other CPU)", [2]Kind{KindWaking, KindIPISend}, KindIPISend, KindIPIIn},
	{KindSwitchFromOther, "reschedule IPI: flight, the busy CPU's task into schedule(), the pick",
		"from the reschedule IPI's send on the waker's CPU to the switch to the wakee on the busy CPU: the interrupt's delivery, its handler in the other task, that task's way into schedule() (on return from the interrupt or at its next preemption point) and the pick",
		"ipi_send_cpu -> sched_switch from the other task to the wakee (on the other CPU)", [2]Kind{KindNrRunningInc, KindIPISend}, KindIPISend, KindSwitchFromOther},
}

// betweenOrder is where a phase between the CPUs goes in time order: just
// after the waker's phase it follows (after: its two events, KindNone for
// any first one).
func (md *phaseModel) betweenOrder(after [2]Kind) float64 {
	for i, e := range md.edges {
		if e.side == SideWaker && !e.parallel && e.to == after[1] && (e.from == after[0] || after[0] == KindNone) {
			return float64(i) + 0.75
		}
	}
	return 0.75
}

// crossBreakdown reads m through a model of a hop across CPUs.
func (md *phaseModel) crossBreakdown(m *Matrix, hops uint64) Breakdown {
	b, h := newBreakdown(md.name, md.gaps, md.notes, m, hops)
	if h == 0 {
		return b
	}
	var phases []placed
	onFrom := map[node]bool{}
	for _, e := range md.edges {
		if !e.parallel {
			onFrom[node{e.from, e.ctx}] = true
		}
	}
	irq := interrupts(md.arch)
	irq.Side = SideWakee
	irq.What = "interrupts that landed inside the hop's phases on either CPU (their time is not in the phases)"
	var onPath, other uint64
	for _, t := range m.Transitions() {
		if t.To.IsInterrupt() {
			if onFrom[node{t.From, t.Ctx}] {
				irq.Cell.add(&t.Cell)
				onPath += t.Ns
			} else {
				b.Parallel = append(b.Parallel, Phase{Name: "interrupts (parallel)", Kinds: []model.PhaseKind{model.PhaseInterrupts}, Side: SideWaker,
					From: t.From, To: t.To, Probes: md.probes(t.From, t.To), NsPerHop: float64(t.Ns) / h, PerHop: float64(t.Count) / h,
					MeanNs: t.Mean(), Firings: 2 * float64(t.Count) / h})
			}
			continue
		}
		a, ok := md.attribute(t.Ctx, t.From, t.To)
		if !ok {
			if isOtherTask(t.From) || isOtherTask(t.To) {
				b.Other = append(b.Other, t)
				other += t.Ns
				continue
			}
			b.Unattributed = append(b.Unattributed, t)
			continue
		}
		e := md.edges[a.first]
		p := md.phaseOf(a, t, h)
		p.Side = e.side
		if e.parallel {
			b.Parallel = append(b.Parallel, p)
			continue
		}
		onPath += t.Ns
		phases = append(phases, placed{a.order, p})
	}
	for _, x := range between {
		c := m.Cross[x.cross]
		if c.Count == 0 {
			continue
		}
		probes, what := x.probes, x.what
		if md.arch == ARM64 {
			probes, what = arm64Words.Replace(probes), arm64Words.Replace(what)
		}
		phases = append(phases, placed{md.betweenOrder(x.after), Phase{Name: x.name, What: what, Kinds: []model.PhaseKind{model.PhaseIPIFlight},
			Side: SideBetween, From: x.from, To: x.to, Probes: probes, NsPerHop: float64(c.Ns) / h, PerHop: float64(c.Count) / h, MeanNs: c.Mean(), Cell: c}})
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
	// Each CPU's timeline spans every hop: per hop and CPU, the traced time
	// is the hop on the kernel's clock. Other tasks' time is in it: on a
	// busy CPU it runs in parallel with the hop (while its tracked task
	// sleeps) or inside the phase between the CPUs, which the path holds.
	b.HopNsPerHop = float64(b.TracedNs) / (2 * h)
	if b.HopNsPerHop > 0 {
		b.Closure = float64(onPath) / h / b.HopNsPerHop
	}
	b.UnattributedNsPerHop = nsOf(b.Unattributed) / h
	b.PerHop = perHopCounts(m, irq.Cell.Count, h)
	for k, v := range map[string]float64{
		"idle_ipis":         float64(m.Events[KindIPIIn]) / h,
		"idle_enters":       float64(m.Events[KindIdleEnter]) / h,
		"ipis_sent":         float64(m.Events[KindIPISend]) / h,
		"busy_wakeups":      float64(m.Cross[KindSwitchFromOther].Count) / h,
		"cross_wakeups":     float64(m.Cross[KindIPISend].Count+m.Cross[KindIPIIn].Count+m.Cross[KindWakeup].Count+m.Cross[KindSwitchFromOther].Count) / h,
		"switches_to_other": float64(m.Events[KindSwitchToOther]) / h,
	} {
		b.PerHop[k] = v
	}
	return b
}
