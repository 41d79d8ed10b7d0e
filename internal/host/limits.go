package host

// limits.go: the one reader of the kernel and resource limits that bound
// how many contexts can exist (threads-max, pid_max, max_map_count,
// RLIMIT_NOFILE and RLIMIT_NPROC, namespaces per user, available memory),
// used to refuse a ring or a memory run that cannot fit, and to name the
// limit a failed creation ran into. What each platform has is read in
// limits_linux.go and limits_darwin.go; a limit a platform does not have
// is 0, and no check applies it.

import (
	"fmt"
	"strconv"

	"golang.org/x/sys/unix"
)

// Limits are this machine's limits on contexts, as read now.
type Limits struct {
	ThreadsMax   int64 // kernel.threads-max
	PidMax       int64 // kernel.pid_max (thread ids count too)
	MaxMapCount  int64 // vm.max_map_count (per process)
	Tasks        int64 // tasks (threads) alive on the machine now
	NoFileHard   uint64
	NoFileSoft   uint64
	NProc        uint64 // RLIMIT_NPROC soft; ignored for root
	NProcHard    uint64
	CanRaise     bool  // CAP_SYS_RESOURCE: may raise hard limits
	NoNProc      bool  // CAP_SYS_RESOURCE or CAP_SYS_ADMIN: RLIMIT_NPROC does not apply
	MemAvailable int64 // bytes
	// Namespaces is user.max_<ns>_namespaces by namespace (pid, net, ...).
	Namespaces map[string]int64
	// Sysctl holds, on macOS, the limits it names in its own words
	// (kern.maxproc, kern.num_taskthreads, ...), by name.
	Sysctl map[string]int64
}

// RlimitText writes a resource limit, "unlimited" for RLIM_INFINITY.
func RlimitText(v uint64) string {
	if v == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return strconv.FormatUint(v, 10)
}

// RaiseOpenFiles makes sure this process may hold need descriptors,
// raising RLIMIT_NOFILE's soft limit and, where permitted (root), its hard
// limit; children inherit it.
func RaiseOpenFiles(need uint64) error {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Cur >= need {
		return nil
	}
	want := l
	want.Cur = need
	if want.Max < need {
		want.Max = need
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err != nil {
		return fmt.Errorf("%d open files are needed; RLIMIT_NOFILE is %d (hard %d) and could not be raised: %w (raise it with ulimit -n, or run as root)", need, l.Cur, l.Max, err)
	}
	return nil
}
