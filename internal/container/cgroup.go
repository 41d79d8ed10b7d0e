package container

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// NamePrefix starts the name of every top-level cgroup ctxbench creates;
// SweepStale looks for it. The full name is ctxbench-<pid>-<seq>, so a
// leftover tree names the process that made it.
const NamePrefix = "ctxbench-"

// Hierarchy is one mounted cgroup hierarchy.
type Hierarchy struct {
	Mount      string // e.g. /sys/fs/cgroup/cpu (v1) or /sys/fs/cgroup (v2)
	Version    int    // 1 or 2
	Controller string // the controller we use it for ("cpu"), or "" for none
}

func (h Hierarchy) String() string {
	c := h.Controller
	if c == "" {
		c = "no controller"
	}
	return fmt.Sprintf("cgroup v%d %s at %s", h.Version, c, h.Mount)
}

// ErrNoCPUController says no mounted hierarchy offers the cpu controller.
var ErrNoCPUController = errors.New("no cgroup hierarchy with the cpu controller is mounted")

type mountEntry struct {
	mountPoint string
	root       string
	fsType     string
	superOpts  []string
}

// FindHierarchy finds where controller is usable: a v2 mount whose root
// cgroup.controllers lists it, else a v1 mount of it. controller "" asks
// for the v2 mount itself (used to exercise the v2 mechanics in tests).
func FindHierarchy(controller string) (Hierarchy, error) {
	mounts, err := readMounts()
	if err != nil {
		return Hierarchy{}, fmt.Errorf("reading mountinfo: %w", err)
	}
	for _, m := range mounts {
		if m.fsType != "cgroup2" || m.root != "/" {
			continue
		}
		if controller == "" {
			return Hierarchy{Mount: m.mountPoint, Version: 2}, nil
		}
		b, err := os.ReadFile(filepath.Join(m.mountPoint, "cgroup.controllers"))
		if err == nil && hasField(string(b), controller) {
			return Hierarchy{Mount: m.mountPoint, Version: 2, Controller: controller}, nil
		}
	}
	if controller != "" {
		for _, m := range mounts {
			if m.fsType != "cgroup" || m.root != "/" {
				continue
			}
			for _, o := range m.superOpts {
				if o == controller {
					return Hierarchy{Mount: m.mountPoint, Version: 1, Controller: controller}, nil
				}
			}
		}
	}
	if controller == "cpu" {
		return Hierarchy{}, ErrNoCPUController
	}
	return Hierarchy{}, fmt.Errorf("no cgroup hierarchy for controller %q", controller)
}

// CPUHierarchy is FindHierarchy("cpu").
func CPUHierarchy() (Hierarchy, error) { return FindHierarchy("cpu") }

func hasField(s, want string) bool {
	for _, f := range strings.Fields(s) {
		if f == want {
			return true
		}
	}
	return false
}

// Usable reports whether cgroups can be created in h by this process, and
// why not.
func (h Hierarchy) Usable() (bool, string) {
	if unix.Access(h.Mount, unix.W_OK) != nil {
		return false, fmt.Sprintf("%s is not writable (need root or a delegated cgroup)", h.Mount)
	}
	return true, ""
}

var treeSeq atomic.Int64

// Tree is a uniquely named ctxbench subtree of a hierarchy holding one leaf
// cgroup per member, every leaf at the same depth below the hierarchy root,
// laid out the way runtimes lay out containers:
//
//	depth 1: /ctxbench-<pid>-<n>-<member>
//	depth 2: /ctxbench-<pid>-<n>.slice/<member>.scope          (systemd, Docker)
//	depth 3: /ctxbench-<pid>-<n>/pod-<member>/<member>
//	depth 4: /ctxbench-<pid>-<n>/burstable/pod-<member>/<member> (Kubernetes)
//	deeper:  depth 4 with more per-member levels before the leaf
//
// Siblings share ancestors as two containers on one host do.
type Tree struct {
	H     Hierarchy
	Depth int
	Name  string // ctxbench-<pid>-<n>
	dirs  []string
}

// NewTree names a tree in h; nothing is created until Leaf.
func NewTree(h Hierarchy, depth int) (*Tree, error) {
	if depth < 1 || depth > MaxCgroupDepth {
		return nil, fmt.Errorf("cgroup depth %d out of range 1..%d", depth, MaxCgroupDepth)
	}
	if ok, why := h.Usable(); !ok {
		return nil, errors.New(why)
	}
	name := fmt.Sprintf("%s%d-%d", NamePrefix, os.Getpid(), treeSeq.Add(1))
	return &Tree{H: h, Depth: depth, Name: name}, nil
}

