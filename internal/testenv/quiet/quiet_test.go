package quiet

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
)

// recorder is the test Run judges: what it was told, held for the test's
// own checks.
type recorder struct {
	testing.TB
	errors []string
	logs   []string
	failed bool
	ended  bool
}

type ended struct{}

func (r *recorder) Helper() {}
func (r *recorder) Logf(format string, args ...any) {
	r.logs = append(r.logs, sprintf(format, args...))
}
func (r *recorder) Errorf(format string, args ...any) { r.Error(sprintf(format, args...)) }
func (r *recorder) Error(args ...any) {
	r.errors = append(r.errors, strings.TrimSpace(sprintln(args...)))
	r.failed = true
}
func (r *recorder) Fail()        { r.failed = true }
func (r *recorder) Failed() bool { return r.failed }
func (r *recorder) FailNow() {
	r.failed, r.ended = true, true
	panic(ended{})
}

// judge runs Run against a recorder.
func judge(t *testing.T, measure func(testing.TB)) *recorder {
	r := &recorder{TB: t}
	func() {
		defer func() {
			if p := recover(); p != nil {
				if _, ok := p.(ended); !ok {
					panic(p)
				}
			}
		}()
		Run(r, measure)
	}()
	return r
}

// script makes the machine's CPUs read as if other work took other[i] CPUs
// (of 2) during the i-th measured interval — every use reads before and
// after, attempts and quiet windows alike; past the script, they are quiet.
func script(t *testing.T, other ...float64) {
	reads := 0
	var at time.Time
	var idle int64
	readCPUs = func() reading {
		const wall = int64(time.Second)
		if reads%2 == 1 { // an "after": the interval it closes
			o := 0.0
			if i := reads / 2; i < len(other) {
				o = other[i]
			}
			at = at.Add(time.Duration(wall))
			idle += 2*wall - int64(o*float64(wall))
		}
		reads++
		return reading{clock: host.CPUClock{At: at, IdleNS: idle}, cpus: 2}
	}
	wait := waitQuiet
	waitQuiet = func() bool { // one window, read as a measured interval
		r0 := readCPUs()
		return readCPUs().otherSince(r0) <= Threshold
	}
	t.Cleanup(func() { readCPUs, waitQuiet = read, wait })
}

// measure fails its first fails attempts with "broken", optionally
// fatally, and counts attempts and clean-ups.
type measure struct {
	fails, attempts, cleanups int
	fatal                     bool
}

func (m *measure) run(t testing.TB) {
	m.attempts++
	t.Cleanup(func() { m.cleanups++ })
	if m.attempts <= m.fails {
		if m.fatal {
			t.Fatalf("broken %d", m.attempts)
		}
		t.Errorf("broken %d", m.attempts)
	}
}

func TestPassingAttemptPassesOnce(t *testing.T) {
	script(t, 0.9) // contended, but it passed: nothing to judge again
	m := &measure{}
	r := judge(t, m.run)
	if r.failed || m.attempts != 1 || m.cleanups != 1 {
		t.Errorf("failed %v, %d attempts, %d clean-ups: want a pass in 1 attempt, cleaned up", r.failed, m.attempts, m.cleanups)
	}
}

// On quiet CPUs a failure is judged at once, as without the package.
func TestQuietFailureFailsAtOnce(t *testing.T) {
	script(t, 0.01)
	m := &measure{fails: 99}
	r := judge(t, m.run)
	if !r.failed || m.attempts != 1 || len(r.errors) != 1 || r.errors[0] != "broken 1" {
		t.Errorf("failed %v after %d attempts, errors %q: want the first attempt's failure, once", r.failed, m.attempts, r.errors)
	}
	if r.ended {
		t.Error("an Errorf ended the test")
	}
}

