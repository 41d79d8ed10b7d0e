package setup

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	ctx := context.Background()
	if err := Run(ctx, "set-up A", "true", time.Minute); err != nil {
		t.Fatalf("true: %v", err)
	}
	err := Run(ctx, "set-up B", "echo first; echo 'no such knob' >&2; exit 3", time.Minute)
	var e *Error
	if !errors.As(err, &e) || e.Status != 3 || e.TimedOut || e.Last != "no such knob" || e.What != "set-up B" {
		t.Fatalf("exit 3: %#v", err)
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "status 3") || !strings.Contains(msg, "set-up B") {
		t.Errorf("message %q: want one line naming the command and its status", msg)
	}
}

// A command that hangs is killed at its timeout with everything it
// started: a child it forked into the background dies with its group.
func TestRunHangKillsTheGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	start := time.Now()
	err := Run(context.Background(), "set-up A", "sleep 300 & echo $! > "+pidFile+"; wait", 500*time.Millisecond)
	var e *Error
	if !errors.As(err, &e) || !e.TimedOut || e.Status != -1 {
		t.Fatalf("hang: %#v", err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("a 0.5 s timeout took %v", took)
	}
	b, rerr := os.ReadFile(pidFile)
	if rerr != nil {
		t.Fatal(rerr)
	}
	var pid int
	for _, c := range strings.TrimSpace(string(b)) {
		pid = pid*10 + int(c-'0')
	}
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			t.Fatalf("the background child %d survived its set-up command", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// An interrupted run: the context's error, and nothing left either.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, "set-up B", "sleep 300", time.Minute); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
