package container

// cgroup_linux.go: where the cgroup hierarchies are mounted and which
// cgroup a task is in, from /proc.

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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

func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// attachThread moves one thread (v1 only: v2 moves whole processes unless
// the cgroup is threaded).
func (c *Cgroup) attachThread(tid int) error {
	return os.WriteFile(filepath.Join(c.Dir(), "tasks"), []byte(strconv.Itoa(tid)), 0)
}

// cgroupLine picks h's line out of a /proc/<pid>/cgroup file:
// "0::/path" for v2, "N:ctrl1,ctrl2:/path" for v1.
func cgroupLine(text string, h Hierarchy) (string, error) {
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		if h.Version == 2 && f[0] == "0" && f[1] == "" {
			return f[2], nil
		}
		if h.Version == 1 {
			for _, c := range strings.Split(f[1], ",") {
				if c == h.Controller {
					return f[2], nil
				}
			}
		}
	}
	return "", fmt.Errorf("no %v line in cgroup file", h)
}
