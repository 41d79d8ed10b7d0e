package catalog

// inplace_linux.go: where attach's targets are found on Linux: /proc and
// the cgroup filesystems.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
)

// cgroupDir finds the directory a --cgroup names: an absolute path that is
// a cgroup, else the path under the cpu controller's hierarchy (where a
// switch's scheduling entities are) or the unified one. It returns the
// directory and its path in its hierarchy.
func cgroupDir(name string) (dir, rel string, err error) {
	isCgroup := func(d string) bool {
		var fs unix.Statfs_t
		if unix.Statfs(d, &fs) != nil || fs.Type != unix.CGROUP_SUPER_MAGIC && fs.Type != unix.CGROUP2_SUPER_MAGIC {
			return false
		}
		_, err := os.Stat(filepath.Join(d, "cgroup.procs"))
		return err == nil
	}
	var mounts []string
	if h, err := container.CPUHierarchy(); err == nil {
		mounts = append(mounts, h.Mount)
	}
	if h, err := container.FindHierarchy(""); err == nil {
		mounts = append(mounts, h.Mount)
	}
	if filepath.IsAbs(name) && isCgroup(name) {
		d := filepath.Clean(name)
		for _, m := range mounts {
			if r, ok := strings.CutPrefix(d, m); ok && (r == "" || r[0] == '/') {
				return d, "/" + strings.TrimPrefix(r, "/"), nil
			}
		}
		return d, d, nil
	}
	for _, m := range mounts {
		d := filepath.Join(m, strings.TrimPrefix(name, "/"))
		if strings.HasPrefix(d+"/", m+"/") && isCgroup(d) {
			return d, "/" + strings.TrimPrefix(strings.TrimPrefix(d, m), "/"), nil
		}
	}
	return "", "", fmt.Errorf("--cgroup %s: no such cgroup (looked in %s)", name, strings.Join(mounts, " and "))
}

// tgidOf is the process a pid (or a thread's id) belongs to.
func tgidOf(pid int) (int, error) {
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(l, "Tgid:"); ok {
			return strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return 0, errors.New("no Tgid line")
}

// commOf is a process's name.
func commOf(tgid int) string { return strings.TrimSpace(readFile(fmt.Sprintf("/proc/%d/comm", tgid))) }

// procCgroups is a process's cgroup lines (hierarchy:controllers:path).
func procCgroups(pid int) string { return readFile(fmt.Sprintf("/proc/%d/cgroup", pid)) }

// machineCounters: /proc/stat's ctxt; the time the CPUs ran tasks and the
// time tasks waited, from /proc/schedstat where the kernel keeps it
// (CONFIG_SCHEDSTATS), else the CPUs' time less their idle and stolen time
// (cpuidle's residency counters, /proc/stat's steal).
func machineCounters() TargetCounters {
	c := TargetCounters{}
	for _, l := range strings.Split(readFile("/proc/stat"), "\n") {
		if v, ok := strings.CutPrefix(l, "ctxt "); ok {
			c.Switches, _ = strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		}
	}
	if ss := readFile("/proc/schedstat"); ss != "" {
		c.Method = "/proc/stat ctxt; /proc/schedstat per-CPU running and waiting ns"
		for _, l := range strings.Split(ss, "\n") {
			f := strings.Fields(l)
			if len(f) < 9 || !strings.HasPrefix(f[0], "cpu") {
				continue
			}
			run, _ := strconv.ParseUint(f[7], 10, 64)
			wait, _ := strconv.ParseUint(f[8], 10, 64)
			c.CPUNs += run
			c.RunQueueNs += wait
		}
		return c
	}
	// /proc/stat's busy ticks (10 ms each; cpuidle's residency counters are
	// finer but move only when a CPU leaves idle, so a window's share of them
	// can be another window's).
	online := host.ParseCPUList(readFile("/sys/devices/system/cpu/online"))
	c.CPUNs = uint64(max(host.ReadCPUClock(online).BusyNS, 0))
	c.Method = "/proc/stat ctxt and busy ticks (user, nice, system, irq, softirq: 10 ms each); no /proc/schedstat (CONFIG_SCHEDSTATS): no run-queue cross-check"
	return c
}
