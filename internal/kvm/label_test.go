package kvm

import (
	"strings"
	"testing"
)

const what = "VM exit to user space, round trip"

func TestLabelPVM(t *testing.T) {
	d := fake(t, "pvm")
	emu := &SelfCheck{Execution: ExecEmulated, NsPerInstr: 720, EmulatedPerInstr: 1}
	nat := &SelfCheck{Execution: ExecNative, NsPerInstr: 0.4, EmulatedPerInstr: 0}
	for _, c := range []struct {
		mode GuestMode
		sc   *SelfCheck
		want []string
	}{
		{GuestKernel, emu, []string{"PVM backend", "CPL0", "emulated", "720 ns", "NOT a hardware VM exit"}},
		{GuestUser, nat, []string{"PVM backend", "CPL3", "runs natively", "switcher", "NOT a hardware VM exit"}},
		{GuestUser, nil, []string{"no self-check", "NOT a hardware VM exit"}},
	} {
		l := Label(d, what, c.mode, c.sc)
		if h := d.Host(); !strings.Contains(h, "Firecracker/KVM guest") {
			t.Errorf("host %q", h)
		}
		if !strings.HasPrefix(l, what) {
			t.Errorf("label does not start with what was measured: %q", l)
		}
		for _, w := range c.want {
			if !strings.Contains(l, w) {
				t.Errorf("label %q lacks %q", l, w)
			}
		}
	}
}

func TestLabelNativeNoiseSlope(t *testing.T) {
	d := fake(t, "pvm")
	l := Label(d, what, GuestUser, &SelfCheck{Execution: ExecNative, NsPerInstr: -3, EmulatedPerInstr: 0})
	if !strings.Contains(l, "~0 ns per guest instruction") {
		t.Errorf("negative native slope shown as %q", l)
	}
}

func TestLabelHardware(t *testing.T) {
	d := fake(t, "vmx-bare")
	nat := &SelfCheck{Execution: ExecNative, NsPerInstr: 0.3, EmulatedPerInstr: 0}
	l := Label(d, what, GuestKernel, nat)
	if strings.Contains(l, "NOT") || !strings.Contains(l, "VMX") || !strings.Contains(d.Host(), "bare metal") {
		t.Errorf("bare-metal VMX label %q", l)
	}
	// The same backend with an emulated guest (e.g. real mode without
	// unrestricted guest) is not a hardware exit.
	emu := &SelfCheck{Execution: ExecEmulated, NsPerInstr: 300}
	if l := Label(d, what, GuestReal, emu); !strings.Contains(l, "NOT a hardware VM exit") {
		t.Errorf("emulated guest on VMX not flagged: %q", l)
	}
	n := fake(t, "svm-nested")
	if l := Label(n, what, GuestKernel, nat) + " " + n.Host(); !strings.Contains(l, "nested") || !strings.Contains(l, "NOT a hardware VM exit") {
		t.Errorf("nested label %q", l)
	}
}
