package host

// limits_darwin.go: macOS's limits on contexts, from sysctl and getrlimit.
// Linux's names (threads-max, pid_max, max_map_count, namespaces) have no
// counterpart and stay 0, so no check applies them; macOS's own are in
// Limits.Sysctl and named as macOS names them.

import (
	"fmt"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// darwinLimits are the sysctls that bound contexts on macOS.
var darwinLimits = []string{
	"kern.maxproc",         // processes on the machine
	"kern.maxprocperuid",   // processes per user
	"kern.num_threads",     // threads on the machine
	"kern.num_taskthreads", // threads per process
	"kern.maxfiles",        // open files on the machine
	"kern.maxfilesperproc", // open files per process
}

// ReadLimits reads this machine's limits.
func ReadLimits() Limits {
	l := Limits{Namespaces: map[string]int64{}, Sysctl: map[string]int64{}}
	for _, name := range darwinLimits {
		if v, err := unix.SysctlUint32(name); err == nil {
			l.Sysctl[name] = int64(v)
		}
	}
	// Root may raise hard limits, and RLIMIT_NPROC does not bind it.
	l.CanRaise = os.Geteuid() == 0
	l.NoNProc = l.CanRaise
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) == nil {
		l.NoFileSoft, l.NoFileHard = r.Cur, r.Max
	}
	if unix.Getrlimit(unix.RLIMIT_NPROC, &r) == nil {
		l.NProc, l.NProcHard = r.Cur, r.Max
	}
	return l
}

// Describe lists the limits that bound contexts of one kind, as
// "name = value", for a report.
func (l Limits) Describe(context string) []string {
	var out []string
	for _, name := range darwinLimits {
		if v, ok := l.Sysctl[name]; ok {
			out = append(out, fmt.Sprintf("%s = %d", name, v))
		}
	}
	if context == "goroutine" {
		return append(out, "goroutines are bounded by memory only")
	}
	return append(out, fmt.Sprintf("RLIMIT_NPROC = %s (hard %s)", RlimitText(l.NProc), RlimitText(l.NProcHard)))
}

// LimitHint names the limits that a failed creation of errno e most likely
// ran into, as " (...)" to append to the error, or "".
func LimitHint(e int, kind string) string {
	l := ReadLimits()
	named := func(names ...string) string {
		var s string
		for _, n := range names {
			if v, ok := l.Sysctl[n]; ok {
				s += fmt.Sprintf("%s=%d, ", n, v)
			}
		}
		return s
	}
	switch syscall.Errno(e) {
	case syscall.EAGAIN:
		return fmt.Sprintf(" (a %s limit: %sRLIMIT_NPROC=%s; see 'ctxbench ring --help')", kind,
			named("kern.maxproc", "kern.maxprocperuid", "kern.num_threads", "kern.num_taskthreads"), RlimitText(l.NProc))
	case syscall.ENOMEM:
		return " (out of memory or address space)"
	case syscall.EMFILE, syscall.ENFILE:
		return fmt.Sprintf(" (open files: RLIMIT_NOFILE=%d, %s)", l.NoFileSoft,
			strings.TrimRight(named("kern.maxfiles", "kern.maxfilesperproc"), ", "))
	}
	return ""
}