// A failure under contention is measured again after a quiet window; the
// passing attempt decides.
func TestContendedFailureMeasuresAgain(t *testing.T) {
	// attempt 1 contended; one quiet window; attempt 2 passes
	script(t, 0.5, 0, 0)
	m := &measure{fails: 1}
	r := judge(t, m.run)
	if r.failed || m.attempts != 2 || m.cleanups != 2 {
		t.Errorf("failed %v (%q), %d attempts, %d clean-ups: want a pass at the second attempt", r.failed, r.errors, m.attempts, m.cleanups)
	}
}

// A property that is broken stays broken: a contended failure measured
// again on quiet CPUs fails, with the quiet attempt's failure.
func TestBrokenPropertyFailsOnceQuiet(t *testing.T) {
	script(t, 0.5, 0, 0)
	m := &measure{fails: 99, fatal: true}
	r := judge(t, m.run)
	if !r.failed || !r.ended || m.attempts != 2 || len(r.errors) != 1 || r.errors[0] != "broken 2" {
		t.Errorf("failed %v ended %v after %d attempts, errors %q: want attempt 2's fatal failure", r.failed, r.ended, m.attempts, r.errors)
	}
	if m.cleanups != 2 {
		t.Errorf("%d clean-ups after a Fatal, want 2", m.cleanups)
	}
}

// Always contended: every attempt is made, and the least contended one is
// judged, saying so.
func TestAlwaysContendedJudgesTheLeast(t *testing.T) {
	var other []float64
	for i := range MaxAttempts {
		// the attempt, then the quiet windows waited for in vain
		other = append(other, 0.3+0.1*float64(i%3))
		other = append(other, 1) // the wait that follows finds no quiet window
	}
	script(t, other...)
	m := &measure{fails: 99}
	r := judge(t, m.run)
	if !r.failed || m.attempts != MaxAttempts {
		t.Fatalf("failed %v after %d attempts, want a failure after %d", r.failed, m.attempts, MaxAttempts)
	}
	if len(r.errors) != 2 || !strings.Contains(r.errors[0], "every one of 6 attempts was contended") ||
		!strings.Contains(r.errors[0], "attempt 1, other work 0.30 CPU") || r.errors[1] != "broken 1" {
		t.Errorf("errors %q", r.errors)
	}
	waits := 0
	for _, l := range r.logs {
		if strings.Contains(l, "no quiet") {
			waits++
		}
	}
	if waits != MaxAttempts-1 {
		t.Errorf("%d waits for quiet noted, want %d: %q", waits, MaxAttempts-1, r.logs)
	}
}

// The accounting on this machine: a spinning thread of the test's own is
// not other work; the figure is a share of CPUs, not negative.
func TestOwnWorkIsNotOther(t *testing.T) {
	r0 := read()
	end := time.Now().Add(200 * time.Millisecond)
	x := 1
	for time.Now().Before(end) {
		x = x*31 + 7
	}
	o := read().otherSince(r0)
	if o < 0 || o > 2 {
		t.Errorf("other work %.2f CPU (x %d)", o, x)
	}
	t.Logf("other work while this test spun: %.3f CPU", o)
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
func sprintln(args ...any) string               { return fmt.Sprintln(args...) }

// A measurement's own account of contention stands in for the attempt's:
// clean blocks in a busy stretch are judged at once; contended ones are
// measured again even on quiet CPUs.
func TestMeasurementsOwnAccountDecides(t *testing.T) {
	script(t, 0.9)
	m := &measure{fails: 99}
	r := judge(t, func(tb testing.TB) {
		tb.(*Attempt).Contention(0)
		m.run(tb)
	})
	if !r.failed || m.attempts != 1 {
		t.Errorf("failed %v after %d attempts: clean by its own account, want judged at once", r.failed, m.attempts)
	}
	script(t)
	m = &measure{fails: 1}
	r = judge(t, func(tb testing.TB) {
		if tb.(*Attempt).Number() == 1 {
			tb.(*Attempt).Contention(0.4)
		}
		m.run(tb)
	})
	if r.failed || m.attempts != 2 {
		t.Errorf("failed %v after %d attempts: contended by its own account, want a second, passing attempt", r.failed, m.attempts)
	}
}
