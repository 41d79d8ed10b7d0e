package container

// cgroup_linux.go: where the cgroup hierarchies are mounted and which
// cgroup a task is in, from /proc.

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

func readMounts() ([]mountEntry, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []mountEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// id parent maj:min root mountpoint opts [optional...] - fstype source superopts
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 3 {
			continue
		}
		out = append(out, mountEntry{mountPoint: unescapeMount(a[4]), root: a[3], fsType: b[0],
			superOpts: strings.Split(b[2], ",")})
	}
	return out, sc.Err()
}

// unescapeMount undoes mountinfo's octal escapes (\040 for space).
// PathOf reads which cgroup of hierarchy h the task is in, from
// /proc/<pid>/cgroup (tid 0: the process; else /proc/<pid>/task/<tid>).
// The path is as seen from the caller's cgroup namespace.
func PathOf(h Hierarchy, pid, tid int) (string, error) {
	file := fmt.Sprintf("/proc/%d/cgroup", pid)
	if tid != 0 {
		file = fmt.Sprintf("/proc/%d/task/%d/cgroup", pid, tid)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	return cgroupLine(string(b), h)
}
