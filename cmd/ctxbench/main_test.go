package main

// End-to-end tests of the built binary: real measurements (kept short),
// the result contract, and the failure behaviour — a killed partner, a hung
// partner, Ctrl-C and SIGTERM mid-run — each leaving no process behind.
// Timing is never asserted; counts, statuses and leftovers are.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/e2e"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

var bin string

func TestMain(m *testing.M) {
	// The runs of these tests are recorded in a history of their own, not
	// in the machine's (whose sittings they are not).
	data, err := os.MkdirTemp("", "ctxbench-e2e-data-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("XDG_DATA_HOME", data)
	os.Unsetenv("CTXBENCH_HISTORY")
	os.Unsetenv("CTXBENCH_NO_HISTORY")
	var cleanup func()
	bin, cleanup, err = e2e.Build(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	cleanup()
	os.RemoveAll(data)
	os.Exit(code)
}

func assertNothingLeft(t *testing.T) { t.Helper(); e2e.AssertNothingLeft(t, bin, 5*time.Second) }

func waitFor(t *testing.T, role string, timeout time.Duration) int {
	t.Helper()
	return e2e.WaitFor(t, bin, role, timeout)
}

func needCPUs(t *testing.T, n int) {
	if runtime.NumCPU() < n {
		testenv.Skip(t, testenv.CPUs2, "needs %d CPUs, have %d", n, runtime.NumCPU())
	}
}

func TestRealRunContract(t *testing.T) {
	needPinning(t)
	out := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(bin, "run", "thread/pipe", "thread/futex", "process/pipe", "process/futex", "goroutine/chan-gomaxprocs1",
		"reference/syscall", "--placement", "same-cpu", "--quick", "--export-json", out)
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	doc, err := result.Load(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 6 {
		t.Fatalf("%d results, want 6:\n%s", len(doc.Results), b)
	}
	for _, r := range doc.Results {
		if r.Placement != "same-cpu" || !r.Placed.OK {
			t.Errorf("%s: placement %s ok=%v observed A %v B %v", r.Name, r.Placement, r.Placed.OK, r.Placed.ObservedA, r.Placed.ObservedB)
		}
		switch r.Rung {
		case "thread", "process":
			// On one CPU a blocking ping-pong switches once per hop. The
			// margin allows for stray preemptions on a busy machine.
			if r.SwitchesPerHop == nil || *r.SwitchesPerHop < 0.9 || *r.SwitchesPerHop > 1.1 {
				t.Errorf("%s: switches per hop %v, want about 1", r.Name, r.SwitchesPerHop)
			}
		default:
			if r.SwitchesPerHop != nil {
				t.Errorf("%s: switches_per_hop should be null where no kernel switch is expected", r.Name)
			}
		}
		if r.OneWayNS.Median <= 0 || !(r.OneWayNS.P10 <= r.OneWayNS.Median && r.OneWayNS.Median <= r.OneWayNS.P90) {
			t.Errorf("%s: summary out of order %+v", r.Name, r.OneWayNS)
		}
	}
	if doc.Environment.CPU.Logical == 0 || doc.Environment.Kernel == "" {
		t.Errorf("environment not captured: %+v", doc.Environment.CPU)
	}
	assertNothingLeft(t)
}

// A handoff that completes by spinning is not a switch, and the run says so.
func TestSpinningHandoffIsFlagged(t *testing.T) {
	needPinning(t)
	needCPUs(t, 2)
	b, err := exec.Command(bin, "run", "thread/futex-spin", "--placement", "cross-cpu", "--quick", "--export-json", "-", "-q").Output()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := result.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Results[0]
	flagged := false
	for _, f := range r.Flags {
		flagged = flagged || f.Code == "switch-count"
	}
	if !flagged || r.Verification.Verified || r.SwitchesPerHop == nil || *r.SwitchesPerHop > 0.5 {
		t.Fatalf("spinning handoff not flagged: switches per hop %v, flags %+v", r.SwitchesPerHop, r.Flags)
	}
}

// startLong starts a run whose single block lasts far longer than the test.
func startLong(t *testing.T, extra ...string) (*exec.Cmd, *bytes.Buffer) {
	args := append([]string{"run", "process/futex", "--placement", "same-cpu", "--iterations", "20000",
		"--runs", "2000", "--samples-per-block", "2000", "--no-perf-check"}, extra...)
	cmd := exec.Command(bin, args...)
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return cmd, &buf
}

func waitExit(t *testing.T, cmd *exec.Cmd, within time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(within):
		t.Fatalf("ctxbench did not exit within %v", within)
		return -1
	}
}

func TestKilledPartnerEndsTheBlock(t *testing.T) {
	cmd, out := startLong(t)
	pid := waitFor(t, "__partner", 20*time.Second)
	time.Sleep(200 * time.Millisecond)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd, 15*time.Second)
	if code != 1 || !strings.Contains(out.String(), "partner process died") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	assertNothingLeft(t)
}

func TestHungPartnerHitsTheWatchdog(t *testing.T) {
	cmd, out := startLong(t, "--timeout", "3s")
	pid := waitFor(t, "__partner", 20*time.Second)
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd, 20*time.Second)
	if code != 1 || !strings.Contains(out.String(), "watchdog") {
		t.Fatalf("exit %d, output:\n%s", code, out)
	}
	assertNothingLeft(t)
}

