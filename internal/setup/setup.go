// Package setup runs the set-up commands of an interleaved A/B (ctxbench
// ab): a user's shell command, in a process group of its own, bounded by a
// timeout, its group killed when it outlives it or the run is interrupted,
// so nothing it started outlives the call.
package setup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
)

// Error is a set-up command that failed: which one, and its exit status
// (-1 when it did not exit by itself: killed at its timeout, or by a
// signal), with the last line it printed.
type Error struct {
	What, Command string
	Status        int
	TimedOut      bool
	Last          string
}

func (e *Error) Error() string {
	how := fmt.Sprintf("exited with status %d", e.Status)
	switch {
	case e.TimedOut:
		how = "did not finish within its timeout and was killed"
	case e.Status < 0:
		how = "was killed by a signal"
	}
	msg := fmt.Sprintf("%s %q %s", e.What, e.Command, how)
	if e.Last != "" {
		msg += ": " + e.Last
	}
	return msg
}

// Run runs command with sh -c, its standard output and error captured,
// within timeout. what names it in an error ("set-up A"). It returns nil
// on exit status 0, an *Error otherwise, or ctx's error when ctx ended
// first; in every case the command's whole process group is gone.
func Run(ctx context.Context, what, command string, timeout time.Duration) error {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.Command("/bin/sh", "-c", command)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = host.DieWithParent(&syscall.SysProcAttr{Setpgid: true})
	if err := cmd.Start(); err != nil {
		return &Error{What: what, Command: command, Status: -1, Last: err.Error()}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-tctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	// Whatever the command left in its group (a daemon it forked) goes too.
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err == nil {
		return nil
	}
	e := &Error{What: what, Command: command, Status: -1, TimedOut: errors.Is(tctx.Err(), context.DeadlineExceeded), Last: lastLine(out.String())}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.Exited() {
		e.Status = ee.ExitCode()
	}
	return e
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	l := strings.TrimSpace(lines[len(lines)-1])
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return l
}
