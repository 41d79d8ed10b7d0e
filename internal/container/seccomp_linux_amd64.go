package container

import "golang.org/x/sys/unix"

// The x86-64 side of the seccomp filters: its audit architecture, the
// highest syscall number the allow-list considers (newer numbers fall to
// the default action like any syscall not listed), and the denied syscalls
// that exist on x86-64 only.
const (
	auditArch   = unix.AUDIT_ARCH_X86_64
	lastSyscall = 471
)

var archDeniedSyscalls = []int{
	unix.SYS_CREATE_MODULE, unix.SYS_GET_KERNEL_SYMS, unix.SYS_QUERY_MODULE, unix.SYS_IOPERM, unix.SYS_IOPL,
	unix.SYS_SYSFS, unix.SYS__SYSCTL, unix.SYS_USELIB, unix.SYS_USTAT, unix.SYS_AFS_SYSCALL, unix.SYS_TUXCALL,
	unix.SYS_SECURITY, unix.SYS_PUTPMSG, unix.SYS_GETPMSG,
}
