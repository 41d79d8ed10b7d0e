package host

// perfgate.go: measured blocks wait for the scheduler's perf hooks to
// switch off after a per-task perf event closes.
//
// Opening a perf event on a task (pid != -1) switches on the scheduler's
// perf hooks (the perf_sched_events static key), and every context switch
// then pays for them; closing the last one switches them off only from
// delayed work one second later (kernel/events/core.c, unaccount_event:
// schedule_delayed_work(&perf_sched_work, HZ)). Measured on the reference
// machine, a ring of 8 processes run in that second cost 3-5% more per hop
// than one run after it. So whoever closes a per-task event notes it, and
// a measured block first waits until the second (with a margin) is over.

import (
	"context"
	"sync/atomic"
	"time"
)

// PerfHooksOff is how long after the last per-task perf event closed the
// kernel's scheduler hooks stay on: one second (HZ jiffies), plus a margin
// for the delayed work to run.
const PerfHooksOff = 1200 * time.Millisecond

var perfClosed atomic.Int64 // UnixNano of the last close of a per-task perf event

// NotePerfClosed records that this process (or a worker it waited for)
// just closed per-task perf events.
func NotePerfClosed() { perfClosed.Store(time.Now().UnixNano()) }

// WaitPerfHooksOff waits until PerfHooksOff has passed since the last
// NotePerfClosed, keeping cpus busy meanwhile (BusyUntil: the block that
// follows runs on them, and an idle vCPU runs slower for a while after);
// it returns at once when none was noted or it has passed, and early with
// ctx's error.
func WaitPerfHooksOff(ctx context.Context, cpus []int) error {
	last := perfClosed.Load()
	if last == 0 {
		return nil
	}
	end := time.Unix(0, last).Add(PerfHooksOff)
	if time.Until(end) <= 0 {
		return nil
	}
	BusyUntil(ctx, cpus, end)
	return ctx.Err()
}