func TestSignalsMidRunLeaveNothing(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "keep.json")
			old := []byte(`{"schema_version": 1, "results": []}` + "\n")
			if err := os.WriteFile(path, old, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd, out := startLong(t, "--export-json", path)
			waitFor(t, "__partner", 20*time.Second)
			time.Sleep(200 * time.Millisecond)
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code := waitExit(t, cmd, 10*time.Second)
			if code != 130 {
				t.Fatalf("exit %d after %v, want 130; output:\n%s", code, sig, out)
			}
			assertNothingLeft(t)
			now, _ := os.ReadFile(path)
			if !bytes.Equal(now, old) {
				t.Fatalf("the result file already written was changed")
			}
			ents, _ := os.ReadDir(dir)
			if len(ents) != 1 {
				t.Fatalf("files left in the output directory: %v", ents)
			}
		})
	}
}

func TestDefaultLadderWritesItsFile(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(bin, "--quick")
	cmd.Dir = dir
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || !strings.HasPrefix(ents[0].Name(), "ctxbench-") {
		t.Fatalf("expected one ctxbench-*.json, got %v", ents)
	}
	if !strings.Contains(string(b), "results written to "+ents[0].Name()) {
		t.Fatalf("the file name was not printed:\n%s", b)
	}
	doc, err := result.Load(filepath.Join(dir, ents[0].Name()), nil)
	if err != nil {
		t.Fatal(err)
	}
	rungs := map[string]bool{}
	for _, r := range doc.Results {
		rungs[r.Rung] = true
	}
	for _, want := range []string{"floor", "goroutine", "thread", "process", "reference"} {
		if !rungs[want] {
			t.Errorf("the ladder has no %s row", want)
		}
	}
	var raw map[string]json.RawMessage
	data, _ := os.ReadFile(filepath.Join(dir, ents[0].Name()))
	_ = json.Unmarshal(data, &raw)
	if _, ok := raw["environment"]; !ok {
		t.Error("no environment block")
	}
	assertNothingLeft(t)
}

// ctxbenchCgroups lists cgroup directories ctxbench made, in any hierarchy.
func ctxbenchCgroups() []string {
	var out []string
	for _, pattern := range []string{"/sys/fs/cgroup/*/ctxbench-*", "/sys/fs/cgroup/ctxbench-*", "/sys/fs/cgroup/unified/ctxbench-*"} {
		m, _ := filepath.Glob(pattern)
		out = append(out, m...)
	}
	return out
}

