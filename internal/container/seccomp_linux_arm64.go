package container

import "golang.org/x/sys/unix"

// The arm64 side of the seccomp filters: its audit architecture and the
// highest syscall number the allow-list considers (arm64 uses the generic
// table, asm-generic/unistd.h, whose numbers from 403 up are shared by
// every architecture). None of the denied syscalls is arm64's alone: the
// x86-64 ones (ioperm, iopl, the old module calls, uselib, ustat, sysfs,
// _sysctl...) were never in the generic table.
const (
	auditArch   = unix.AUDIT_ARCH_AARCH64
	lastSyscall = 471
)

var archDeniedSyscalls []int
