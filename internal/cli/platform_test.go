package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/host/platform"
)

// `ctxbench list` of a darwin build, with the macOS answers run here: every
// rung is listed, and each unavailable row says the platform's reason.
func TestListAsDarwin(t *testing.T) {
	saved := platform.This
	platform.This = platform.Darwin
	defer func() { platform.This = saved }()
	status, out, errOut := run(t, "list", "--format", "json")
	if status != ExitOK {
		t.Fatalf("list: status %d, %s", status, errOut)
	}
	var entries []listEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	rungs := map[string]bool{}
	for _, e := range entries {
		rungs[e.Rung] = true
		if !e.Available && e.Reason == "" {
			t.Errorf("%s is unavailable without a reason", e.Name)
		}
		if (strings.Contains(e.Name, "futex") && e.Rung != "container") || e.Name == "thread/eventfd" {
			t.Errorf("macOS lists Linux's %s", e.Name)
		}
		if (e.Rung == "container" || e.Rung == "vm") && e.Available {
			t.Errorf("macOS offers %s", e.Name)
		}
	}
	for _, r := range []string{"floor", "goroutine", "runtime", "thread", "process", "container", "vm", "reference"} {
		if !rungs[r] {
			t.Errorf("list on macOS has no %s row", r)
		}
	}
}

// A pinned placement or a CPU list asked of a build that cannot pin is bad
// input, refused in one line with the platform's reason.
func TestPinningRefusedAsDarwin(t *testing.T) {
	saved := platform.This
	platform.This = platform.Darwin
	defer func() { platform.This = saved }()
	for _, args := range [][]string{
		{"run", "thread/pipe", "--placement", "same-cpu", "--dry-run"},
		{"run", "thread/pipe", "--placement", "cross-cpu", "--dry-run"},
		{"run", "thread/pipe", "--cpus", "0", "--dry-run"},
	} {
		status, _, errOut := run(t, args...)
		if status != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "cannot pin") {
			t.Errorf("%v: status %d, stderr %q", args, status, errOut)
		}
	}
}

// attach asked of a build without BPF (macOS) is refused in one line with
// the platform's reason, before a target is looked for.
func TestAttachRefusedAsDarwin(t *testing.T) {
	saved := platform.This
	platform.This = platform.Darwin
	defer func() { platform.This = saved }()
	_, why := platform.Darwin.Gives(platform.BPF)
	for _, args := range [][]string{
		{"attach", "--pid", "1", "--duration", "1s"},
		{"attach", "--all", "--duration", "1s"},
		{"attach", "--cgroup", "/", "--duration", "1s"},
	} {
		status, _, errOut := run(t, args...)
		if status != ExitUsage || strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, why) {
			t.Errorf("%v: status %d, stderr %q", args, status, errOut)
		}
	}
}
