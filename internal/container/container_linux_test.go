package container

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

const childEnv = "CTXBENCH_CONTAINER_TEST_CHILD"

// TestMain doubles as the re-executed child: with childEnv set, the test
// binary enters its container spec, reports on fd 3 and waits for stdin to
// close (the pattern the real partner main follows).
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		os.Exit(childMain())
	}
	os.Exit(m.Run())
}

func childMain() int {
	ready := os.NewFile(3, "ready")
	if _, err := EnterFromEnv(); err != nil {
		fmt.Fprintf(ready, "error: %v\n", err)
		return 3
	}
	fmt.Fprintf(ready, "ok %d\n", os.Getpid())
	ready.Close()
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// child is a running test child.
type child struct {
	cmd   *exec.Cmd
	in    *Instance
	stdin io.WriteCloser
}

func startChild(t *testing.T, set *Set, member string) *child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.ExtraFiles = []*os.File{w}
	in, err := set.Start(cmd, member)
	w.Close()
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	c := &child{cmd: cmd, in: in, stdin: stdin}
	t.Cleanup(c.stop)
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if !strings.HasPrefix(s, "ok ") {
			t.Fatalf("child did not enter its spec: %q", s)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("child not ready within 20 s")
	}
	return c
}

func (c *child) stop() {
	if c.stdin != nil {
		c.stdin.Close()
		c.stdin = nil
		done := make(chan struct{})
		go func() { _ = c.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = unix.Kill(-c.in.Pid, unix.SIGKILL)
			<-done
		}
		c.in.Release()
	}
}

func needRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		testenv.Skip(t, testenv.Root, "needs root (namespaces, cgroups)")
	}
	if emu, _ := host.Emulation(""); emu != "" {
		testenv.Skip(t, testenv.Native, "emulated by %s, which refuses namespace flags and seccomp", emu)
	}
}

func needCPUCgroup(t *testing.T) Hierarchy {
	t.Helper()
	needRoot(t)
	h, err := CPUHierarchy()
	if err != nil {
		testenv.Skip(t, testenv.CgroupCPU, "%v", err)
	}
	if ok, why := h.Usable(); !ok {
		testenv.Skip(t, testenv.CgroupCPU, "%s", why)
	}
	return h
}

// assertNothingLeft fails if this process still has children, ctxbench
// cgroups of its own, or registry entries.
func assertNothingLeft(t *testing.T) {
	t.Helper()
	if kids := childPids(); len(kids) > 0 {
		t.Errorf("child processes left: %v", kids)
	}
	if h, err := CPUHierarchy(); err == nil {
		if left, _ := ListOurs(h); len(left) > 0 {
			t.Errorf("cgroups left: %v", left)
		}
	}
	if h, err := FindHierarchy(""); err == nil {
		if left, _ := ListOurs(h); len(left) > 0 {
			t.Errorf("v2 cgroups left: %v", left)
		}
	}
	if d, p := Pending(); d != 0 || p != 0 {
		t.Errorf("registry still holds %d dirs, %d processes", d, p)
	}
}

