package container

// verify_linux.go: checking a contained child from outside (/proc).

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Verify checks from outside what process pid really entered: each
// namespace's inode against ours (/proc/<pid>/ns/*), the cgroup path
// (/proc/<pid>/cgroup) against cg (nil: the child must share ours), the
// cgroup namespace's root, the seccomp mode, no_new_privs and CapEff
// (/proc/<pid>/status). Call it after the child has finished EnterSelf
// (after its ready handshake): before that it is still entering.
func Verify(pid int, spec Spec, cg *Cgroup) Verification {
	v := Verification{Pid: pid, NamespacesOK: true, CgroupOK: true, SeccompOK: true, CapsOK: true}
	v.checkNamespaces(pid, spec)
	v.checkCgroup(pid, spec, cg)
	v.checkStatus(pid, spec)
	v.OK = v.NamespacesOK && v.CgroupOK && v.SeccompOK && v.CapsOK
	return v
}

// bad records a problem Verify found.
func (v *Verification) bad(format string, a ...any) {
	v.Problems = append(v.Problems, fmt.Sprintf(format, a...))
}

// checkNamespaces compares each of pid's namespaces with ours: its own
// where spec wants one, ours elsewhere.
func (v *Verification) checkNamespaces(pid int, spec Spec) {
	for _, n := range nsTable {
		ours, err1 := os.Readlink("/proc/self/ns/" + n.name)
		theirs, err2 := os.Readlink(fmt.Sprintf("/proc/%d/ns/%s", pid, n.name))
		c := NSCheck{Name: n.name, Ours: ours, Theirs: theirs, Wanted: n.want(spec)}
		if err1 != nil || err2 != nil {
			if c.Wanted {
				v.NamespacesOK = false
				v.bad("cannot read %s namespace of pid %d", n.name, pid)
			}
			v.Namespaces = append(v.Namespaces, c)
			continue
		}
		c.Own = ours != theirs
		if c.Own != c.Wanted {
			v.NamespacesOK = false
			if c.Wanted {
				v.bad("%s namespace not entered", n.name)
			} else {
				v.bad("unexpected own %s namespace", n.name)
			}
		}
		v.Namespaces = append(v.Namespaces, c)
	}
}

// checkCgroup checks pid's cgroup in cg's hierarchy (the cpu one when cg
// is nil): cg itself, or ours when cg is nil; and, when spec wants a
// cgroup namespace, that the namespace is rooted at that cgroup.
func (v *Verification) checkCgroup(pid int, spec Spec, cg *Cgroup) {
	h := Hierarchy{}
	if cg != nil {
		h = cg.H
		v.CgroupWant = cg.Rel
	} else if hh, err := CPUHierarchy(); err == nil {
		h = hh
	}
	if h.Mount == "" {
		if spec.CgroupDepth > 0 {
			v.CgroupOK = false
			v.bad("no cpu cgroup hierarchy to check")
		}
		return
	}
	v.CgroupVersion = h.Version
	got, err := PathOf(h, pid, 0)
	if err != nil {
		v.CgroupOK = false
		v.bad("cannot read cgroup of pid %d: %v", pid, err)
	} else {
		v.CgroupPath = got
		v.CgroupDepth = depthOf(got)
		if cg != nil && got != cg.Rel {
			v.CgroupOK = false
			v.bad("in cgroup %s, want %s", got, cg.Rel)
		}
		if cg == nil {
			if ours, err := PathOf(h, os.Getpid(), 0); err == nil && ours != got {
				v.CgroupOK = false
				v.bad("in cgroup %s, ours is %s", got, ours)
			}
		}
	}
	if spec.CgroupNS && cg != nil {
		view, err := cgroupNSView(h, pid)
		if err != nil {
			v.bad("cannot read the cgroup namespace view of pid %d: %v", pid, err)
			v.CgroupOK = false
		} else {
			v.CgroupNSView = view
			if view != "/" {
				v.bad("cgroup namespace not rooted at the child's cgroup (it sees %s)", view)
				v.CgroupOK = false
			}
		}
	}
}