// A container block killed by the watchdog: its partners live in process
// groups and cgroups of their own, and all of it must still go away.
func TestContainerBlockKilledLeavesNoCgroup(t *testing.T) {
	if os.Geteuid() != 0 {
		testenv.Skip(t, testenv.Root, "the container rung needs root")
	}
	if left := ctxbenchCgroups(); len(left) > 0 {
		t.Fatalf("cgroups left before the test: %v", left)
	}
	cmd := exec.Command(bin, "run", "container/pipe-full", "--placement", "same-cpu", "--iterations", "20000",
		"--runs", "2000", "--samples-per-block", "2000", "--no-perf-check", "--timeout", "3s")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	pid := waitFor(t, "__partner", 20*time.Second)
	time.Sleep(300 * time.Millisecond)
	if len(ctxbenchCgroups()) == 0 {
		t.Fatalf("the container block made no cgroup; output:\n%s", out.String())
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd, 20*time.Second)
	if code != 1 || !strings.Contains(out.String(), "watchdog") {
		t.Fatalf("exit %d, output:\n%s", code, out.String())
	}
	// The worker, asked to stop, ran container.CleanupAll and exited on its
	// own; the parent's sweep is only the backstop.
	if !strings.Contains(out.String(), "cleaned up after itself") {
		t.Errorf("the worker did not stop on request; output:\n%s", out.String())
	}
	assertNothingLeft(t)
	if left := ctxbenchCgroups(); len(left) > 0 {
		t.Fatalf("cgroups left behind: %v", left)
	}
}

// listJSON runs `ctxbench list --json` through argv[0..] (a wrapper such as
// setpriv or unshare) and returns availability by name.
func listJSON(t *testing.T, wrapper ...string) map[string]string {
	t.Helper()
	args := append(wrapper, bin, "list", "--json")
	out, err := exec.Command(args[0], args[1:]...).Output()
	if err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	var entries []struct {
		Name      string `json:"name"`
		Available bool   `json:"available"`
		Reason    string `json:"reason"`
	}
	if err := json.Unmarshal(out, &entries); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, e := range entries {
		if e.Available {
			m[e.Name] = ""
		} else {
			m[e.Name] = e.Reason
		}
	}
	return m
}

// Without root the container and VM rungs are unavailable with a reason,
// the rest still runs, and asking for them is bad input, not a crash.
func TestWithoutRoot(t *testing.T) {
	needPinning(t)
	if os.Geteuid() != 0 {
		testenv.Skip(t, testenv.Root, "run as root to test dropping to an unprivileged user")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		testenv.Skip(t, testenv.UtilLinux, "setpriv (util-linux) not installed")
	}
	nobody := []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}
	avail := listJSON(t, nobody...)
	for _, name := range []string{"container/pipe-ns", "container/pipe-full", "vm/switch-user"} {
		if avail[name] == "" {
			t.Errorf("%s is available to an unprivileged user, or has no reason", name)
		}
	}
	if avail["thread/pipe"] != "" {
		t.Errorf("thread/pipe unavailable without root: %s", avail["thread/pipe"])
	}
	cmd := exec.Command(nobody[0], append(nobody[1:], bin, "run", "container/pipe-ns", "--quick")...)
	cmd.Dir = os.TempDir()
	out, _ := cmd.CombinedOutput()
	if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "nothing to run") {
		t.Fatalf("exit %d, output %s", cmd.ProcessState.ExitCode(), out)
	}
	cmd = exec.Command(nobody[0], append(nobody[1:], bin, "run", "thread/pipe", "process/pipe", "--placement", "same-cpu", "--quick", "-q")...)
	cmd.Dir = os.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("unprivileged thread/process run failed: %v\n%s", err, out)
	}
}