func childPids() []int {
	var out []int
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", os.Getpid()))
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, s := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(s); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func TestPresetsFlagsLabels(t *testing.T) {
	cases := []struct {
		name  string
		flags uintptr
		label string
	}{
		{"plain", 0, "plain process"},
		{"ns", unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS, "pid+net+mnt+ipc+uts namespaces"},
		{"userns", unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWUSER, "pid+net+mnt+ipc+uts+user namespaces"},
		{"cg1", 0, "own cpu cgroup at depth 1 (v1)"},
		{"cg2", 0, "own cpu cgroup at depth 2 (v1)"},
		{"cg4", 0, "own cpu cgroup at depth 4 (v1)"},
		{"seccomp-allow", 0, "seccomp allow-list"},
		{"seccomp-args", 0, "seccomp argument-inspecting filter"},
		{"caps", 0, "caps dropped"},
		{"full", unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWNS | unix.CLONE_NEWIPC | unix.CLONE_NEWUTS | unix.CLONE_NEWCGROUP,
			"pid+net+mnt+ipc+uts+cgroup namespaces, own cpu cgroup at depth 2 (v1), seccomp allow-list, caps dropped"},
	}
	if len(cases) != len(PresetNames()) {
		t.Fatalf("test covers %d presets, package has %d", len(cases), len(PresetNames()))
	}
	for _, c := range cases {
		s, err := Preset(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.CloneFlags(); got != c.flags {
			t.Errorf("%s: clone flags %#x, want %#x", c.name, got, c.flags)
		}
		if got := s.Label(1); !strings.HasPrefix(got, c.label) {
			t.Errorf("%s: label %q, want prefix %q", c.name, got, c.label)
		}
		back, err := ParseSpec(s.String())
		if err != nil || back != s {
			t.Errorf("%s: round trip %q -> %+v (%v), want %+v", c.name, s.String(), back, err, s)
		}
		byName, err := ParseSpec(c.name)
		if err != nil || byName != s {
			t.Errorf("%s: ParseSpec by name gave %+v (%v)", c.name, byName, err)
		}
		cmd := exec.Command("/bin/true")
		ApplyAttrs(cmd, s)
		a := cmd.SysProcAttr
		if a.Cloneflags != c.flags || !a.Setpgid || a.Pdeathsig != unix.SIGKILL {
			t.Errorf("%s: SysProcAttr %+v", c.name, a)
		}
		if s.User != (len(a.UidMappings) == 1 && len(a.GidMappings) == 1) {
			t.Errorf("%s: uid/gid maps %v %v", c.name, a.UidMappings, a.GidMappings)
		}
		if last := cmd.Env[len(cmd.Env)-1]; last != SpecEnv+"="+s.String() {
			t.Errorf("%s: env ends with %q", c.name, last)
		}
	}
	if !Full(true).User || Full(false).User {
		t.Error("Full(withUser) ignores its argument")
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, bad := range []string{"nonsense", "ns=pid,bogus", "cg=x", "cg=9", "cg=-1", "seccomp=maybe", "caps=some", "ns", "weird=1", "ns=pid;cg"} {
		if bad == "ns" {
			continue // "ns" is a preset name
		}
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
	if err := (Spec{CgroupDepth: MaxCgroupDepth + 1}).Validate(); err == nil {
		t.Error("depth beyond the maximum validated")
	}
}

func TestTreeLayout(t *testing.T) {
	tr := &Tree{Name: "ctxbench-1-2"}
	want := map[int]string{
		1: "/ctxbench-1-2-a",
		2: "/ctxbench-1-2.slice/a.scope",
		3: "/ctxbench-1-2/pod-a/a",
		4: "/ctxbench-1-2/burstable/pod-a/a",
		6: "/ctxbench-1-2/burstable/pod-a/l4-a/l5-a/a",
	}
	for d, w := range want {
		tr.Depth = d
		got := tr.LeafPath("a")
		if got != w {
			t.Errorf("depth %d: %s, want %s", d, got, w)
		}
		if depthOf(got) != d {
			t.Errorf("depth %d: path %s has depth %d", d, got, depthOf(got))
		}
	}
}

func TestCgroupLineParsing(t *testing.T) {
	text := "12:cpu,cpuacct:/a/b\n1:name=systemd:/\n0::/v2/x\n"
	if got, err := cgroupLine(text, Hierarchy{Version: 1, Controller: "cpu"}); err != nil || got != "/a/b" {
		t.Errorf("v1: %q %v", got, err)
	}
	if got, err := cgroupLine(text, Hierarchy{Version: 2}); err != nil || got != "/v2/x" {
		t.Errorf("v2: %q %v", got, err)
	}
	if _, err := cgroupLine(text, Hierarchy{Version: 1, Controller: "memory"}); err == nil {
		t.Error("found a memory line that is not there")
	}
}

// TestCgroupDepths starts a child in its own leaf at depths 1, 2 and 4,
// checks where it landed, and removes everything.
func TestCgroupDepths(t *testing.T) {
	needCPUCgroup(t)
	for _, depth := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("depth%d", depth), func(t *testing.T) {
			set, err := NewSet(Spec{CgroupDepth: depth})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = set.Close() })
			a := startChild(t, set, "a")
			b := startChild(t, set, "b")
			for _, c := range []*child{a, b} {
				v := c.in.Verify()
				if !v.OK || v.CgroupDepth != depth || v.CgroupPath != c.in.Cgroup.Rel {
					t.Errorf("verification: %+v", v)
				}
			}
			if a.in.Cgroup.Rel == b.in.Cgroup.Rel {
				t.Error("both children share one cgroup")
			}
			// Our own thread is back where it was.
			if ours, _ := PathOf(set.H, os.Getpid(), unix.Gettid()); strings.Contains(ours, NamePrefix) {
				t.Errorf("this thread was left in %s", ours)
			}
			a.stop()
			b.stop()
			if err := set.Close(); err != nil {
				t.Fatal(err)
			}
			assertNothingLeft(t)
		})
	}
}

