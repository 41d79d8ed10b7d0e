package machine

// lock.go: two ctxbench measurements never overlap on one machine — each
// would be the other's noise. A measuring command holds an exclusive flock
// on one file for the whole run; the kernel drops it when the process dies,
// however it dies, so no stale lock can outlive a killed run.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// ErrBusy says another measurement holds the lock.
var ErrBusy = errors.New("another ctxbench is measuring on this machine")

// LockPath is the machine-wide lock file: /run/lock when this process may
// write there (every user of the machine sees it), else the temporary
// directory; CTXBENCH_LOCK overrides both (tests use it).
func LockPath() string {
	if p := os.Getenv("CTXBENCH_LOCK"); p != "" {
		return p
	}
	if unix.Access("/run/lock", unix.W_OK) == nil {
		return "/run/lock/ctxbench.lock"
	}
	return filepath.Join(os.TempDir(), "ctxbench.lock")
}

// LockMeasurements takes the lock. When another process holds it, it calls
// waiting once with who holds it and waits up to timeout (wait false: it
// returns ErrBusy at once); cancelling ctx stops the wait. release gives
// the lock back.
func LockMeasurements(ctx context.Context, wait bool, timeout time.Duration, waiting func(holder string)) (release func(), err error) {
	path := LockPath()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil, fmt.Errorf("measurement lock %s: %w", path, err)
	}
	fd := int(f.Fd())
	deadline := time.Now().Add(timeout)
	told := false
	for {
		err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			f.Close()
			return nil, fmt.Errorf("measurement lock %s: %w", path, err)
		}
		holder := holderOf(path)
		if !wait {
			f.Close()
			return nil, fmt.Errorf("%w (%s); --no-wait refuses to wait for it", ErrBusy, holder)
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("%w (%s); gave up after waiting %v (--lock-timeout)", ErrBusy, holder, timeout)
		}
		if !told && waiting != nil {
			waiting(holder)
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	// Say who holds it, for whoever waits next.
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(fmt.Sprintf("%d %s\n", os.Getpid(), strings.Join(os.Args, " "))), 0)
	return func() {
		_ = f.Truncate(0)
		_ = unix.Flock(fd, unix.LOCK_UN)
		f.Close()
	}, nil
}

func holderOf(path string) string {
	b, _ := os.ReadFile(path)
	pid, cmd, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	if _, err := strconv.Atoi(pid); !ok || err != nil {
		return "holder unknown"
	}
	return "pid " + pid + ": " + cmd
}
