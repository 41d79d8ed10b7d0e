package phase

// arch.go: which boundaries each architecture's kernel has, and the models
// of arm64. The x86-64 models (models.go, crosscpu.go) are the reference;
// arm64's are derived from them: the events arm64 has no tracepoint for are
// dropped from the transitions and from the paths (a path goes straight
// from the event before to the event after), the phases whose words are
// x86's are said in arm64's, and what the dropped boundaries leave without
// a phase is added by hand. check.go proves the derived models as it
// proves the others.

import (
	"runtime"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/model"
)

// The architectures the models are written for, by GOARCH.
const (
	AMD64 = "amd64"
	ARM64 = "arm64"
)

// absent are, by architecture, the events its kernel has no tracepoint
// for, and why: the x86-only tracepoints of the switch (arch/x86's
// tlb_flush and x86_fpu_*), and the vm rung's events (its guests are
// x86-64 programs, so no vm row runs elsewhere).
var absent = map[string]map[Kind]string{
	AMD64: nil,
	ARM64: {
		KindTLBFlush:         "tlb_flush is x86's: arm64 switches address spaces by ASID and traces no flush",
		KindFPUSave:          "x86_fpu_regs_deactivated is x86's: arm64 saves the FPSIMD registers in fpsimd_thread_switch, untraced",
		KindFPULoad:          "x86_fpu_regs_activated is x86's: arm64 restores the FPSIMD registers on the way to user space, untraced",
		KindKVMFPULoad:       "the vm rung is x86-64's only",
		KindKVMFPUUnload:     "the vm rung is x86-64's only",
		KindKVMEntry:         "the vm rung is x86-64's only",
		KindKVMExit:          "the vm rung is x86-64's only",
		KindKVMUserspaceExit: "the vm rung is x86-64's only",
		KindEnterKVMRun:      "the vm rung is x86-64's only",
		KindExitKVMRun:       "the vm rung is x86-64's only",
	},
}

// Absent is the events arch's kernel has no tracepoint for, with the
// reason of each (nil for x86-64, where every event of kinds.h is traced).
func Absent(arch string) map[Kind]string { return absent[arch] }

// probeOn are the events whose tracepoint on arm64 is another than
// x86-64's: arm64's IPIs are per-CPU interrupts named "IPI" whose handler
// says which IPI it runs (ipi_entry, ipi_exit, with the kernel's name of
// it), and its timer tick is the interrupt of "arch_timer".
var probeOn = map[string]map[Kind]string{
	ARM64: {
		KindIPIIn:       "ipi_entry (Rescheduling or Function call interrupts), on the idle task of a CPU a tracked task left idle",
		KindTimer:       "irq_handler_entry/exit of arch_timer",
		KindReschedIPI:  "ipi_entry/exit, Rescheduling interrupts",
		KindCallFuncIPI: "ipi_entry/exit, Function call interrupts",
		KindIRQWork:     "ipi_entry/exit, IRQ work interrupts",
		KindIRQ:         "irq_handler_entry/exit (the IPI interrupt's are ipi_entry/exit's)",
	},
}

// ProbeOn names the tracepoint that records k on arch.
func (k Kind) ProbeOn(arch string) string {
	if p, ok := probeOn[arch][k]; ok {
		return p
	}
	return k.Probe()
}

// interruptProbes is what the interrupts phase is made of on arch.
func interruptProbes(arch string) string {
	if arch == ARM64 {
		return "irq/softirq entry -> exit, ipi_entry -> ipi_exit"
	}
	return "irq/softirq/local_timer/reschedule/call_function/irq_work entry -> exit"
}

// x86IPIEntry is how x86-64's probe names of the IPI's arrival read.
const x86IPIEntry = "call_function(_single)_entry or reschedule_entry"

// models are, by architecture, the models by the name a benchmark's Phases
// gives, on one CPU and across two.
type models struct{ oneCPU, acrossCPUs map[string]*phaseModel }

var byArch = map[string]models{
	AMD64: {oneCPU, acrossCPUs},
	ARM64: {
		oneCPU: map[string]*phaseModel{
			"pipe": pipePingPong.onArm64(&pipeModel), "futex": futexPingPong.onArm64(&futexModel), "yield": onArm64(&yieldModel),
		},
		acrossCPUs: map[string]*phaseModel{"pipe": onArm64(&crossPipeModel), "futex": onArm64(&crossFutexModel)},
	},
}

