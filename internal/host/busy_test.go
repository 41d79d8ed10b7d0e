package host

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func cpuTime(t *testing.T) time.Duration {
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
	cpus, err := Of(0)
	if err != nil {
		t.Fatal(err)
	}
	const wait = 300 * time.Millisecond
	before := cpuTime(t)
	start := time.Now()
	BusyUntil(context.Background(), cpus[len(cpus)-1:], start.Add(wait))
	if took := time.Since(start); took < wait {
		t.Errorf("returned after %v, before its time (%v)", took, wait)
	}
	if used := cpuTime(t) - before; used < wait/2 {
		t.Errorf("the wait used %v of CPU time in %v: the CPU idled instead of staying busy", used, wait)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start = time.Now()
	BusyUntil(ctx, cpus[:1], start.Add(time.Hour))
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a cancelled wait took %v", took)
	}
	// No CPUs: a plain sleep, which uses almost no CPU time.
	before = cpuTime(t)
	BusyUntil(context.Background(), nil, time.Now().Add(wait))
	if used := cpuTime(t) - before; used > wait/2 {
		t.Errorf("a wait with no CPUs to keep busy used %v of CPU time", used)
	}
}
