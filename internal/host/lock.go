package host

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
	f, writable, err := openLock(path)
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
	// Say who holds it, for whoever waits next (a user who may only read
	// the file still locks it, and leaves the name unsaid).
	if writable {
		_ = f.Truncate(0)
		_, _ = f.WriteAt([]byte(fmt.Sprintf("%d %s\n", os.Getpid(), strings.Join(os.Args, " "))), 0)
	}
	return func() {
		if writable {
			_ = f.Truncate(0)
		}
		_ = unix.Flock(fd, unix.LOCK_UN)
		f.Close()
	}, nil
}

// openLock opens the lock file so that every user of the machine can lock
// it: flock needs only an open descriptor, so a file another user created
// is opened read-only when it may not be written. It is created without
// following an existing file (O_EXCL: a sticky /run/lock with
// protected_regular refuses O_CREAT on another user's file, even to root)
// and made writable by all, whatever the umask.
func openLock(path string) (f *os.File, writable bool, err error) {
	for range 2 {
		if f, err = os.OpenFile(path, os.O_RDWR, 0); err == nil {
			return f, true, nil
		}
		if errors.Is(err, os.ErrPermission) {
			f, err = os.Open(path)
			return f, false, err
		}
		if !errors.Is(err, os.ErrNotExist) {
			return nil, false, err
		}
		if f, err = os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666); err == nil {
			_ = f.Chmod(0o666)
			return f, true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, false, err
		}
		// Another process created it between the two opens: open it again.
	}
	return nil, false, err
}

func holderOf(path string) string {
	b, _ := os.ReadFile(path)
	pid, cmd, ok := strings.Cut(strings.TrimSpace(string(b)), " ")
	if _, err := strconv.Atoi(pid); !ok || err != nil {
		return "holder unknown"
	}
	return "pid " + pid + ": " + cmd
}
