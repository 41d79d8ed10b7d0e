package host

// limits_linux.go: Linux's limits on contexts, from /proc/sys, /proc and
// getrlimit, and the capabilities that lift them.

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// ReadLimits reads this machine's limits.
func ReadLimits() Limits {
	l := Limits{
		ThreadsMax:   readInt("/proc/sys/kernel/threads-max"),
		PidMax:       readInt("/proc/sys/kernel/pid_max"),
		MaxMapCount:  readInt("/proc/sys/vm/max_map_count"),
		MemAvailable: MeminfoKB("MemAvailable") * 1024,
		Tasks:        TasksNow(),
		Namespaces:   map[string]int64{},
	}
	// Root is not enough: a container may drop CAP_SYS_RESOURCE.
	caps := capEff()
	l.CanRaise = caps&(1<<unix.CAP_SYS_RESOURCE) != 0
	l.NoNProc = l.CanRaise || caps&(1<<unix.CAP_SYS_ADMIN) != 0
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) == nil {
		l.NoFileSoft, l.NoFileHard = r.Cur, r.Max
	}
	if unix.Getrlimit(unix.RLIMIT_NPROC, &r) == nil {
		l.NProc, l.NProcHard = r.Cur, r.Max
	}
	for _, ns := range []string{"pid", "net", "mnt", "ipc", "uts", "cgroup", "user"} {
		if v, err := strconv.ParseInt(readString("/proc/sys/user/max_"+ns+"_namespaces"), 10, 64); err == nil {
			l.Namespaces[ns] = v
		}
	}
	return l
}

// Describe lists the limits that bound contexts of one kind ("goroutine",
// "thread", "process", "container"), as "name = value", for a report.
func (l Limits) Describe(context string) []string {
	out := []string{fmt.Sprintf("kernel.pid_max = %d", l.PidMax), fmt.Sprintf("kernel.threads-max = %d", l.ThreadsMax)}
	tasks := fmt.Sprintf("tasks running on the machine before the run = %d", l.Tasks)
	switch context {
	case "goroutine":
		return append(out, tasks, fmt.Sprintf("MemAvailable = %d MiB (goroutines are bounded by memory only)", l.MemAvailable>>20))
	case "thread":
		out = append(out, fmt.Sprintf("vm.max_map_count = %d", l.MaxMapCount))
	case "container":
		for _, ns := range []string{"pid", "net", "mnt", "ipc", "uts", "cgroup"} {
			if v, ok := l.Namespaces[ns]; ok {
				out = append(out, fmt.Sprintf("user.max_%s_namespaces = %d", ns, v))
			}
		}
	}
	out = append(out, tasks,
		fmt.Sprintf("RLIMIT_NPROC = %s (hard %s)", RlimitText(l.NProc), RlimitText(l.NProcHard)))
	return out
}

// LimitHint names the limits that a failed creation of errno e most likely
// ran into, as " (...)" to append to the error, or "".
func LimitHint(e int, kind string) string {
	l := ReadLimits()
	switch syscall.Errno(e) {
	case syscall.EAGAIN:
		return fmt.Sprintf(" (a %s limit: kernel.threads-max=%d, kernel.pid_max=%d, RLIMIT_NPROC=%s, vm.max_map_count=%d; see 'ctxbench ring --help')",
			kind, l.ThreadsMax, l.PidMax, RlimitText(l.NProc), l.MaxMapCount)
	case syscall.ENOMEM:
		return fmt.Sprintf(" (out of memory or address space: vm.max_map_count=%d, MemAvailable=%d kB)", l.MaxMapCount, l.MemAvailable>>10)
	case syscall.EMFILE, syscall.ENFILE:
		return fmt.Sprintf(" (open files: RLIMIT_NOFILE=%d, fs.file-max=%s)", l.NoFileSoft, readString("/proc/sys/fs/file-max"))
	}
	return ""
}

// TasksNow counts the tasks (threads) on the machine, from /proc/loadavg's
// "running/total" field.
func TasksNow() int64 {
	f := strings.Fields(readString("/proc/loadavg"))
	if len(f) < 4 {
		return 0
	}
	_, total, _ := strings.Cut(f[3], "/")
	n, _ := strconv.ParseInt(total, 10, 64)
	return n
}

// MeminfoKB reads one /proc/meminfo field, in kB (0 when absent).
func MeminfoKB(key string) int64 {
	for _, line := range strings.Split(readString("/proc/meminfo"), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				v, _ := strconv.ParseInt(f[0], 10, 64)
				return v
			}
		}
	}
	return 0
}

// capEff is this process's effective capability set.
func capEff() uint64 {
	for _, line := range strings.Split(readString("/proc/self/status"), "\n") {
		if rest, ok := strings.CutPrefix(line, "CapEff:"); ok {
			v, _ := strconv.ParseUint(strings.TrimSpace(rest), 16, 64)
			return v
		}
	}
	return 0
}

func readString(p string) string {
	b, _ := os.ReadFile(p)
	return strings.TrimSpace(string(b))
}

func readInt(p string) int64 {
	v, _ := strconv.ParseInt(readString(p), 10, 64)
	return v
}
