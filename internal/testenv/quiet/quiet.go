// Package quiet judges a test's measurement only on a machine that let it
// measure. A test that times something — a hop's phases, a slow hop's
// cause, a ratio of two figures — can be failed by work that is not its
// own: a compile on the other CPU, another benchmark, the host stealing the
// vCPU. ctxbench itself never averages such a block in (it measures the
// contention of every block and runs it again); its tests do the same.
//
// Run runs a measurement and its checks as one attempt, and accounts for
// the machine's CPUs meanwhile: whatever was neither idle, nor stolen by
// the hypervisor, nor the test process's own CPU time (its threads, and its
// children once reaped) was other work. An attempt that passes passes. One
// that fails on a quiet machine fails the test at once, exactly as the
// test would without this package. One that fails while other work took
// more than Threshold of a CPU is run again, after waiting (a bounded time)
// for the CPUs to be quiet, up to MaxAttempts in all; if every attempt was
// contended, the least contended one is judged, and the failure says how
// contended it was — never a pass that was not measured.
package quiet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
)

// The bounds of the retries.
const (
	// Threshold is the other work, in CPUs (0.05: 5% of one CPU's time
	// over the attempt), above which an attempt counts as contended.
	// Kernel threads and the test binary's own runtime stay well below it
	// on a quiet machine.
	Threshold = 0.05
	// MaxAttempts bounds the attempts of one Run.
	MaxAttempts = 6
	// QuietWindow is how long the CPUs must be quiet before an attempt
	// that follows a contended one starts, and QuietWait how long Run
	// waits for such a window before it measures anyway.
	QuietWindow = 300 * time.Millisecond
	QuietWait   = 30 * time.Second
)

// Attempt is the testing.TB one attempt's measurement and checks are given:
// its failures are held until Run knows whether the CPUs were quiet, and
// its clean-ups run when the attempt ends (a competitor a test started is
// stopped before the next attempt starts its own). Everything else (Logf,
// TempDir, Name, Skip) is the test's own.
type Attempt struct {
	testing.TB
	n        int
	failed   bool
	fatal    bool
	msgs     []string
	cleanups []func()
	own      float64 // the measurement's own account of other work (Contention); -1 without one
}

// Contention gives the attempt's measurement's own account of the other
// work it met, in CPUs (for a ctxbench run: from its document's blocks,
// each measured on its own CPUs), which then stands in for Run's account
// of the whole attempt. A ctxbench run waits out bursts of other work and
// measures its contended blocks again, so its kept blocks can be clean
// where the attempt as a whole was not.
func (a *Attempt) Contention(cpus float64) { a.own = cpus }

// fatalAttempt ends an attempt from Fatal/FailNow: it unwinds to Run, which
// keeps the failure for its judgement.
type fatalAttempt struct{}

// Cleanup runs f when the attempt ends, before the next one starts.
func (a *Attempt) Cleanup(f func()) { a.cleanups = append(a.cleanups, f) }

// Fail marks the attempt failed.
func (a *Attempt) Fail() { a.failed = true }

// Failed says whether the attempt has failed.
func (a *Attempt) Failed() bool { return a.failed }

// FailNow marks the attempt failed and ends it.
func (a *Attempt) FailNow() {
	a.failed, a.fatal = true, true
	panic(fatalAttempt{})
}

// Error is Log then Fail.
func (a *Attempt) Error(args ...any) { a.fail(fmt.Sprintln(args...)) }

// Errorf is Logf then Fail.
func (a *Attempt) Errorf(format string, args ...any) { a.fail(fmt.Sprintf(format, args...)) }

// Fatal is Log then FailNow.
func (a *Attempt) Fatal(args ...any) {
	a.fail(fmt.Sprintln(args...))
	a.FailNow()
}

// Fatalf is Logf then FailNow.
func (a *Attempt) Fatalf(format string, args ...any) {
	a.fail(fmt.Sprintf(format, args...))
	a.FailNow()
}

