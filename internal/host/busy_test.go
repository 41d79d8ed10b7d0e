// An outside test package: the waits are judged on quiet CPUs only
// (internal/testenv/quiet, which imports host).
package host_test

import (
	"context"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/testenv/quiet"
)

func cpuTime(t testing.TB) time.Duration {
	t.Helper()
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A busy wait ends at its time, not before, and keeps its CPU busy while it
// waits (the process's CPU time grows by most of the wait: a sleep would
// add almost none); cancelling it returns at once.
func TestBusyUntil(t *testing.T) {
	cpus, err := host.Of(0)
	if err != nil {
		t.Fatal(err)
	}
	const wait = 300 * time.Millisecond
	quiet.Run(t, func(t testing.TB) {
		before := cpuTime(t)
		start := time.Now()
		host.BusyUntil(context.Background(), cpus[len(cpus)-1:], start.Add(wait))
		if took := time.Since(start); took < wait {
			t.Errorf("returned after %v, before its time (%v)", took, wait)
		}
		if used := cpuTime(t) - before; used < wait/2 {
			t.Errorf("the wait used %v of CPU time in %v: the CPU idled instead of staying busy", used, wait)
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	host.BusyUntil(ctx, cpus[:1], start.Add(time.Hour))
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a cancelled wait took %v", took)
	}
	// No CPUs: a plain sleep, which uses almost no CPU time.
	before := cpuTime(t)
	host.BusyUntil(context.Background(), nil, time.Now().Add(wait))
	if used := cpuTime(t) - before; used > wait/2 {
		t.Errorf("a wait with no CPUs to keep busy used %v of CPU time", used)
	}
}

// WaitQuiet finds a quiet window on quiet CPUs, and none while another
// process spins on the CPU it watches (that process takes about half of
// the CPU from the wait's own spinner: far above the limit).
func TestWaitQuiet(t *testing.T) {
	cpus, err := host.Of(0)
	if err != nil {
		t.Fatal(err)
	}
	cpu := cpus[len(cpus)-1:]
	quiet.Run(t, func(t testing.TB) {
		start := time.Now()
		if !host.WaitQuiet(context.Background(), cpu, 0.10, 100*time.Millisecond, 2*time.Second) {
			t.Errorf("no quiet window on CPU %v in 2 s", cpu)
		}
		if took := time.Since(start); took < 100*time.Millisecond {
			t.Errorf("returned after %v, before a whole window", took)
		}
	})
	spinner := exec.Command("sh", "-c", "while :; do :; done")
	if err := host.StartPinned(spinner, cpu); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = spinner.Process.Kill(); _ = spinner.Wait() }()
	start := time.Now()
	if host.WaitQuiet(context.Background(), cpu, 0.10, 100*time.Millisecond, 600*time.Millisecond) {
		t.Errorf("a quiet window on CPU %v while another process spun there", cpu)
	}
	if took := time.Since(start); took < 600*time.Millisecond || took > 5*time.Second {
		t.Errorf("gave up after %v, want its bound (600 ms)", took)
	}
}
