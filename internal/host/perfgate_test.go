package host

import (
	"context"
	"errors"
	"testing"
	"time"
)

// After a per-task perf event closed, a measured block starts only once
// the kernel's delayed switch-off of the scheduler hooks is due; a
// cancelled wait returns the context's error at once.
func TestWaitPerfHooksOff(t *testing.T) {
	NotePerfClosed()
	closed := time.Unix(0, perfClosed.Load())
	if err := WaitPerfHooksOff(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if since := time.Since(closed); since < PerfHooksOff {
		t.Errorf("returned %v after the close, before the hooks go off (%v)", since, PerfHooksOff)
	}
	NotePerfClosed()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := WaitPerfHooksOff(ctx, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}
