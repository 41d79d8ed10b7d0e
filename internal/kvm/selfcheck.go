package kvm

import (
	"errors"
	"fmt"
	"math"
	"strings"
)

// GuestMode is how the minimal guest runs (the C kernels' CB_KVM_GUEST_*).
type GuestMode int

// The guest modes. GuestKernel is the classic minimal 64-bit guest (CS.L=1,
// CPL0, identity-mapped pages). GuestUser runs the same code at CPL3: on a
// PVM host that is the only way a minimal guest runs on the CPU rather than
// in KVM's instruction emulator. GuestReal is the LWN "Using the KVM API"
// real-mode guest.
const (
	GuestKernel GuestMode = 0
	GuestUser   GuestMode = 1
	GuestReal   GuestMode = 2
)

func (m GuestMode) String() string {
	switch m {
	case GuestKernel:
		return "kernel"
	case GuestUser:
		return "user"
	case GuestReal:
		return "real"
	}
	return fmt.Sprintf("GuestMode(%d)", int(m))
}

// Describe is the mode as a label fragment.
func (m GuestMode) Describe() string {
	switch m {
	case GuestKernel:
		return "64-bit guest at CPL0"
	case GuestUser:
		return "64-bit guest at CPL3"
	case GuestReal:
		return "16-bit real-mode guest"
	}
	return m.String()
}

// ParseGuestMode accepts "kernel", "user" or "real".
func ParseGuestMode(s string) (GuestMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "kernel", "cpl0":
		return GuestKernel, nil
	case "user", "cpl3":
		return GuestUser, nil
	case "real", "real-mode":
		return GuestReal, nil
	}
	return 0, fmt.Errorf("unknown guest mode %q (want kernel, user or real)", s)
}

// Execution is how guest instructions were executed, as the self-check found.
type Execution string

// The self-check's verdicts.
const (
	ExecNative   Execution = "native"   // guest code ran on the CPU
	ExecEmulated Execution = "emulated" // KVM's instruction emulator ran it
	ExecUnclear  Execution = "unclear"  // neither test was conclusive
	ExecUnknown  Execution = "unknown"  // no self-check was run
)

// Thresholds of the self-check. One dependent `inc` costs about one core
// cycle on the CPU (<1 ns), and several hundred ns when emulated (0.6-1.1 us
// on a PVM host, kvm_pvm inside a Firecracker guest). The gap is wide,
// so the thresholds sit an order of magnitude inside each side.
const (
	NativeMaxNsPerInstr   = 5.0
	EmulatedMinNsPerInstr = 50.0
)

// SelfCheckPads are the padding counts the self-check runs (the C kernel
// cb_kvm_selfcheck with arg = padding).
var SelfCheckPads = []int{0, 100, 1000}

// SelfCheckPoint is one padding count's result.
type SelfCheckPoint struct {
	Pad     int     `json:"pad"`       // extra guest instructions per op
	NsPerOp float64 `json:"ns_per_op"` // median ns per KVM_RUN round trip
	// EmulatedPerOp is KVM's insn_emulation statistic per op; -1 when the
	// kernel has no binary statistics.
	EmulatedPerOp float64 `json:"emulated_per_op"`
}

// SelfCheck is the verdict of the native-execution self-check.
type SelfCheck struct {
	Mode       GuestMode        `json:"mode"`
	Points     []SelfCheckPoint `json:"points"`
	NsPerInstr float64          `json:"ns_per_instruction"` // least-squares slope of NsPerOp over Pad
	// EmulatedPerInstr is the slope of KVM's emulated-instruction count over
	// Pad: about 1 when every padding instruction went through the emulator,
	// about 0 when they ran on the CPU; -1 when not counted.
	EmulatedPerInstr float64   `json:"emulated_per_instruction"`
	Execution        Execution `json:"execution"`
}

// AnalyzeSelfCheck fits the slopes and classifies. KVM's own count of
// emulated instructions, when present, decides; the timing slope decides
// otherwise, and must agree for a "native" verdict.
func AnalyzeSelfCheck(mode GuestMode, pts []SelfCheckPoint) (SelfCheck, error) {
	sc := SelfCheck{Mode: mode, Points: append([]SelfCheckPoint(nil), pts...), EmulatedPerInstr: -1, Execution: ExecUnknown}
	xs := make([]float64, len(pts))
	ys := make([]float64, len(pts))
	es := make([]float64, len(pts))
	counted := len(pts) > 0
	for i, p := range pts {
		if p.Pad < 0 || p.NsPerOp <= 0 || math.IsNaN(p.NsPerOp) || math.IsInf(p.NsPerOp, 0) {
			return sc, fmt.Errorf("self-check point %d: pad %d, %v ns per op", i, p.Pad, p.NsPerOp)
		}
		xs[i], ys[i], es[i] = float64(p.Pad), p.NsPerOp, p.EmulatedPerOp
		if p.EmulatedPerOp < 0 {
			counted = false
		}
	}
	slope, ok := fitSlope(xs, ys)
	if !ok {
		return sc, errors.New("self-check needs at least two different padding counts")
	}
	sc.NsPerInstr = slope
	if counted {
		sc.EmulatedPerInstr, _ = fitSlope(xs, es)
	}
	switch {
	case counted && sc.EmulatedPerInstr >= 0.5:
		sc.Execution = ExecEmulated
	case counted && sc.EmulatedPerInstr < 0.01 && slope < NativeMaxNsPerInstr:
		sc.Execution = ExecNative
	case counted:
		sc.Execution = ExecUnclear
	case slope >= EmulatedMinNsPerInstr:
		sc.Execution = ExecEmulated
	case slope < NativeMaxNsPerInstr:
		sc.Execution = ExecNative
	default:
		sc.Execution = ExecUnclear
	}
	return sc, nil
}

// fitSlope is an ordinary least-squares slope (three points do not need a
// statistics library).
func fitSlope(xs, ys []float64) (float64, bool) {
	n := float64(len(xs))
	if len(xs) < 2 || len(xs) != len(ys) {
		return 0, false
	}
	var sx, sy float64
	for i := range xs {
		sx += xs[i]
		sy += ys[i]
	}
	mx, my := sx/n, sy/n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	if sxx == 0 {
		return 0, false
	}
	return sxy / sxx, true
}

// Summary is the self-check as one line, e.g. "guest instructions emulated
// (727 ns each; KVM counted 1.00 emulated per instruction)".
func (s SelfCheck) Summary() string {
	var b strings.Builder
	switch s.Execution {
	case ExecNative:
		b.WriteString("guest instructions run natively")
	case ExecEmulated:
		b.WriteString("guest instructions emulated")
	case ExecUnclear:
		b.WriteString("guest execution unclear")
	default:
		return "no native-execution self-check"
	}
	fmt.Fprintf(&b, " (%s ns each", fmtNs(s.NsPerInstr))
	if s.EmulatedPerInstr >= 0 {
		fmt.Fprintf(&b, "; KVM counted %.2f emulated per instruction", s.EmulatedPerInstr)
	}
	b.WriteString(")")
	return b.String()
}

func fmtNs(v float64) string {
	switch a := math.Abs(v); {
	case a < 10:
		return fmt.Sprintf("%.2f", v)
	case a < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}