// Without /dev/kvm (hidden by a bind mount in a private mount namespace) the
// vm rung is unavailable with the reason.
func TestWithoutKVM(t *testing.T) {
	if _, err := os.Stat("/dev/kvm"); err != nil {
		testenv.Skip(t, testenv.KVM, "no /dev/kvm here to hide")
	}
	if os.Geteuid() != 0 {
		testenv.Skip(t, testenv.Root, "hiding /dev/kvm needs root")
	}
	script := "mount --bind /dev/null /dev/kvm && exec \"$@\""
	avail := listJSON(t, "unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh")
	for _, name := range []string{"vm/exit-user", "vm/switch-user", "vm/switch-kernel"} {
		if avail[name] == "" {
			t.Errorf("%s looks available with /dev/kvm hidden", name)
		}
	}
	if avail["process/pipe"] != "" {
		t.Errorf("process/pipe became unavailable: %s", avail["process/pipe"])
	}
}

// Two measurements never overlap: while another holds the machine's
// measurement lock, a run waits (and says so), gives up after
// --lock-timeout, or refuses at once with --no-wait — one line, exit 1 —
// and runs as soon as the lock is free. A dry run measures nothing and
// takes no lock.
func TestSecondMeasurementWaitsOrRefuses(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "ctxbench.lock")
	f, err := os.Create(lock)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "%d ctxbench run all\n", os.Getpid())
	run := func(args ...string) (int, string) {
		cmd := exec.Command(bin, append([]string{"run", "reference/syscall", "--runs", "4", "-q"}, args...)...)
		cmd.Env = append(os.Environ(), "CTXBENCH_LOCK="+lock)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stderr.String()
	}
	code, msg := run("--no-wait")
	if code != 1 || strings.Count(strings.TrimSpace(msg), "\n") != 0 || !strings.Contains(msg, "another ctxbench is measuring") || !strings.Contains(msg, fmt.Sprint(os.Getpid())) {
		t.Fatalf("--no-wait while locked: exit %d, stderr %q", code, msg)
	}
	code, msg = run("--lock-timeout", "300ms")
	if code != 1 || !strings.Contains(msg, "waiting for the other measurement") || !strings.Contains(msg, "gave up after waiting") {
		t.Fatalf("waiting while locked: exit %d, stderr %q", code, msg)
	}
	if code, msg := run("--dry-run", "--no-wait"); code != 0 {
		t.Fatalf("a dry run waited for the lock: exit %d, %q", code, msg)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_UN); err != nil {
		t.Fatal(err)
	}
	if code, msg := run("--no-wait"); code != 0 {
		t.Fatalf("the lock is free but the run failed: exit %d, %q", code, msg)
	}
	assertNothingLeft(t)
}

// A figure measured while another task takes the measured CPU is never
// reported as clean: with a busy loop pinned to the same CPU, every block
// is re-run and the cell comes out flagged contended, not verified.
func TestContentionIsFlagged(t *testing.T) {
	needPinning(t)
	taskset, err := exec.LookPath("taskset")
	if err != nil {
		testenv.Skip(t, testenv.UtilLinux, "taskset (util-linux) not installed")
	}
	cpu := fmt.Sprint(runtime.NumCPU() - 1)
	burn := exec.Command(taskset, "-c", cpu, "sh", "-c", "while :; do :; done")
	burn.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := burn.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = syscall.Kill(-burn.Process.Pid, syscall.SIGKILL)
		_ = burn.Wait()
	}()
	time.Sleep(200 * time.Millisecond) // let it take its share of the CPU
	out, err := exec.Command(bin, "run", "thread/futex", "--placement", "same-cpu", "--cpus", cpu, "--quick",
		"--no-perf-check", "--export-json", "-", "-q").Output()
	if err != nil {
		t.Fatalf("run beside a busy loop: %v", err)
	}
	doc, err := result.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	r := doc.Results[0]
	flagged := false
	for _, f := range r.Flags {
		flagged = flagged || f.Code == "contended"
	}
	reruns := 0
	for _, b := range r.BlockInfo {
		reruns += b.Reruns
	}
	if !flagged || r.Verification.Verified || reruns == 0 {
		t.Errorf("beside a busy loop on CPU %s: flags %+v, verified %v, %d re-runs; want contended, not verified, re-run", cpu, r.Flags, r.Verification.Verified, reruns)
	}
}

