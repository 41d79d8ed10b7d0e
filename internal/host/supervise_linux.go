package host

// supervise_linux.go: on Linux the kernel kills a child whose parent dies
// (PR_SET_PDEATHSIG, set before the child runs a single instruction), and
// reparents the orphans of a killed worker to the run (a child subreaper),
// which finds them in /proc and reaps them.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// DieWithParent makes the child started with attr die when the process
// that starts it does: the kernel sends it SIGKILL (Pdeathsig). attr may
// be nil; the attributes are returned.
func DieWithParent(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	attr.Pdeathsig = syscall.SIGKILL
	return attr
}

// WatchParent does nothing on Linux: the death signal ends a child with its
// parent.
func WatchParent() {}

// AdoptOrphans makes this process the one the orphans of its descendants
// are reparented to (PR_SET_CHILD_SUBREAPER), so a killed worker's
// partners can be reaped here.
func AdoptOrphans() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) }

// ChildrenOfThisBinary lists the children of this process that run this
// binary, orphans reparented to it included, from /proc.
func ChildrenOfThisBinary() []Child {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	me := os.Getpid()
	var out []Child
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, _ := os.Readlink("/proc/" + e.Name() + "/exe"); strings.TrimSuffix(exe, " (deleted)") != self {
			// A zombie has no exe link; check its parent and name instead.
			if zombieOf(e.Name(), me, self) {
				out = append(out, Child{PID: pid, Zombie: true})
			}
			continue
		}
		if ppid(e.Name()) == me {
			out = append(out, Child{PID: pid})
		}
	}
	return out
}

// procStat returns the fields of /proc/<pid>/stat after the command name.
func procStat(pid string) []string {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		return strings.Fields(s[i+1:])
	}
	return nil
}

func ppid(pid string) int {
	f := procStat(pid)
	if len(f) < 2 {
		return -1
	}
	p, _ := strconv.Atoi(f[1])
	return p
}

func zombieOf(pid string, parent int, self string) bool {
	f := procStat(pid)
	if len(f) < 2 || f[0] != "Z" {
		return false
	}
	name := filepath.Base(self)
	if len(name) > 15 { // TASK_COMM_LEN - 1
		name = name[:15]
	}
	comm, _ := os.ReadFile("/proc/" + pid + "/comm")
	p, _ := strconv.Atoi(f[1])
	return p == parent && strings.TrimSpace(string(comm)) == name
}
