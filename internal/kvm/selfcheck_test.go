package kvm

import (
	"errors"
	"math"
	"testing"
)

func TestSelfCheckCountedEmulation(t *testing.T) {
	// KVM counted every padding instruction as emulated (the PVM CPL0 case).
	pts := []SelfCheckPoint{{0, 9000, 2}, {100, 81000, 102}, {1000, 730000, 1002}}
	sc, err := AnalyzeSelfCheck(GuestKernel, pts)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Execution != ExecEmulated {
		t.Errorf("execution %s, want emulated", sc.Execution)
	}
	if math.Abs(sc.EmulatedPerInstr-1) > 1e-9 {
		t.Errorf("emulated per instruction %v, want 1", sc.EmulatedPerInstr)
	}
	if math.Abs(sc.NsPerInstr-721) > 1 {
		t.Errorf("slope %v, want about 721", sc.NsPerInstr)
	}
}

func TestSelfCheckCountedNative(t *testing.T) {
	// Only the exiting instruction was emulated; padding ran on the CPU.
	pts := []SelfCheckPoint{{0, 29000, 1}, {100, 29050, 1}, {1000, 29400, 1}}
	sc, err := AnalyzeSelfCheck(GuestUser, pts)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Execution != ExecNative || sc.EmulatedPerInstr != 0 {
		t.Errorf("execution %s, emulated per instruction %v; want native, 0", sc.Execution, sc.EmulatedPerInstr)
	}
}

func TestSelfCheckTimingOnly(t *testing.T) {
	// Without KVM statistics the slope decides.
	for _, c := range []struct {
		slope float64
		want  Execution
	}{{0.3, ExecNative}, {600, ExecEmulated}, {20, ExecUnclear}} {
		pts := []SelfCheckPoint{{0, 1000, -1}, {100, 1000 + 100*c.slope, -1}, {1000, 1000 + 1000*c.slope, -1}}
		sc, err := AnalyzeSelfCheck(GuestKernel, pts)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Execution != c.want || sc.EmulatedPerInstr != -1 {
			t.Errorf("slope %v: %s (emulated/instr %v), want %s", c.slope, sc.Execution, sc.EmulatedPerInstr, c.want)
		}
	}
}

func TestSelfCheckCountsOverruleTiming(t *testing.T) {
	// A slow but native slope (a noisy host) stays "unclear", never
	// "emulated", when KVM counted no emulation.
	pts := []SelfCheckPoint{{0, 1000, 1}, {1000, 1000 + 1000*80, 1}}
	sc, _ := AnalyzeSelfCheck(GuestUser, pts)
	if sc.Execution != ExecUnclear {
		t.Errorf("execution %s, want unclear", sc.Execution)
	}
}

func TestSelfCheckBadInput(t *testing.T) {
	bad := [][]SelfCheckPoint{
		nil,
		{{100, 5000, -1}},
		{{100, 5000, -1}, {100, 6000, -1}},
		{{0, 5000, -1}, {100, 0, -1}},
		{{-1, 5000, -1}, {100, 6000, -1}},
		{{0, math.NaN(), -1}, {100, 6000, -1}},
	}
	for i, pts := range bad {
		if _, err := AnalyzeSelfCheck(GuestKernel, pts); err == nil {
			t.Errorf("case %d: no error for %+v", i, pts)
		}
	}
}

func TestGuestModes(t *testing.T) {
	for _, m := range []GuestMode{GuestKernel, GuestUser, GuestReal} {
		got, err := ParseGuestMode(m.String())
		if err != nil || got != m {
			t.Errorf("ParseGuestMode(%q) = %v, %v", m.String(), got, err)
		}
	}
	if _, err := ParseGuestMode("ring2"); err == nil {
		t.Error("no error for an unknown mode")
	}
}

func TestRunSelfCheck(t *testing.T) {
	var seen []int
	sc, err := RunSelfCheck(GuestUser, func(pad int) (SelfCheckPoint, error) {
		seen = append(seen, pad)
		return SelfCheckPoint{NsPerOp: 1000 + 0.5*float64(pad), EmulatedPerOp: 1}, nil
	})
	if err != nil || sc.Execution != ExecNative || len(seen) != len(SelfCheckPads) {
		t.Errorf("%+v %v, pads run %v", sc, err, seen)
	}
	for i, p := range sc.Points {
		if p.Pad != SelfCheckPads[i] {
			t.Errorf("point %d has pad %d", i, p.Pad)
		}
	}
	boom := errors.New("no kvm")
	if _, err := RunSelfCheck(GuestUser, func(int) (SelfCheckPoint, error) { return SelfCheckPoint{}, boom }); !errors.Is(err, boom) {
		t.Errorf("error %v does not wrap the kernel's", err)
	}
}
