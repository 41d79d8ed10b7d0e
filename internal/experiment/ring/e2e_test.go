package ring

// End-to-end tests of `ctxbench ring` with the real binary: small rings of
// every kind count exactly the hops they should, a member killed mid-ring
// ends the run with nothing left behind, limits and bad input are one line
// and exit status 2. Timing is never asserted.

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/e2e"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

var bin string

func TestMain(m *testing.M) {
	var cleanup func()
	var err error
	bin, cleanup, err = e2e.Build("../../../cmd/ctxbench")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.Exit(code)
}

func ours() map[int]string { return e2e.Processes(bin) }

func assertNothingLeft(t *testing.T) { t.Helper(); e2e.AssertNothingLeft(t, bin, 10*time.Second) }

func ringRun(t *testing.T, args ...string) *result.Document {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ring.json")
	cmd := exec.Command(bin, append([]string{"ring", "--quick", "--no-perf-check", "--export-json", out}, args...)...)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ctxbench ring %v: %v\n%s", args, err, b)
	}
	doc, err := result.Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// Every kind at small N: each member passed the token once per round, so
// hops counted = tasks × rounds, exactly; kernel kinds counted about one
// switch per hop on one CPU.
func TestRingCountsEveryKind(t *testing.T) {
	needPinning(t)
	testenv.SkipShort(t, "starts real rings")
	cases := [][]string{
		{"--kind", "goroutine"},
		{"--kind", "thread"},
		{"--kind", "process"},
		{"--kind", "process-mt"},
		{"--kind", "thread,process", "--ipc", "eventfd"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			doc := ringRun(t, append(args, "--tasks", "2,5", "--working-set", "0,4KiB", "--placement", "same-cpu")...)
			if len(doc.Failures) > 0 {
				t.Fatalf("failures: %+v", doc.Failures)
			}
			want := 4
			if strings.Contains(strings.Join(args, " "), ",") {
				want = 8
			}
			if len(doc.Rings) != want {
				t.Fatalf("%d ring points, want %d", len(doc.Rings), want)
			}
			for _, r := range doc.Rings {
				name := fmt.Sprintf("%s N=%d ws=%d", r.Kind, r.Tasks, r.WorkingSetB)
				if r.HopsExpected == 0 || r.HopsCounted != r.HopsExpected {
					t.Errorf("%s: %v hops counted, %v expected", name, r.HopsCounted, r.HopsExpected)
				}
				if int(r.HopsExpected)%r.Tasks != 0 {
					t.Errorf("%s: %v hops is not a whole number of rounds", name, r.HopsExpected)
				}
				if len(r.Samples) != 6 || len(r.OverheadSamples) != 6 || r.RawNS.Median <= 0 || r.OverheadNS.Median <= 0 {
					t.Errorf("%s: samples %d/%d raw %v overhead %v", name, len(r.Samples), len(r.OverheadSamples), r.RawNS.Median, r.OverheadNS.Median)
				}
				// The net is raw − overhead block by block: its interval's
				// median, or with one block the difference of the medians.
				if iv := r.NetInterval; (iv == nil && r.NetNS != r.RawNS.Median-r.OverheadNS.Median) || (iv != nil && r.NetNS != iv.Median) {
					t.Errorf("%s: net %v is not raw - overhead (interval %+v)", name, r.NetNS, iv)
				}
				if r.Kind == "goroutine" {
					if r.SwitchesPerHop != nil {
						t.Errorf("%s: a goroutine ring claims kernel switches", name)
					}
					continue
				}
				// At least one switch per hop; preemptions may add some.
				if r.SwitchesPerHop == nil || *r.SwitchesPerHop < 0.9 || *r.SwitchesPerHop > 3 {
					t.Errorf("%s: switches per hop %v", name, r.SwitchesPerHop)
				}
			}
			assertNothingLeft(t)
		})
	}
}