// LeafPath is the path, relative to the hierarchy root, of member's leaf.
func (t *Tree) LeafPath(member string) string {
	var parts []string
	switch t.Depth {
	case 1:
		parts = []string{t.Name + "-" + member}
	case 2:
		parts = []string{t.Name + ".slice", member + ".scope"}
	case 3:
		parts = []string{t.Name, "pod-" + member, member}
	default:
		parts = []string{t.Name, "burstable", "pod-" + member}
		for i := 4; i < t.Depth; i++ {
			parts = append(parts, fmt.Sprintf("l%d-%s", i, member))
		}
		parts = append(parts, member)
	}
	return "/" + strings.Join(parts, "/")
}

// Leaf creates (mkdir -p) member's leaf cgroup and every missing ancestor,
// registering each directory for CleanupAll before creating it. On v2 the
// controller is enabled in every ancestor's cgroup.subtree_control.
func (t *Tree) Leaf(member string) (*Cgroup, error) {
	parts, err := t.leafParts(member)
	if err != nil {
		return nil, err
	}
	if _, err := t.makeDirs(parts, len(parts)); err != nil {
		return nil, err
	}
	return &Cgroup{H: t.H, Rel: t.LeafPath(member)}, nil
}

// MemberDirs creates the ancestors member's leaf shares with the other
// members (registered and removed like Leaf's) and returns, outermost
// first, the member's own directories: registered for CleanupAll but not
// created, because the caller creates and removes them itself (the spawn
// kernels do, once per container, as a runtime does per container). On v2
// with a controller only the leaf is the member's own: its ancestors need
// the controller enabled in their subtree_control first. forget drops the
// own directories from the registry once the caller has removed them.
func (t *Tree) MemberDirs(member string) (own []string, forget func(), err error) {
	parts, err := t.leafParts(member)
	if err != nil {
		return nil, nil, err
	}
	first := map[int]int{1: 0, 2: 1, 3: 1}[t.Depth]
	if t.Depth >= 4 {
		first = 2
	}
	if t.controlled() {
		first = len(parts) - 1
	}
	dir, err := t.makeDirs(parts, first)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range parts[first:] {
		dir = filepath.Join(dir, p)
		own = append(own, dir)
		registerDir(dir)
	}
	return own, func() {
		for _, d := range own {
			unregisterDir(d)
		}
	}, nil
}

// leafParts checks member's name and splits its leaf path into directories.
func (t *Tree) leafParts(member string) ([]string, error) {
	if member == "" || strings.ContainsAny(member, "/ \n") {
		return nil, fmt.Errorf("bad cgroup member name %q", member)
	}
	return strings.Split(strings.TrimPrefix(t.LeafPath(member), "/"), "/"), nil
}

// controlled says whether the tree's controller must be enabled in the
// subtree_control of its directories' parents (v2 only).
func (t *Tree) controlled() bool { return t.H.Version == 2 && t.H.Controller != "" }

// makeDirs creates (mkdir -p) the first n of the leaf path's parts below
// the hierarchy root, registering each directory for CleanupAll before
// creating it and keeping those it created for Remove; when controlled,
// the controller is enabled in the root and in each created directory but
// the leaf. It returns the last directory (the root when n is 0).
func (t *Tree) makeDirs(parts []string, n int) (string, error) {
	dir := t.H.Mount
	if t.controlled() {
		if err := enableController(dir, t.H.Controller); err != nil {
			return "", err
		}
	}
	for i, p := range parts[:n] {
		dir = filepath.Join(dir, p)
		registerDir(dir)
		err := os.Mkdir(dir, 0o755)
		switch {
		case err == nil:
			t.dirs = append(t.dirs, dir)
		case errors.Is(err, os.ErrExist):
			unregisterDirIfForeign(dir, t)
		default:
			unregisterDir(dir)
			return "", fmt.Errorf("creating cgroup %s: %w", dir, err)
		}
		if t.controlled() && i < len(parts)-1 {
			if err := enableController(dir, t.H.Controller); err != nil {
				return "", err
			}
		}
	}
	return dir, nil
}

