package kvm

import (
	"fmt"
	"strings"
)

// HardwareExit says whether a figure taken here may be called a hardware VM
// exit: a VMX or SVM backend, not nested, with guest code that ran on the
// CPU (or no self-check to say otherwise).
func (d Detection) HardwareExit(sc *SelfCheck) bool {
	if d.Backend != BackendVMX && d.Backend != BackendSVM {
		return false
	}
	if d.Nested {
		return false
	}
	return sc == nil || sc.Execution == ExecNative || sc.Execution == ExecUnknown
}

// Backend describes the backend and how the guest ran, e.g. "KVM, PVM
// backend (kvm_pvm, no VMX/SVM in the CPU), 64-bit guest at CPL3 runs
// natively (0.41 ns per instruction)".
func (d Detection) BackendDescription(mode GuestMode, sc *SelfCheck) string {
	var parts []string
	switch d.Backend {
	case BackendPVM:
		parts = append(parts, "KVM, PVM backend (kvm_pvm, no VMX/SVM)")
	case BackendVMX:
		parts = append(parts, "KVM, hardware VMX (kvm_intel)")
	case BackendSVM:
		parts = append(parts, "KVM, hardware SVM (kvm_amd)")
	case BackendUnknown:
		parts = append(parts, "KVM, unrecognised backend")
	default:
		parts = append(parts, "no KVM")
	}
	g := mode.Describe()
	if sc != nil && sc.Execution != ExecUnknown {
		switch sc.Execution {
		case ExecNative:
			// A native slope is within timing noise of zero and can come
			// out negative; it is shown as ~0 then.
			per := "~0"
			if sc.NsPerInstr > 0.05 {
				per = fmtNs(sc.NsPerInstr)
			}
			g += fmt.Sprintf(" runs natively (%s ns per guest instruction)", per)
		case ExecEmulated:
			g += fmt.Sprintf(" emulated instruction by instruction (%s ns per guest instruction)", fmtNs(sc.NsPerInstr))
		default:
			g += fmt.Sprintf(" (execution unclear: %s ns per guest instruction)", fmtNs(sc.NsPerInstr))
		}
	} else {
		g += " (no self-check)"
	}
	parts = append(parts, g)
	if d.Backend == BackendPVM && mode == GuestUser && sc != nil && sc.Execution == ExecNative {
		parts = append(parts, "exits are traps into the host kernel through PVM's switcher, decoded by KVM's emulator")
	}
	if d.Nested {
		parts = append(parts, "nested: an L2 guest whose exits go through the L0 hypervisor")
	}
	return strings.Join(parts, ", ")
}

// Host is the host fragment of a label: where KVM itself runs.
func (d Detection) Host() string {
	var parts []string
	if d.CPUModel != "" {
		parts = append(parts, d.CPUModel)
	}
	if d.InsideVM {
		h := "inside a virtual machine"
		switch {
		case d.Platform != "" && d.Hypervisor != "":
			h = "inside a " + d.Platform + "/" + d.Hypervisor + " guest"
		case d.Hypervisor != "":
			h = "inside a " + d.Hypervisor + " guest"
		case d.Platform != "":
			h = "inside a " + d.Platform + " guest"
		}
		parts = append(parts, h)
	} else {
		parts = append(parts, "bare metal")
	}
	if d.Kernel != "" {
		parts = append(parts, "Linux "+d.Kernel)
	}
	return strings.Join(parts, ", ")
}

// Label is the label of a vm-rung figure: what was measured, the backend
// and how the guest ran, and, unless the figure is a hardware VM exit, the
// warning that it is not one. what names the op, e.g. "VM exit to user
// space (out to an unassigned port), round trip". The runner appends the
// placement and the host (Host says what kind of host that is).
func Label(d Detection, what string, mode GuestMode, sc *SelfCheck) string {
	s := what + " — " + d.BackendDescription(mode, sc)
	if !d.HardwareExit(sc) {
		s += " — NOT a hardware VM exit"
	}
	return s
}