// SplitFor is Split for a hop traced on arch's kernel: its boundaries,
// its probes' names. ok is false where the architecture has no such model
// (the vm rung's, off x86-64) or is not one the models are written for.
func SplitFor(arch, phases string, cross bool) (split func(*Matrix, uint64) Breakdown, ok bool) {
	ms, ok := byArch[arch]
	if !ok {
		return nil, false
	}
	set := ms.oneCPU
	if cross {
		set = ms.acrossCPUs
	}
	md, ok := set[phases]
	if !ok {
		return nil, false
	}
	return md.breakdown, true
}

// Split is SplitFor this machine's architecture (the tracer runs on it).
func Split(phases string, cross bool) (split func(*Matrix, uint64) Breakdown, ok bool) {
	return SplitFor(runtime.GOARCH, phases, cross)
}

// arm64Words are x86-64's words in the phases' texts and arm64's for the
// same work.
var arm64Words = strings.NewReplacer(
	" (FPU already loaded)", "",
	"after HLT or MWAIT returns", "after WFI returns",
	"in a guest, HLT exits to the host", "in a guest, WFI traps to the host",
	"the write to the APIC exits to the host", "the write to the GIC's SGI register traps to the host",
	"the host takes the APIC write", "the host takes the SGI write",
	"kvm:kvm_apic_ipi", "kvm:vgic_update_irq_pending",
	x86IPIEntry, "ipi_entry",
)

// arm64Switch is the context switch on arm64, where no tracepoint splits
// it: x86-64's switch edge without an FPU to save says it on x86-64.
var arm64Switch = label{"context switch",
	"context_switch: switch_mm (the next address space by its ASID), __switch_to (fpsimd_thread_switch saves the outgoing task's FPSIMD registers), the register and stack switch, finish_task_switch, up to __schedule returning in the next task"}

// arm64Gap is the work arm64's switch holds that x86-64's tracepoints
// separate.
var arm64Gap = Gap{
	Work:   "the address-space switch (ASID), the FPSIMD save and the register switch, as distinct parts of the context switch",
	Inside: "context switch",
	Needs:  "fentry/fexit (or kprobes) on switch_mm and fpsimd_thread_switch: arm64 has neither x86's tlb_flush nor its x86_fpu_regs_* tracepoints",
}

// arm64Note says, in every arm64 model, which boundaries are not there.
const arm64Note = "arm64: no tlb_flush or FPU tracepoints (x86's), so the context switch is one phase and the FPSIMD restore on the way to user space is inside the user-space phase"

// onArm64 derives arm64's model from x86-64's md: the events arm64 does
// not trace dropped from its transitions and paths, its words said in
// arm64's, extra its transitions that only the dropped boundaries stood
// between.
func onArm64(md *phaseModel, extra ...edge) *phaseModel {
	gone := absent[ARM64]
	out := *md
	out.arch = ARM64
	out.edges = nil
	for _, e := range md.edges {
		if _, ok := gone[e.from]; ok {
			continue
		}
		if _, ok := gone[e.to]; ok {
			continue
		}
		if e.from == KindSwitch && e.to == KindSchedExit {
			e.name, e.what = arm64Switch.name, arm64Switch.what
		}
		e.name, e.what = arm64Words.Replace(e.name), arm64Words.Replace(e.what)
		out.edges = append(out.edges, e)
	}
	out.edges = append(out.edges, extra...)
	out.paths = nil
	for _, p := range md.paths {
		q := path{name: p.name}
		for _, n := range p.nodes {
			if _, ok := gone[n.kind]; !ok {
				q.nodes = append(q.nodes, n)
			}
		}
		out.paths = append(out.paths, q)
	}
	out.optional = slices.DeleteFunc(slices.Clone(md.optional), func(k Kind) bool { _, ok := gone[k]; return ok })
	out.gaps = nil
	for _, g := range md.gaps {
		g.Work, g.Inside, g.Needs = arm64Words.Replace(g.Work), arm64Words.Replace(g.Inside), arm64Words.Replace(g.Needs)
		out.gaps = append(out.gaps, g)
	}
	if !md.cross {
		out.gaps = append(out.gaps, arm64Gap)
	}
	out.notes = append(slices.Clone(md.notes), arm64Note)
	return &out
}

// onArm64 is a ping-pong's arm64 model: without x86's FPU-restore boundary
// a preempted task's return to user space runs straight into its next
// sleep call, a transition of its own.
func (pp pingPong) onArm64(md *phaseModel) *phaseModel {
	return onArm64(md, ph(KindSchedExit, pp.sleepEnter, model.PhaseUser, "the preempted task resumes: user space, "+pp.sleepCall+" entry",
		"back in exit_to_user_mode after its preemption (the FPSIMD registers restored on the way), the loop, "+pp.sleepCall+"'s kernel entry up to sys_enter"))
}