// TestCgroupV2Mechanics exercises the v2 path (CLONE_INTO_CGROUP, no
// controller) on the unified mount, or, on a machine without one, on a
// cgroup2 hierarchy this test mounts for itself (root can, beside v1).
func TestCgroupV2Mechanics(t *testing.T) {
	needRoot(t)
	h, err := FindHierarchy("")
	if err != nil {
		dir := t.TempDir()
		if err := unix.Mount("none", dir, "cgroup2", 0, ""); err != nil {
			testenv.Skip(t, testenv.Root, "no cgroup v2 mount, and mounting one failed: %v", err)
		}
		t.Cleanup(func() { _ = unix.Unmount(dir, unix.MNT_DETACH) })
		if h, err = FindHierarchy(""); err != nil {
			t.Fatalf("the cgroup2 mounted on %s is not found: %v", dir, err)
		}
	}
	tr, err := NewTree(h, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Remove()
	cg, err := tr.Leaf("a")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/bin/sleep", "30")
	ApplyAttrs(cmd, Spec{})
	if err := StartIn(cmd, cg); err != nil {
		t.Fatal(err)
	}
	got, err := PathOf(h, cmd.Process.Pid, 0)
	if err != nil || got != cg.Rel {
		t.Errorf("child in %q (%v), want %q", got, err, cg.Rel)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if err := tr.Remove(); err != nil {
		t.Fatal(err)
	}
	assertNothingLeft(t)
}

func TestCleanupAllRemovesEverything(t *testing.T) {
	h := needCPUCgroup(t)
	tr, err := NewTree(h, 4)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := tr.Leaf("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Leaf("b"); err != nil {
		t.Fatal(err)
	}
	// A process inside, that nobody else will kill, tracked by group.
	cmd := exec.Command("/bin/sleep", "60")
	ApplyAttrs(cmd, Spec{})
	if err := StartIn(cmd, cg); err != nil {
		t.Fatal(err)
	}
	TrackProcess(-cmd.Process.Pid)
	hookRan := false
	RegisterHook(func() { hookRan = true })
	if err := CleanupAll(); err != nil {
		t.Fatal(err)
	}
	state, _ := cmd.Process.Wait()
	if state == nil || state.Exited() {
		t.Errorf("child was not killed: %v", state)
	}
	if !hookRan {
		t.Error("hook did not run")
	}
	for _, d := range tr.Dirs() {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s still exists", d)
		}
	}
	// Hooks persist until removed; drop ours so later tests start clean.
	reg.Lock()
	reg.hooks = map[int]func(){}
	reg.Unlock()
	tr.dirs = nil
	if err := CleanupAll(); err != nil {
		t.Errorf("second CleanupAll: %v", err)
	}
	assertNothingLeft(t)
}

func TestSweepStale(t *testing.T) {
	h := needCPUCgroup(t)
	// A pid that is certainly not running: pid_max itself (pids stay
	// below it).
	b, err := os.ReadFile("/proc/sys/kernel/pid_max")
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || unix.Kill(pid, 0) == nil {
		t.Fatalf("pid_max %q (%v): not a pid that cannot run", b, err)
	}
	top := filepath.Join(h.Mount, fmt.Sprintf("%s%d-77", NamePrefix, pid))
	leaf := filepath.Join(top, "x", "y")
	if err := os.MkdirAll(leaf, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Remove(leaf); _ = os.Remove(filepath.Dir(leaf)); _ = os.Remove(top) })
	// And one of ours, which must be left alone.
	tr, _ := NewTree(h, 1)
	if _, err := tr.Leaf("keep"); err != nil {
		t.Fatal(err)
	}
	removed, err := SweepStale(h)
	if err != nil {
		t.Fatal(err)
	}
	// Leftovers of earlier killed runs may be swept too; ours must be.
	for _, d := range []string{leaf, filepath.Dir(leaf), top} {
		found := false
		for _, r := range removed {
			found = found || r == d
		}
		if !found {
			t.Errorf("%s not in removed %v", d, removed)
		}
	}
	if _, err := os.Stat(top); err == nil {
		t.Error("stale tree still exists")
	}
	if len(tr.Dirs()) != 1 {
		t.Fatal("our tree lost track of its leaf")
	}
	if _, err := os.Stat(tr.Dirs()[0]); err != nil {
		t.Errorf("sweep removed a live run's cgroup: %v", err)
	}
	if err := tr.Remove(); err != nil {
		t.Fatal(err)
	}
	assertNothingLeft(t)
}

