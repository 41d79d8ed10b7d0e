package container

import "golang.org/x/sys/unix"

// cloneFlag is each namespace's clone(2) flag, by its nsTable name.
var cloneFlag = map[string]uintptr{
	"pid": unix.CLONE_NEWPID, "net": unix.CLONE_NEWNET, "mnt": unix.CLONE_NEWNS, "ipc": unix.CLONE_NEWIPC,
	"uts": unix.CLONE_NEWUTS, "user": unix.CLONE_NEWUSER, "cgroup": unix.CLONE_NEWCGROUP,
}

// CloneFlags is the clone(2) flag set for the spec's namespaces.
func (s Spec) CloneFlags() uintptr {
	var f uintptr
	for _, n := range nsTable {
		if n.want(s) {
			f |= cloneFlag[n.name]
		}
	}
	return f
}
