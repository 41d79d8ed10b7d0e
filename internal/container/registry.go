package container

import (
	"errors"
	"sort"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// The cleanup registry: everything this process creates that would outlive
// it (cgroup directories, child processes parked for a measurement) is
// recorded here before it exists, so that CleanupAll, called from a signal
// handler or a deferred error path, can remove all of it. Namespaces need no
// entry: they die with their last process (no bind mounts are made).
var reg = struct {
	sync.Mutex
	dirs   map[string]bool
	procs  map[int]bool // pid > 0: a process; pid < 0: a process group
	hooks  map[int]func()
	nextID int
}{dirs: map[string]bool{}, procs: map[int]bool{}, hooks: map[int]func(){}}

func registerDir(dir string) {
	reg.Lock()
	reg.dirs[dir] = true
	reg.Unlock()
}

func unregisterDir(dir string) {
	reg.Lock()
	delete(reg.dirs, dir)
	reg.Unlock()
}

// unregisterDirIfForeign drops dir from the registry unless tree t made it.
func unregisterDirIfForeign(dir string, t *Tree) {
	for _, d := range t.dirs {
		if d == dir {
			return
		}
	}
	unregisterDir(dir)
}

// RegisterDir records a cgroup directory made outside a Tree (the spawn
// kernels create and remove theirs in C for every sample); the returned
// function forgets it again.
func RegisterDir(dir string) (forget func()) {
	registerDir(dir)
	return func() { unregisterDir(dir) }
}

// TrackProcess records a child to SIGKILL in CleanupAll: pid > 0 kills that
// process, pid < 0 the process group -pid. The returned function forgets it
// (call it once the child has been reaped).
func TrackProcess(pid int) (forget func()) {
	reg.Lock()
	reg.procs[pid] = true
	reg.Unlock()
	return func() {
		reg.Lock()
		delete(reg.procs, pid)
		reg.Unlock()
	}
}

// RegisterHook adds a function CleanupAll runs first, before killing
// processes and removing cgroups (e.g. stop a C kernel that is creating
// cgroups in a loop and wait for it to return).
func RegisterHook(f func()) (remove func()) {
	reg.Lock()
	id := reg.nextID
	reg.nextID++
	reg.hooks[id] = f
	reg.Unlock()
	return func() {
		reg.Lock()
		delete(reg.hooks, id)
		reg.Unlock()
	}
}

// CleanupAll runs the hooks, kills every tracked process and process group,
// then removes every registered cgroup directory, deepest first (killing
// anything still inside). Safe to call more than once and from any goroutine.
func CleanupAll() error {
	reg.Lock()
	var hooks []func()
	ids := make([]int, 0, len(reg.hooks))
	for id := range reg.hooks {
		ids = append(ids, id)
	}
	sort.Sort(sort.Reverse(sort.IntSlice(ids)))
	for _, id := range ids {
		hooks = append(hooks, reg.hooks[id])
	}
	reg.Unlock()
	for _, h := range hooks {
		h()
	}

	reg.Lock()
	procs := make([]int, 0, len(reg.procs))
	for p := range reg.procs {
		procs = append(procs, p)
	}
	reg.procs = map[int]bool{}
	dirs := make([]string, 0, len(reg.dirs))
	for d := range reg.dirs {
		dirs = append(dirs, d)
	}
	reg.Unlock()

	for _, p := range procs {
		_ = unix.Kill(p, unix.SIGKILL)
	}
	// Deepest first: more path separators, then reverse lexical order.
	sort.Slice(dirs, func(i, j int) bool {
		di, dj := strings.Count(dirs[i], "/"), strings.Count(dirs[j], "/")
		if di != dj {
			return di > dj
		}
		return dirs[i] > dirs[j]
	})
	var errs []error
	for _, d := range dirs {
		if err := removeCgroupDir(d); err != nil {
			errs = append(errs, err)
			continue
		}
		unregisterDir(d)
	}
	return errors.Join(errs...)
}

// Pending reports how many directories and processes the registry holds
// (tests check that a finished run leaves it empty).
func Pending() (dirs, procs int) {
	reg.Lock()
	defer reg.Unlock()
	return len(reg.dirs), len(reg.procs)
}
