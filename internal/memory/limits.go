package memory

import (
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
)

// prepareLimits reads the limits that bound n contexts of kind k
// (host.ReadLimits), raises the soft RLIMIT_NPROC to the hard one where
// it would bind (a process may do that; sysctls it only reports), and says
// what it found and did.
func prepareLimits(k Kind, n int) (limits, notes []string) {
	l := host.ReadLimits()
	limits = l.Describe(k.Context)
	if k.Context == "goroutine" {
		return limits, nil
	}
	var rl unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NPROC, &rl); err == nil {
		need := uint64(l.Tasks) + uint64(n) + 64
		if rl.Cur != unix.RLIM_INFINITY && rl.Cur < need {
			old := rl.Cur
			rl.Cur = rl.Max
			if rl.Max != unix.RLIM_INFINITY && rl.Max > need {
				rl.Cur = need
			}
			if err := unix.Setrlimit(unix.RLIMIT_NPROC, &rl); err == nil {
				notes = append(notes, fmt.Sprintf("raised the soft RLIMIT_NPROC from %s to %s", host.RlimitText(old), host.RlimitText(rl.Cur)))
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

// explainLimit turns a creation failure into a message naming the limit
// that most likely stopped it.
func explainLimit(k Kind, errText string) string {
	l := host.ReadLimits()
	msg := "creation stopped: " + errText
	for _, s := range []struct {
		name  string
		value int64
	}{{"kernel.pid_max", l.PidMax}, {"kernel.threads-max", l.ThreadsMax}} {
		if s.value > 0 && l.Tasks >= s.value-16 {
			return fmt.Sprintf("%s; %s = %d reached (%d tasks): a sysctl, which ctxbench reports but does not change", msg, s.name, s.value, l.Tasks)
		}
	}
	if l.NProc != unix.RLIM_INFINITY && uint64(l.Tasks) >= l.NProc-16 && os.Geteuid() != 0 {
		return fmt.Sprintf("%s; RLIMIT_NPROC = %d reached (ulimit -u)", msg, l.NProc)
	}
	if k.Context == "thread" && (strings.Contains(errText, "Resource temporarily unavailable") || strings.Contains(errText, "Cannot allocate memory")) {
		return msg + "; likely vm.max_map_count (two mappings per thread stack) or memory"
	}
	return msg
}