// A member process killed in the middle of the ring ends the run with a
// failure (the next member reads end-of-file, or for eventfds the head is
// told), and every other member is gone.
func TestKilledMemberEndsTheRing(t *testing.T) {
	testenv.SkipShort(t, "starts real rings")
	for _, ipc := range []string{"pipe", "eventfd"} {
		t.Run(ipc, func(t *testing.T) {
			cmd := exec.Command(bin, "ring", "--kind", "process", "--tasks", "24", "--working-set", "0", "--ipc", ipc,
				"--runs", "200", "--samples-per-block", "200", "--min-time", "50ms", "--no-perf-check", "--quiet")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			victim := 0
			deadline := time.Now().Add(30 * time.Second)
			for victim == 0 && time.Now().Before(deadline) {
				n := 0
				for pid, argv := range ours() {
					if strings.Contains(argv, "__partner") {
						n++
						victim = pid
					}
				}
				if n < 23 {
					victim = 0
					time.Sleep(20 * time.Millisecond)
				}
			}
			if victim == 0 {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatal("the ring's members never all started")
			}
			time.Sleep(300 * time.Millisecond) // inside the timed rounds
			syscall.Kill(victim, syscall.SIGKILL)
			if !waitOrKill(cmd, 60*time.Second) {
				t.Fatal("the ring did not end after a member was killed")
			}
			if code := cmd.ProcessState.ExitCode(); code != 1 {
				t.Errorf("exit status %d, want 1 (stderr %q)", code, stderr.String())
			}
			if !strings.Contains(stderr.String(), "ring") {
				t.Errorf("stderr does not say what failed: %q", stderr.String())
			}
			assertNothingLeft(t)
		})
	}
}

// SIGINT in the middle of a process ring: exit 130, nothing left.
func TestInterruptedRingLeavesNothing(t *testing.T) {
	testenv.SkipShort(t, "starts real rings")
	cmd := exec.Command(bin, "ring", "--kind", "process", "--tasks", "16", "--working-set", "0",
		"--runs", "400", "--samples-per-block", "400", "--min-time", "50ms", "--no-perf-check", "--quiet")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		n := 0
		for _, argv := range ours() {
			if strings.Contains(argv, "__partner") {
				n++
			}
		}
		if n >= 15 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	if !waitOrKill(cmd, 30*time.Second) {
		t.Fatal("the ring did not stop on SIGINT")
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit status %d, want 130", code)
	}
	assertNothingLeft(t)
}