func (a *Attempt) fail(msg string) {
	a.failed = true
	a.msgs = append(a.msgs, strings.TrimSuffix(msg, "\n"))
}

// Number is the attempt's number, from 1.
func (a *Attempt) Number() int { return a.n }

// Run runs measure as attempts until one passes, one fails on quiet CPUs,
// or MaxAttempts were made (see the package comment). measure is given
// the attempt as its testing.TB; it must not keep it past its return.
func Run(t testing.TB, measure func(t testing.TB)) {
	t.Helper()
	type judged struct {
		a     *Attempt
		other float64
	}
	var tried []judged
	for n := 1; n <= MaxAttempts; n++ {
		if n > 1 && !waitQuiet() {
			t.Logf("quiet: no quiet %v on the CPUs in %v; measuring anyway", QuietWindow, QuietWait)
		}
		a := &Attempt{TB: t, n: n, own: -1}
		before := readCPUs()
		a.run(measure)
		other := readCPUs().otherSince(before)
		if a.own >= 0 {
			other = a.own
		}
		if !a.failed {
			if n > 1 {
				t.Logf("quiet: attempt %d passed (other work %.2f CPU)", n, other)
			}
			return
		}
		if other <= Threshold {
			a.report(t, "")
			return
		}
		t.Logf("quiet: attempt %d failed while other work took %.2f CPU: %s", n, other, strings.Join(a.msgs, "; "))
		tried = append(tried, judged{a, other})
	}
	least := slices.MinFunc(tried, func(x, y judged) int {
		switch {
		case x.other < y.other:
			return -1
		case x.other > y.other:
			return 1
		}
		return 0
	})
	least.a.report(t, fmt.Sprintf("every one of %d attempts was contended; judged the least (attempt %d, other work %.2f CPU)",
		len(tried), least.a.n, least.other))
}

// run runs one attempt: measure, then its clean-ups, last first.
func (a *Attempt) run(measure func(testing.TB)) {
	defer func() {
		for i := len(a.cleanups) - 1; i >= 0; i-- {
			a.cleanups[i]()
		}
	}()
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(fatalAttempt); !ok {
				panic(r)
			}
		}
	}()
	measure(a)
}

// report fails t with the attempt's failures (and ends it where the attempt
// was ended by a Fatal).
func (a *Attempt) report(t testing.TB, note string) {
	t.Helper()
	if note != "" {
		t.Errorf("quiet: %s", note)
	}
	for _, m := range a.msgs {
		t.Error(m)
	}
	if len(a.msgs) == 0 {
		t.Fail()
	}
	if a.fatal {
		t.FailNow()
	}
}

// The package's only contact with the machine (its tests script both).
var (
	// readCPUs reads the machine's CPU time and this process's own.
	readCPUs = read
	// waitQuiet waits, keeping the CPUs busy, until they were quiet for a
	// whole QuietWindow, for at most QuietWait; it says whether it found
	// such a window.
	waitQuiet = func() bool {
		cpus := host.OtherCPUs(nil)
		return host.WaitQuiet(context.Background(), cpus, Threshold/float64(max(1, len(cpus))), QuietWindow, QuietWait)
	}
)

// reading is the machine's CPU time and the process's own at one moment.
type reading struct {
	clock host.CPUClock
	own   int64
	cpus  int
}

func read() reading {
	cpus := host.OtherCPUs(nil) // every online CPU
	return reading{clock: host.ReadCPUClock(cpus), own: host.OwnCPU(), cpus: len(cpus)}
}

// otherSince is the other work since r0, in CPUs: the CPUs' time that was
// neither idle nor this process's (or its reaped children's); time the
// hypervisor stole is not idle, so it counts too.
func (r reading) otherSince(r0 reading) float64 {
	return host.OtherShare(r0.clock, r.clock, r.own-r0.own, r.cpus) * float64(r.cpus)
}
