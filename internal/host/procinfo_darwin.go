package host

// procinfo_darwin.go: what macOS's kernel says about a process. libproc's
// proc_pidinfo and proc_pid_rusage are both the proc_info system call,
// which golang.org/x/sys/unix does not wrap, so it is called here by its
// number; what it fills is read by machinfo.go.

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

const (
	procInfoCallPIDInfo   = 2 // PROC_INFO_CALL_PIDINFO: proc_pidinfo
	procInfoCallPIDRusage = 9 // PROC_INFO_CALL_PIDRUSAGE: proc_pid_rusage
	procPIDTaskInfo       = 4 // PROC_PIDTASKINFO
	rusageInfoV4          = 4 // RUSAGE_INFO_V4
)

// ReadTaskInfo is proc_pidinfo(pid, PROC_PIDTASKINFO): the process's
// threads, context switches, times. Another user's process needs root.
func ReadTaskInfo(pid int) (TaskInfo, error) {
	b := make([]byte, SizeofTaskInfo)
	//nolint:staticcheck // SA1019: libSystem's wrapper, proc_pidinfo, is C; x/sys/unix has none
	n, _, e := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPIDInfo, uintptr(pid), procPIDTaskInfo, 0,
		uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return TaskInfo{}, fmt.Errorf("proc_pidinfo(%d, PROC_PIDTASKINFO): %w", pid, e)
	}
	if int(n) != len(b) {
		return TaskInfo{}, fmt.Errorf("proc_pidinfo(%d, PROC_PIDTASKINFO): %d bytes, want %d", pid, n, len(b))
	}
	return ParseTaskInfo(b)
}

// ReadRusageInfo is proc_pid_rusage(pid, RUSAGE_INFO_V4): the process's
// footprint, instructions and cycles.
func ReadRusageInfo(pid int) (RusageInfo, error) {
	b := make([]byte, SizeofRusageInfoV4)
	//nolint:staticcheck // SA1019: libSystem's wrapper, proc_pid_rusage, is C; x/sys/unix has none
	_, _, e := unix.Syscall6(unix.SYS_PROC_INFO, procInfoCallPIDRusage, uintptr(pid), rusageInfoV4, 0,
		uintptr(unsafe.Pointer(&b[0])), 0)
	if e != 0 {
		return RusageInfo{}, fmt.Errorf("proc_pid_rusage(%d, RUSAGE_INFO_V4): %w", pid, e)
	}
	return ParseRusageInfoV4(b)
}

// ReadTimebase is the timebase of the kernel's tick counts (sysctl
// hw.tbfrequency; see TimebaseOf).
func ReadTimebase() (Timebase, error) {
	hz, err := unix.SysctlUint64("hw.tbfrequency")
	if err != nil {
		return Timebase{}, fmt.Errorf("sysctl hw.tbfrequency: %w", err)
	}
	return TimebaseOf(hz)
}

// ThreadCount is how many threads process pid has now.
func ThreadCount(pid int) (int, error) {
	ti, err := ReadTaskInfo(pid)
	if err != nil {
		return 0, err
	}
	return int(ti.Threads), nil
}

// IsOwnThread is false: only the BPF tracer (Linux) names threads by id.
func IsOwnThread(int) bool { return false }

// SelfExe is this binary's path, to re-execute it.
func SelfExe() string {
	exe, err := os.Executable()
	if err != nil {
		return os.Args[0]
	}
	return exe
}