// A process rung's side is a single-threaded process: the binary
// re-executed with CTXBENCH_ST runs its C side in a constructor before the
// Go runtime starts a thread. Seen from outside while it waits to start.
func TestProcessSidesAreSingleThreaded(t *testing.T) {
	needPinning(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	cmd := exec.Command(bin, "__partner")
	cmd.Env = append(os.Environ(), "CTXBENCH_ST=pipe-b", "CTXBENCH_ST_ITERS=10", "CTXBENCH_ST_SAMPLES=1", "CTXBENCH_ST_CPU_B=-1")
	cmd.ExtraFiles = []*os.File{r, w}
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	line := make([]byte, 6)
	if _, err := io.ReadFull(out, line); err != nil || string(line) != "ready\n" {
		t.Fatalf("side said %q, %v", line, err)
	}
	threads, err := host.ThreadCount(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if threads != 1 {
		t.Errorf("the side is not single-threaded: %d threads", threads)
	}
	// And the rung runs: both sides count one switch per hop.
	b, err := exec.Command(bin, "run", "process/pipe", "process/futex", "--placement", "same-cpu", "--quick", "--export-json", "-", "-q").Output()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := result.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Results {
		if r.SwitchesPerHop == nil || *r.SwitchesPerHop < 0.9 || *r.SwitchesPerHop > 1.2 || !strings.Contains(r.Label.What, "single-threaded") {
			t.Errorf("%s: switches per hop %v, label %q", r.Name, r.SwitchesPerHop, r.Label.What)
		}
	}
}

// A fresh machine: the run succeeds, records its sitting in a new history,
// has no reproducibility interval yet and says so plainly, with the command
// that learns it; with --no-history or CTXBENCH_NO_HISTORY=1 no file is
// written at all.
func TestFreshMachineHistory(t *testing.T) {
	needPinning(t)
	needCPUs(t, 2)
	for _, c := range []struct {
		name  string
		extra []string
		env   string
		store bool
	}{
		{"fresh", nil, "", true},
		{"--no-history", []string{"--no-history"}, "", false},
		{"CTXBENCH_NO_HISTORY", nil, "CTXBENCH_NO_HISTORY=1", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			data := t.TempDir()
			out := filepath.Join(t.TempDir(), "r.json")
			args := append([]string{"run", "thread/pipe", "--placement", "same-cpu", "--quick", "--runs", "8", "--no-perf-check", "--export-json", out}, c.extra...)
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "XDG_DATA_HOME="+data)
			if c.env != "" {
				cmd.Env = append(cmd.Env, c.env)
			}
			b, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%v\n%s", err, b)
			}
			if !strings.Contains(string(b), "covers this sitting only") || !strings.Contains(string(b), "ctxbench aa") {
				t.Errorf("the table does not say its intervals cover this sitting only:\n%s", b)
			}
			raw, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct {
				History *struct {
					Fingerprint string `json:"fingerprint"`
					Recorded    bool   `json:"recorded"`
				} `json:"history"`
				Results []struct {
					OneWayNS map[string]json.RawMessage `json:"one_way_ns"`
				} `json:"results"`
			}
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			for _, r := range doc.Results {
				if v, ok := r.OneWayNS["reproducibility"]; !ok || string(v) != "null" {
					t.Errorf("one_way_ns.reproducibility is %q on a fresh machine, want null", v)
				}
			}
			var files []string
			filepath.WalkDir(data, func(p string, d os.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					files = append(files, p)
				}
				return nil
			})
			if c.store {
				if doc.History == nil || !doc.History.Recorded || doc.History.Fingerprint == "" {
					t.Errorf("history %+v, want the sitting recorded", doc.History)
				}
				if _, err := os.Stat(filepath.Join(data, "ctxbench", "history.db")); err != nil {
					t.Errorf("no history store: %v (files %v)", err, files)
				}
			} else if len(files) > 0 || doc.History != nil {
				t.Errorf("history off, yet files %v and history %+v", files, doc.History)
			}
		})
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