// enableController writes +controller to dir's cgroup.subtree_control (v2).
func enableController(dir, controller string) error {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
	if hasField(string(b), controller) {
		return nil
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.subtree_control"), []byte("+"+controller), 0); err != nil {
		return fmt.Errorf("enabling %s in %s/cgroup.subtree_control: %w", controller, dir, err)
	}
	return nil
}

// Remove removes every directory of the tree, deepest first, after killing
// whatever is still inside and waiting for it to be gone.
func (t *Tree) Remove() error {
	var errs []error
	for i := len(t.dirs) - 1; i >= 0; i-- {
		if err := removeCgroupDir(t.dirs[i]); err != nil {
			errs = append(errs, err)
			continue
		}
		unregisterDir(t.dirs[i])
	}
	t.dirs = nil
	return errors.Join(errs...)
}

// Dirs lists the directories the tree created, outermost first.
func (t *Tree) Dirs() []string { return append([]string(nil), t.dirs...) }

// Cgroup is one leaf cgroup.
type Cgroup struct {
	H   Hierarchy
	Rel string // path below the hierarchy root, starting with "/"
}

// Dir is the cgroup's directory.
func (c *Cgroup) Dir() string { return filepath.Join(c.H.Mount, c.Rel) }

// Attach moves the whole thread group of pid into the cgroup.
func (c *Cgroup) Attach(pid int) error {
	if err := os.WriteFile(filepath.Join(c.Dir(), "cgroup.procs"), []byte(strconv.Itoa(pid)), 0); err != nil {
		return fmt.Errorf("attaching pid %d to %s: %w", pid, c.Dir(), err)
	}
	return nil
}

// Procs lists the pids in the cgroup.
func (c *Cgroup) Procs() ([]int, error) { return readPids(filepath.Join(c.Dir(), "cgroup.procs")) }

func readPids(file string) ([]int, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			pids = append(pids, n)
		}
	}
	return pids, nil
}

// removeCgroupDir kills any process left in dir, waits up to two seconds
// for it to leave, then rmdirs. A missing directory counts as removed.
func removeCgroupDir(dir string) error {
	deadline := time.Now().Add(2 * time.Second)
	for {
		err := unix.Rmdir(dir)
		if err == nil || errors.Is(err, unix.ENOENT) {
			return nil
		}
		if !errors.Is(err, unix.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("removing cgroup %s: %w", dir, err)
		}
		// Busy: children (removed by our caller first) or tasks. Tasks in a
		// uniquely named ctxbench cgroup are ours: kill them.
		pids, _ := readPids(filepath.Join(dir, "cgroup.procs"))
		for _, p := range pids {
			_ = unix.Kill(p, unix.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// SweepStale removes ctxbench cgroup trees left by runs that were killed
// (SIGKILL, power loss) before they could clean up: top-level directories
// named ctxbench-<pid>-... in h whose <pid> is not a running process.
// Processes still inside such a tree are killed first. It returns the
// directories removed.
func SweepStale(h Hierarchy) ([]string, error) {
	ents, err := os.ReadDir(h.Mount)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range ents {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), NamePrefix) {
			continue
		}
		pidText, _, _ := strings.Cut(strings.TrimPrefix(e.Name(), NamePrefix), "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil {
			continue
		}
		if pid == os.Getpid() || unix.Kill(pid, 0) == nil {
			continue // ours, or a run still going on
		}
		top := filepath.Join(h.Mount, e.Name())
		var dirs []string
		_ = filepath.WalkDir(top, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- { // WalkDir is pre-order: reverse is deepest first
			if err := removeCgroupDir(dirs[i]); err != nil {
				errs = append(errs, err)
			} else {
				removed = append(removed, dirs[i])
			}
		}
	}
	return removed, errors.Join(errs...)
}

// ListOurs lists the top-level ctxbench cgroups in h made by this process
// (tests use it to prove nothing is left behind).
func ListOurs(h Hierarchy) ([]string, error) {
	ents, err := os.ReadDir(h.Mount)
	if err != nil {
		return nil, err
	}
	prefix := fmt.Sprintf("%s%d-", NamePrefix, os.Getpid())
	var out []string
	for _, e := range ents {
		if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
			out = append(out, filepath.Join(h.Mount, e.Name()))
		}
	}
	return out, nil
}
