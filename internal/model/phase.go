package model

// phase.go: the identity of a phase of a hop, apart from its label. The
// phase models (internal/phase) give every phase a kind, the worker sends it
// (ExplainPhase.Kinds), and explain's verdicts select phases by kind and
// side, never by what their labels say: a label can be reworded without
// changing a verdict.

// PhaseKind is what work a phase of a hop is. Several phases of a model
// can be of one kind (the same work on different paths); a phase that
// spans several of a model's phases (optional boundaries that did not
// fire) has the kinds of each.
type PhaseKind string

// The kinds of phase.
const (
	// PhaseUser is user space and the kernel's entry and exit paths around
	// it, which no tracepoint splits from it.
	PhaseUser PhaseKind = "user"
	// PhaseFPURestore is the exit to user space restoring the FPU
	// registers of the task switched in.
	PhaseFPURestore PhaseKind = "fpu-restore"
	// PhaseSyscall is a syscall's own work: copying the token, finding the
	// waiter, preparing to sleep, returning.
	PhaseSyscall PhaseKind = "syscall"
	// PhaseWakeup is try_to_wake_up on the waker's CPU: selecting a CPU,
	// the runqueue lock, the enqueue up the cgroup hierarchy, psi, the
	// preemption check.
	PhaseWakeup PhaseKind = "wakeup"
	// PhasePreempt is the exit to user space that finds a reschedule asked
	// for and calls schedule().
	PhasePreempt PhaseKind = "preempt"
	// PhaseSchedule is __schedule up to the switch: the runqueue lock,
	// blocking (the dequeue up the cgroup hierarchy), the pick.
	PhaseSchedule PhaseKind = "schedule"
	// PhaseSwitchMM is the context switch's address-space part: switch_mm,
	// the TLB flush, up to switch_to.
	PhaseSwitchMM PhaseKind = "switch-mm"
	// PhaseSwitchTo is the rest of the context switch: the FPU save, the
	// register and stack switch, finish_task_switch.
	PhaseSwitchTo PhaseKind = "switch-to"
	// PhaseSwitch is a whole context switch no boundary splits.
	PhaseSwitch PhaseKind = "switch"
	// PhaseIPI is an inter-processor interrupt's ends: queueing the wakeup
	// and sending the IPI on one CPU, the handler that runs it on the other.
	PhaseIPI PhaseKind = "ipi"
	// PhaseIPIFlight is the time between the two CPUs: from an event on
	// one to what it caused on the other (the IPI's delivery, the target's
	// wake-up or its task's way into schedule()).
	PhaseIPIFlight PhaseKind = "ipi-flight"
	// PhaseIdleExit is leaving an idle state: the idle loop, the pick from
	// idle, the switch from the idle task.
	PhaseIdleExit PhaseKind = "idle-exit"
	// PhaseIdle is going idle and waiting there.
	PhaseIdle PhaseKind = "idle"
	// PhaseKVMEnter is KVM_RUN up to the guest: vcpu_load, the guest FPU
	// state, pending requests.
	PhaseKVMEnter PhaseKind = "kvm-enter"
	// PhaseGuest is the world switch into the guest, the guest, the exit
	// and its handling in the kernel.
	PhaseGuest PhaseKind = "guest"
	// PhaseKVMLeave is KVM_RUN's way back to the VMM: the host FPU state,
	// vcpu_put, the ioctl's return.
	PhaseKVMLeave PhaseKind = "kvm-leave"
	// PhaseVMM is the VMM in user space between two KVM_RUNs.
	PhaseVMM PhaseKind = "vmm"
	// PhaseInterrupts is the interrupts that landed inside a hop's phases.
	PhaseInterrupts PhaseKind = "interrupts"
)

// PhaseKinds lists every kind, in the order above.
func PhaseKinds() []PhaseKind {
	return []PhaseKind{PhaseUser, PhaseFPURestore, PhaseSyscall, PhaseWakeup, PhasePreempt, PhaseSchedule,
		PhaseSwitchMM, PhaseSwitchTo, PhaseSwitch, PhaseIPI, PhaseIPIFlight, PhaseIdleExit, PhaseIdle,
		PhaseKVMEnter, PhaseGuest, PhaseKVMLeave, PhaseVMM, PhaseInterrupts}
}

// Side is whose CPU a phase of a hop across two CPUs ran on; empty on one
// CPU.
type Side string

// The sides of a hop across CPUs.
const (
	SideWaker   Side = "waker"   // the CPU whose task wakes the other
	SideBetween Side = "between" // from an event on one CPU to one on the other
	SideWakee   Side = "wakee"   // the CPU the woken task runs on
)

// Is reports whether the phase is of any of the kinds.
func (p ExplainPhase) Is(kinds ...PhaseKind) bool {
	for _, k := range p.Kinds {
		for _, want := range kinds {
			if k == want {
				return true
			}
		}
	}
	return false
}

// OnSide is the side the phase ran on (Side(p.CPU)).
func (p ExplainPhase) OnSide() Side { return Side(p.CPU) }

// Bounded reports whether the phase opens or closes at any of the events
// (kernel event names, as From and To hold them).
func (p ExplainPhase) Bounded(events ...string) bool {
	for _, e := range events {
		if e != "" && (p.From == e || p.To == e) {
			return true
		}
	}
	return false
}

// Identity is what the phase is, without its label: its side, the kernel
// events that bound it and its kinds. Two phases of one model with the
// same identity are the same phase; across rows, the same transition.
func (p ExplainPhase) Identity() string {
	id := p.CPU + "|" + p.From + ">" + p.To
	for _, k := range p.Kinds {
		id += "|" + string(k)
	}
	return id
}
