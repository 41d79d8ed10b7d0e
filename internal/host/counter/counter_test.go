package counter

import (
	"runtime"
	"testing"
	"time"
)

// The counter advances, and at the rate it states where it states one:
// over 20 ms of the monotonic clock, within 10% (an emulator's counter
// too: qemu-user's ticks at its own stated rate). No figure of the test is
// a timing of anything but the counter against the clock.
func TestCounterAdvancesAtItsRate(t *testing.T) {
	switch runtime.GOARCH {
	case "amd64":
		if Name() != "TSC" || Hz() != 0 {
			t.Fatalf("amd64: counter %q at %d Hz, want the TSC, rate not stated", Name(), Hz())
		}
	case "arm64":
		if Name() != "CNTVCT_EL0" || Hz() == 0 {
			t.Fatalf("arm64: counter %q at %d Hz, want CNTVCT_EL0 at CNTFRQ_EL0's rate", Name(), Hz())
		}
	default:
		if Name() != "" || Read() != 0 {
			t.Fatalf("%s: counter %q reads %d, want none", runtime.GOARCH, Name(), Read())
		}
		return
	}
	a, t0 := Read(), time.Now()
	time.Sleep(20 * time.Millisecond)
	b, el := Read(), time.Since(t0)
	if b <= a {
		t.Fatalf("counter did not advance: %d then %d", a, b)
	}
	if f := Hz(); f > 0 {
		rate := float64(b-a) / el.Seconds()
		if rate < 0.9*float64(f) || rate > 1.1*float64(f) {
			t.Errorf("counter ran at %.4g Hz, CNTFRQ_EL0 says %d", rate, f)
		}
		if ms := MinSample(); ms <= 0 || float64(ms.Nanoseconds())*float64(f)/1e9 < MinSampleTicks {
			t.Errorf("MinSample %v spans fewer than %d ticks at %d Hz", ms, MinSampleTicks, f)
		}
	} else if MinSample() != 0 {
		t.Errorf("MinSample %v without a stated rate", MinSample())
	}
}

// Trap times real reads and system calls: it must answer, with positive
// costs, and a read costs less than a system call here unless it traps.
func TestTrapAnswers(t *testing.T) {
	trapped, r, s, ok := Trap()
	if !ok {
		if Name() != "" {
			t.Fatal("Trap has no answer for a counter that exists")
		}
		return
	}
	if r <= 0 || s <= 0 {
		t.Fatalf("costs read %v ns, syscall %v ns", r, s)
	}
	if trapped != (r >= s/2) {
		t.Errorf("trapped %v with read %.1f ns and syscall %.1f ns", trapped, r, s)
	}
	t.Logf("read %.1f ns, getppid %.1f ns, trapped %v", r, s, trapped)
}