// checkStatus reads pid's seccomp mode, no_new_privs and effective
// capabilities from /proc/<pid>/status, and checks them against spec.
func (v *Verification) checkStatus(pid int, spec Spec) {
	st, err := readStatus(pid)
	if err != nil {
		v.bad("cannot read /proc/%d/status: %v", pid, err)
		v.SeccompOK, v.CapsOK = false, false
		return
	}
	v.SeccompMode, _ = strconv.Atoi(st["Seccomp"])
	v.SeccompFilters, _ = strconv.Atoi(st["Seccomp_filters"])
	v.NoNewPrivs = st["NoNewPrivs"] == "1"
	v.CapEff = st["CapEff"]
	want := 0
	if spec.Seccomp != SeccompNone {
		want = 2
	}
	if v.SeccompMode != want || (want == 2 && !v.NoNewPrivs) {
		v.SeccompOK = false
		v.bad("seccomp mode %d (no_new_privs %v), want %d", v.SeccompMode, v.NoNewPrivs, want)
	}
	eff, err := parseHex(v.CapEff)
	switch {
	case err != nil:
		v.CapsOK = false
		v.bad("cannot parse CapEff %q", v.CapEff)
	case spec.DropCaps && eff&^DefaultCapMask() != 0:
		v.CapsOK = false
		v.bad("CapEff %s holds capabilities beyond the default set %016x", v.CapEff, DefaultCapMask())
	}
}

func depthOf(rel string) int {
	rel = strings.Trim(rel, "/")
	if rel == "" {
		return 0
	}
	return strings.Count(rel, "/") + 1
}

// cgroupNSView reads pid's cgroup path as seen from inside pid's cgroup
// namespace: /proc/<pid>/cgroup shows paths relative to the reader's
// cgroup namespace, so a locked thread joins the child's namespace, reads,
// and returns to ours. If it cannot return, the goroutine ends with the
// thread still locked and the runtime destroys that thread.
func cgroupNSView(h Hierarchy, pid int) (string, error) {
	type answer struct {
		view string
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		runtime.LockOSThread()
		self, err := unix.Open(fmt.Sprintf("/proc/self/task/%d/ns/cgroup", unix.Gettid()), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			ch <- answer{err: err}
			return
		}
		defer unix.Close(self)
		target, err := unix.Open(fmt.Sprintf("/proc/%d/ns/cgroup", pid), unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if err != nil {
			runtime.UnlockOSThread()
			ch <- answer{err: err}
			return
		}
		defer unix.Close(target)
		if err := unix.Setns(target, unix.CLONE_NEWCGROUP); err != nil {
			runtime.UnlockOSThread()
			ch <- answer{err: fmt.Errorf("setns: %w", err)}
			return
		}
		b, rerr := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
		if err := unix.Setns(self, unix.CLONE_NEWCGROUP); err != nil {
			ch <- answer{err: fmt.Errorf("returning to our cgroup namespace: %w", err)}
			return // still locked: the thread dies with this goroutine
		}
		runtime.UnlockOSThread()
		if rerr != nil {
			ch <- answer{err: rerr}
			return
		}
		view, err := cgroupLine(string(b), h)
		ch <- answer{view: view, err: err}
	}()
	a := <-ch
	return a.view, a.err
}

// readStatus parses /proc/<pid>/status (pid 0: /proc/self/status, which
// is right also inside a pid namespace, where os.Getpid() names another
// process in the host's /proc).
func readStatus(pid int) (map[string]string, error) {
	file := "/proc/self/status"
	if pid != 0 {
		file = fmt.Sprintf("/proc/%d/status", pid)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok {
			m[k] = strings.TrimSpace(v)
		}
	}
	return m, sc.Err()
}

func statusField(pid int, key string) (string, error) {
	m, err := readStatus(pid)
	if err != nil {
		return "", err
	}
	v, ok := m[key]
	if !ok {
		return "", fmt.Errorf("no %s in /proc/%d/status", key, pid)
	}
	return v, nil
}

func parseHex(s string) (uint64, error) { return strconv.ParseUint(strings.TrimSpace(s), 16, 64) }
