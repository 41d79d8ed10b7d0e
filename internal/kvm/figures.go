package kvm

import (
	"fmt"
	"strings"
)

// Figure describes one vm-rung figure for the registry and the labels: what
// one op is and how many hops it makes (0: not a switch).
type Figure struct {
	ID        string // stable name, also the result's name suffix
	What      string // what one op is: the first part of the label
	HopsPerOp int
	// Modes are the guest modes the figure can be taken in; the first is
	// the default (the mode whose guest code runs natively where any does).
	Modes []GuestMode
}

// Figures are the vm-rung figures the C kernels measure (kvm_*.c).
var Figures = []Figure{
	{"exit-user", "VM exit to user space (guest `out` to an unassigned port, KVM_RUN returns to the VMM), round trip", 0,
		[]GuestMode{GuestUser, GuestKernel, GuestReal}},
	{"exit-kernel-ioeventfd", "VM exit completed in the host kernel (guest `out` to an ioeventfd port), round trip", 0,
		[]GuestMode{GuestUser, GuestKernel}},
	{"exit-kernel-cpuid", "guest `cpuid` (an exit where the hypervisor intercepts it), round trip", 0,
		[]GuestMode{GuestUser, GuestKernel}},
	{"switch-u", "VM-to-VM switch through user space (exit, pipe token, host process switch, KVM_RUN), round trip of two VMs in two processes", 2,
		[]GuestMode{GuestUser, GuestKernel}},
	{"switch-k", "VM-to-VM switch in the kernel (ioeventfd -> irqfd doorbells, halted vCPUs), round trip of two VMs in two processes", 2,
		[]GuestMode{GuestKernel}},
	{"create", "VM created (KVM_CREATE_VM, memory, vCPU, registers) and run to its first exit", 0,
		[]GuestMode{GuestUser, GuestKernel, GuestReal}},
}

// FigureByID finds a figure.
func FigureByID(id string) (Figure, bool) {
	for _, f := range Figures {
		if f.ID == id {
			return f, true
		}
	}
	return Figure{}, false
}

// RunSelfCheck runs the native-execution self-check with run, which must
// time the C self-check kernel for one padding count (arg = padding) and
// return ns per op and KVM's insn_emulation per op (-1 if not counted).
// Use a low quantile of the samples (minimum or p10) for ns per op:
// contention on a shared host only adds time, and with a native guest the
// slope being measured is under a nanosecond per instruction while one
// sample can swing by tens of microseconds. Pads are run in the order of
// SelfCheckPads.
func RunSelfCheck(mode GuestMode, run func(pad int) (SelfCheckPoint, error)) (SelfCheck, error) {
	pts := make([]SelfCheckPoint, 0, len(SelfCheckPads))
	for _, pad := range SelfCheckPads {
		p, err := run(pad)
		if err != nil {
			return SelfCheck{Mode: mode, Execution: ExecUnknown, EmulatedPerInstr: -1}, fmt.Errorf("self-check, %d padding instructions: %w", pad, err)
		}
		p.Pad = pad
		pts = append(pts, p)
	}
	return AnalyzeSelfCheck(mode, pts)
}

// Annotate appends to a label what KVM's own counters say about one op:
// an op that did not exit to this KVM (e.g. `cpuid` executed by the CPU and
// intercepted by an outer hypervisor), and how many guest instructions KVM
// emulated per op. perOp is PerOp of the kernel's statistics.
func Annotate(label string, perOp map[string]float64) string {
	var notes []string
	if ex, ok := perOp["exits"]; ok {
		if ex < 0.5 {
			notes = append(notes, fmt.Sprintf("KVM counted %.2f exits per op: the op did not exit to this KVM (emulated inline, or run by the CPU and handled by an outer hypervisor)", ex))
		} else {
			notes = append(notes, fmt.Sprintf("%.2f KVM exits per op", ex))
		}
	}
	if em, ok := perOp["insn_emulation"]; ok && em >= 0.5 {
		notes = append(notes, fmt.Sprintf("%.1f guest instructions emulated per op", em))
	}
	if len(notes) == 0 {
		return label
	}
	return label + " [" + strings.Join(notes, "; ") + "]"
}