// TestEnterAndVerify starts re-executed children under each preset that
// the machine supports and checks what Verify sees.
func TestEnterAndVerify(t *testing.T) {
	needRoot(t)
	names := PresetNames()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			spec, _ := Preset(name)
			if name == "full" {
				ok, _ := UserNamespacesAvailable()
				spec = Full(ok)
			}
			if err := Check(spec); err != nil {
				testenv.SkipFor(t, err.Error(), testenv.Root, testenv.CgroupCPU, testenv.UserNS)
			}
			set, err := NewSet(spec)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = set.Close() })
			c := startChild(t, set, "a")
			v := c.in.Verify()
			t.Log(set.Label() + ": " + v.Summary())
			if !v.OK {
				t.Errorf("not verified: %s", v.Summary())
			}
			for _, n := range v.Namespaces {
				if n.Wanted && !n.Own {
					t.Errorf("%s namespace not own", n.Name)
				}
			}
			if spec.Seccomp != SeccompNone && (v.SeccompMode != 2 || !v.NoNewPrivs || v.SeccompFilters < 1) {
				t.Errorf("seccomp not installed: mode %d filters %d nnp %v", v.SeccompMode, v.SeccompFilters, v.NoNewPrivs)
			}
			if spec.Seccomp == SeccompNone && v.SeccompMode != 0 {
				t.Errorf("unexpected seccomp mode %d", v.SeccompMode)
			}
			if spec.DropCaps {
				eff, _ := parseHex(v.CapEff)
				if eff&^DefaultCapMask() != 0 || eff == 0 {
					t.Errorf("CapEff %s not reduced to the default set", v.CapEff)
				}
			}
			if spec.CgroupNS && v.CgroupNSView != "/" {
				t.Errorf("cgroup namespace view %q", v.CgroupNSView)
			}
			c.stop()
			if err := set.Close(); err != nil {
				t.Fatal(err)
			}
			assertNothingLeft(t)
		})
	}
}

// TestVerifyDetectsPlain makes sure Verify is able to fail: a plain child
// checked against a spec it did not enter.
func TestVerifyDetectsPlain(t *testing.T) {
	set, err := NewSet(Spec{})
	if err != nil {
		t.Fatal(err)
	}
	c := startChild(t, set, "a")
	want := Spec{PID: true, Net: true, Seccomp: SeccompAllowList, DropCaps: true}
	v := Verify(c.in.Pid, want, nil)
	if v.OK || v.NamespacesOK || v.SeccompOK || len(v.Problems) < 3 {
		t.Errorf("verification of a plain child against %v passed: %+v", want, v)
	}
	if !Verify(c.in.Pid, Spec{}, nil).OK {
		t.Error("plain child does not verify as plain")
	}
	c.stop()
	assertNothingLeft(t)
}
