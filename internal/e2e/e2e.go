// Package e2e helps end-to-end tests drive the built ctxbench binary: build
// it once, list the processes running it, and assert that none is left.
// Only tests import it.
package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Build compiles ./cmd/ctxbench (pkg is its path relative to the caller's
// directory) into a fresh directory readable by every user, and returns the
// binary and a function that removes it.
func Build(pkg string) (string, func(), error) {
	dir, err := os.MkdirTemp("", "ctxbench-e2e-")
	if err != nil {
		return "", nil, err
	}
	_ = os.Chmod(dir, 0o755) // tests also run it as an unprivileged user
	bin := filepath.Join(dir, "ctxbench")
	if out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", nil, fmt.Errorf("building ctxbench: %w\n%s", err, out)
	}
	return bin, func() { os.RemoveAll(dir) }, nil
}

// AssertNothingLeft fails t if a process running bin is still alive after
// timeout.
func AssertNothingLeft(t *testing.T, bin string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		left := Processes(bin)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d processes left behind, e.g. %v", len(left), left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitFor polls until a process running bin whose argv contains role
// appears, and returns its pid.
func WaitFor(t *testing.T, bin, role string, timeout time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		for pid, argv := range Processes(bin) {
			if strings.Contains(argv, role) {
				return pid
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no %s process appeared within %v", role, timeout)
	return 0
}
