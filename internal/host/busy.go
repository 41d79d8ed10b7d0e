package host

// busy.go: waiting between measured blocks without letting the measured
// CPUs go idle.
//
// A virtual CPU that idles halts, and the host then treats its thread as
// idle: on the reference machine (AMD EPYC, 2-vCPU Firecracker/KVM guest)
// a same-CPU pipe hop ran 15–20% slower for about 0.4 s after the vCPU had
// slept 0.2–1 s, and not at all after it had slept 10 ms or spun for 1 s
// (docs/methodology.md, "Waiting without idling"). Every wait the
// scheduler makes between blocks — the pacing of rounds over the span, the
// wait for perf's scheduler hooks to switch off — therefore keeps the CPUs
// the next blocks run on busy, as back-to-back blocks would, instead of
// sleeping.

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// spinCheck is how many rounds of the spinning loop run between reads of
// the clock: a few microseconds, so a wait overshoots its end by no more.
const spinCheck = 2000

// BusyUntil keeps each of cpus busy until t (or ctx is done): one OS
// thread pinned to each CPU spins on plain integer work. With no cpus it
// sleeps instead. The threads are retired when they finish (they exit
// locked, so the runtime never reuses a pinned thread).
func BusyUntil(ctx context.Context, cpus []int, t time.Time) {
	if time.Until(t) <= 0 {
		return
	}
	if len(cpus) == 0 {
		sleepUntil(ctx, t)
		return
	}
	var wg sync.WaitGroup
	for _, c := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
			if PinThread([]int{c}) != nil {
				sleepUntil(ctx, t) // a CPU we may not use (or a platform that cannot pin): wait without it
				return
			}
			spin(ctx, t)
		}()
	}
	wg.Wait()
}

// spin runs integer work until t or ctx is done.
func spin(ctx context.Context, t time.Time) {
	x := uint64(1)
	for time.Now().Before(t) && ctx.Err() == nil {
		for range spinCheck {
			x = x*6364136223846793005 + 1442695040888963407
		}
	}
	sink.Store(x)
}

// sink keeps the spinning loop's result alive, so it is not optimised away.
var sink atomic.Uint64

func sleepUntil(ctx context.Context, t time.Time) {
	timer := time.NewTimer(time.Until(t))
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}

// WaitQuiet waits for a stretch in which other work leaves cpus alone: it
// keeps them busy (as BusyUntil, so they never idle) in windows of window,
// and returns true at the end of the first window in which other work took
// at most limit of their time — what was neither idle nor this process's
// own CPU time — or false once bound has passed (or ctx is done) without
// one. Its own spinning is this process's time, so only others' shows: a
// task of another process on one of cpus takes its share of that CPU from
// the spinner and is seen. Bursty neighbours (a compile, another
// benchmark) leave quiet stretches; a block measured again in one of them
// is clean, where one run again at once lands in the same burst.
func WaitQuiet(ctx context.Context, cpus []int, limit float64, window, bound time.Duration) bool {
	end := time.Now().Add(bound)
	for time.Now().Before(end) && ctx.Err() == nil {
		c0, own0 := ReadCPUClock(cpus), OwnCPU()
		BusyUntil(ctx, cpus, time.Now().Add(window))
		if OtherShare(c0, ReadCPUClock(cpus), OwnCPU()-own0, len(cpus)) <= limit {
			return true
		}
	}
	return false
}
