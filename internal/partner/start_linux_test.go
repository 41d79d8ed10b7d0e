package partner

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A partner already gone when its request is sent: Start says so and
// returns, the partner reaped (it once waited for ever for an exit that no
// reaper was yet there to report).
func TestStartPartnerGoneBeforeRequest(t *testing.T) {
	s := Spec{Exe: "/bin/true", Start: func(cmd *exec.Cmd) error {
		if err := cmd.Start(); err != nil {
			return err
		}
		// Its exit, without reaping it: its end of the stdin pipe is closed.
		var info unix.Siginfo
		return unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
	}}
	done := make(chan error, 1)
	go func() {
		_, err := Start(context.Background(), s)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "sending the partner its request") {
			t.Fatalf("Start: %v, want the request's failure", err)
		}
	case <-time.After(time.Minute): // a hang's deadline, not a timing
		t.Fatal("Start did not return")
	}
}