// Limits and bad input: exit status 2 and one line that names the problem.
func TestRingBadInputAndLimits(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--kind", "thread", "--tasks", "5000000"}, "threads"},
		{[]string{"--kind", "process", "--tasks", "10000000"}, "processes"},
		{[]string{"--kind", "goroutine", "--tasks", "1000000", "--working-set", "1GiB"}, "MemAvailable"},
		{[]string{"--kind", "vm"}, "unknown ring kind"},
		{[]string{"--tasks", "1"}, "at least 2"},
		{[]string{"--tasks", "x"}, "--tasks"},
		{[]string{"--working-set", "12"}, "multiple of 8"},
		{[]string{"--working-set", "4XB"}, "unit"},
		{[]string{"--ipc", "carrier-pigeon"}, "--ipc"},
		{[]string{"--kind", "container", "--container", "nope"}, "preset"},
		{[]string{"--export-csv", "x.csv"}, "--export-csv"},
		{[]string{"--placement", "sideways"}, "placement"},
	}
	for _, c := range cases {
		cmd := exec.Command(bin, append([]string{"ring", "--quiet"}, c.args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
		if code != 2 || len(lines) != 1 || !strings.HasPrefix(lines[0], "ctxbench: ") || !strings.Contains(lines[0], c.want) {
			t.Errorf("ring %v: exit %d, stderr %q; want 2 and one line naming %q", c.args, code, stderr.String(), c.want)
		}
	}
}

// The dry run measures nothing, starts no worker, and gives the same
// points for the same seed.
func TestRingDryRunIsDeterministic(t *testing.T) {
	get := func() []result.Ring {
		doc := ringRun(t, "--dry-run", "--seed", "7", "--kind", "goroutine,thread,process", "--tasks", "2-64", "--working-set", "0,256KiB,1MiB")
		if !doc.Settings.DryRun || len(doc.Rings) != 3*6*3 {
			t.Fatalf("dry run: %d rings, dry_run %v", len(doc.Rings), doc.Settings.DryRun)
		}
		return doc.Rings
	}
	a, b := get(), get()
	for i := range a {
		if a[i].RawNS.Median != b[i].RawNS.Median || a[i].NetNS != b[i].NetNS || a[i].HopsCounted != b[i].HopsCounted {
			t.Fatalf("point %d differs between two dry runs with one seed", i)
		}
	}
}

// A ring of contained members: counts as exact as a process ring, the
// container is named in the settings, and no cgroup is left.
func TestContainerRing(t *testing.T) {
	testenv.SkipShort(t, "starts real rings")
	b := catalog.Lookup(catalog.RingContainer)
	if ok, why := b.Available(); !ok {
		testenv.SkipFor(t, why, testenv.Root, testenv.CgroupCPU, testenv.Cgo)
	}
	h, err := container.CPUHierarchy()
	if err != nil {
		testenv.Skip(t, testenv.CgroupCPU, "%v", err)
	}
	doc := ringRun(t, "--kind", "container", "--tasks", "2,5", "--working-set", "0", "--container", "full")
	if len(doc.Failures) > 0 || len(doc.Rings) != 2 {
		t.Fatalf("failures %+v, %d rings", doc.Failures, len(doc.Rings))
	}
	for _, r := range doc.Rings {
		if r.HopsCounted != r.HopsExpected || r.HopsExpected == 0 {
			t.Errorf("N=%d: hops %v/%v", r.Tasks, r.HopsCounted, r.HopsExpected)
		}
		named := false
		for _, s := range r.Settings {
			named = named || strings.HasPrefix(s, "container: ")
		}
		if !named || hasFlag(r, "isolation") {
			t.Errorf("N=%d: settings %v flags %+v", r.Tasks, r.Settings, r.Flags)
		}
	}
	assertNothingLeft(t)
	ents, _ := os.ReadDir(h.Mount)
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), container.NamePrefix) {
			t.Errorf("cgroup left behind: %s", filepath.Join(h.Mount, e.Name()))
		}
	}
}

// A member that stops (SIGSTOP) hangs the ring: the watchdog kills the
// block, the run fails, and nothing is left (the stopped member included).
func TestHungMemberHitsTheWatchdog(t *testing.T) {
	testenv.SkipShort(t, "starts real rings")
	cmd := exec.Command(bin, "ring", "--kind", "process", "--tasks", "8", "--working-set", "0", "--timeout", "4s",
		"--runs", "400", "--samples-per-block", "400", "--min-time", "50ms", "--no-perf-check", "--quiet")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	victim := 0
	for deadline := time.Now().Add(30 * time.Second); victim == 0 && time.Now().Before(deadline); {
		n, last := 0, 0
		for pid, argv := range ours() {
			if strings.Contains(argv, "__partner") {
				n, last = n+1, pid
			}
		}
		if n == 8 { // the head and 7 members, all single-threaded partners
			victim = last
		} else {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if victim == 0 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatal("the ring's members never all started")
	}
	time.Sleep(200 * time.Millisecond)
	syscall.Kill(victim, syscall.SIGSTOP)
	if !waitOrKill(cmd, 60*time.Second) {
		syscall.Kill(victim, syscall.SIGKILL)
		t.Fatal("the watchdog did not end the hung ring")
	}
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "watchdog") {
		t.Errorf("exit %d, stderr %q; want 1 and the watchdog named", code, stderr.String())
	}
	assertNothingLeft(t)
}

// waitOrKill waits up to d for cmd to end; past that it kills cmd and
// returns false.
func waitOrKill(cmd *exec.Cmd, d time.Duration) bool {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		cmd.Process.Kill()
		return false
	}
}

// needPinning skips a test that pins threads where the platform cannot
// (macOS): it declares the capability pinning where it can.
func needPinning(t *testing.T) {
	t.Helper()
	if ok, why := platform.This.Gives(platform.Pinning); !ok {
		testenv.Skip(t, testenv.Pinning, "%s", why)
	}
}
