package memory

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// sysLimit is one kernel limit that can bound how many contexts exist.
type sysLimit struct {
	name  string // as the user would look it up
	path  string
	value int64
}

func readSysLimits(k Kind) []sysLimit {
	paths := []struct{ name, path string }{
		{"kernel.pid_max", "/proc/sys/kernel/pid_max"},
		{"kernel.threads-max", "/proc/sys/kernel/threads-max"},
	}
	if k.Context == "thread" {
		paths = append(paths, struct{ name, path string }{"vm.max_map_count", "/proc/sys/vm/max_map_count"})
	}
	if k.Context == "container" {
		for _, ns := range []string{"pid", "net", "mnt", "ipc", "uts", "cgroup"} {
			paths = append(paths, struct{ name, path string }{"user.max_" + ns + "_namespaces", "/proc/sys/user/max_" + ns + "_namespaces"})
		}
	}
	var out []sysLimit
	for _, p := range paths {
		if v, err := readInt(p.path); err == nil {
			out = append(out, sysLimit{p.name, p.path, v})
		}
	}
	return out
}

// tasksNow counts the tasks (threads) on the machine, from /proc/loadavg's
// "running/total" field.
func tasksNow() int64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 4 {
		return 0
	}
	_, total, _ := strings.Cut(f[3], "/")
	n, _ := strconv.ParseInt(total, 10, 64)
	return n
}

// prepareLimits reads the limits that bound n contexts of kind k, raises
// the soft RLIMIT_NPROC to the hard one where it would bind (a process may
// do that; sysctls it only reports), and says what it found and did.
func prepareLimits(k Kind, n int) (limits, notes []string) {
	for _, l := range readSysLimits(k) {
		limits = append(limits, fmt.Sprintf("%s = %d", l.name, l.value))
	}
	tasks := tasksNow()
	limits = append(limits, fmt.Sprintf("tasks running on the machine before the run = %d", tasks))
	if k.Context == "goroutine" {
		if m, err := kbFile("/proc/meminfo"); err == nil {
			limits = append(limits, fmt.Sprintf("MemAvailable = %d MiB (goroutines are bounded by memory only)", m["MemAvailable"]>>20))
		}
		return limits, nil
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &rl); err == nil {
		limits = append(limits, fmt.Sprintf("RLIMIT_NPROC = %s (hard %s)", rlimitText(rl.Cur), rlimitText(rl.Max)))
		need := uint64(tasks) + uint64(n) + 64
		if rl.Cur != unix.RLIM_INFINITY && rl.Cur < need {
			old := rl.Cur
			rl.Cur = rl.Max
			if rl.Max != unix.RLIM_INFINITY && rl.Max > need {
				rl.Cur = need
			}
			if err := unix.Setrlimit(unix.RLIMIT_NPROC, &rl); err == nil {
				notes = append(notes, fmt.Sprintf("raised the soft RLIMIT_NPROC from %s to %s", rlimitText(old), rlimitText(rl.Cur)))
			} else {
				notes = append(notes, fmt.Sprintf("could not raise RLIMIT_NPROC: %v", err))
			}
		}
	}
	if os.Geteuid() == 0 {
		notes = append(notes, "running as root: RLIMIT_NPROC does not apply (CAP_SYS_ADMIN/CAP_SYS_RESOURCE)")
	}
	return limits, notes
}

func rlimitText(v uint64) string {
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return strconv.FormatUint(v, 10)
}

// explainLimit turns a creation failure into a message naming the limit
// that most likely stopped it.
func explainLimit(k Kind, errText string) string {
	tasks := tasksNow()
	msg := "creation stopped: " + errText
	for _, l := range readSysLimits(k) {
		switch l.name {
		case "kernel.pid_max", "kernel.threads-max":
			if tasks >= l.value-16 {
				return fmt.Sprintf("%s; %s = %d reached (%d tasks): a sysctl, which ctxbench reports but does not change", msg, l.name, l.value, tasks)
			}
		}
	}
	var rl unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &rl) == nil && rl.Cur != unix.RLIM_INFINITY && uint64(tasks) >= rl.Cur-16 && os.Geteuid() != 0 {
		return fmt.Sprintf("%s; RLIMIT_NPROC = %d reached (ulimit -u)", msg, rl.Cur)
	}
	if k.Context == "thread" && (strings.Contains(errText, "Resource temporarily unavailable") || strings.Contains(errText, "Cannot allocate memory")) {
		return msg + "; likely vm.max_map_count (two mappings per thread stack) or memory"
	}
	return msg
}
