package container

import (
	"fmt"
	"runtime"
	"sort"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The filters are hand-assembled classic BPF: x/sys/unix has the structures
// (SockFilter, SockFprog) but no assembler, libseccomp-golang needs cgo and
// the C library, and x/net/bpf is not a dependency; the programs are a few
// dozen instructions of four kinds (load, compare-and-jump, and, return).

// Offsets into struct seccomp_data (linux/seccomp.h): nr, arch, ip, args[6].
const (
	offNr   = 0
	offArch = 4
	offArgs = 16
)

// deniedSyscalls are left out of the allow-list. The set follows the
// syscalls a container runtime's default profile withholds from an
// unprivileged container (module loading, kexec, mount and pivot_root,
// namespace entry, ptrace and cross-process memory access, keyrings, clock
// setting, swap, reboot, bpf, userfaultfd, NUMA policy, io_uring, the new
// mount API). Unlike Docker's default, perf_event_open stays allowed so the
// measurement kernels can still count context switches. The numbers are
// this architecture's (x/sys/unix per GOARCH); the syscalls that exist on
// one architecture only are in archDeniedSyscalls (seccomp_<arch>.go).
var deniedSyscalls = append([]int{
	unix.SYS_ACCT, unix.SYS_ADD_KEY, unix.SYS_BPF, unix.SYS_CLOCK_ADJTIME, unix.SYS_CLOCK_SETTIME,
	unix.SYS_DELETE_MODULE, unix.SYS_FINIT_MODULE,
	unix.SYS_GET_MEMPOLICY, unix.SYS_INIT_MODULE, unix.SYS_KCMP,
	unix.SYS_KEXEC_FILE_LOAD, unix.SYS_KEXEC_LOAD, unix.SYS_KEYCTL, unix.SYS_LOOKUP_DCOOKIE,
	unix.SYS_MBIND, unix.SYS_MOUNT, unix.SYS_MOVE_PAGES, unix.SYS_NAME_TO_HANDLE_AT, unix.SYS_NFSSERVCTL,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_PIVOT_ROOT, unix.SYS_PROCESS_VM_READV, unix.SYS_PROCESS_VM_WRITEV,
	unix.SYS_PTRACE, unix.SYS_QUOTACTL, unix.SYS_REBOOT, unix.SYS_REQUEST_KEY,
	unix.SYS_SET_MEMPOLICY, unix.SYS_SETNS, unix.SYS_SETTIMEOFDAY, unix.SYS_SWAPON, unix.SYS_SWAPOFF,
	unix.SYS_UMOUNT2, unix.SYS_UNSHARE,
	unix.SYS_USERFAULTFD, unix.SYS_VHANGUP, unix.SYS_IO_URING_SETUP,
	unix.SYS_IO_URING_ENTER, unix.SYS_IO_URING_REGISTER, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOVE_MOUNT, unix.SYS_OPEN_TREE, unix.SYS_MOUNT_SETATTR,
	unix.SYS_QUOTACTL_FD, unix.SYS_SET_MEMPOLICY_HOME_NODE,
}, archDeniedSyscalls...)

// nsCloneFlags are the clone flags a runtime's default profile refuses
// (creating namespaces from inside the container).
const nsCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
	unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP

// futex commands the argument-inspecting filter lets through (op & 0x7f):
// WAIT, WAKE, REQUEUE, CMP_REQUEUE, WAKE_OP, WAIT_BITSET, WAKE_BITSET.
var allowedFutexCmds = []uint32{0, 1, 3, 4, 5, 9, 10}

// maxFd is the descriptor bound the argument-inspecting filter enforces on
// read and write (anything above answers EBADF).
const maxFd = 1 << 20

func stmt(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
func jump(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
	return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
}

const (
	ldAbs = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeqK  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jgeK  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	jgtK  = unix.BPF_JMP | unix.BPF_JGT | unix.BPF_K
	jsetK = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
	andK  = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	retK  = unix.BPF_RET | unix.BPF_K
)

var (
	retAllow  = stmt(retK, unix.SECCOMP_RET_ALLOW)
	retEPERM  = stmt(retK, unix.SECCOMP_RET_ERRNO|uint32(unix.EPERM))
	retENOSYS = stmt(retK, unix.SECCOMP_RET_ERRNO|uint32(unix.ENOSYS))
	retEBADF  = stmt(retK, unix.SECCOMP_RET_ERRNO|uint32(unix.EBADF))
)

// argLo and argHi load the low and high 32 bits of argument i (little endian).
func argLo(i int) unix.SockFilter { return stmt(ldAbs, uint32(offArgs+8*i)) }
func argHi(i int) unix.SockFilter { return stmt(ldAbs, uint32(offArgs+8*i+4)) }

// guarded wraps a block that handles syscall nr: the block runs only when A
// holds nr, and must end in a return on every path (it may clobber A).
func guarded(nr int, block []unix.SockFilter) []unix.SockFilter {
	if len(block) > 255 {
		panic("seccomp block too long for a cBPF jump")
	}
	out := []unix.SockFilter{jump(jeqK, uint32(nr), 0, uint8(len(block)))}
	return append(out, block...)
}

// SeccompProgram assembles the filter for mode (nil for SeccompNone). It is
// exported so the spawn kernels can install the same program in a child.
func SeccompProgram(mode Seccomp) ([]unix.SockFilter, error) {
	if auditArch == 0 {
		return nil, fmt.Errorf("seccomp filters are assembled for x86-64 and arm64 only (this is %s)", runtime.GOARCH)
	}
	if mode == SeccompNone {
		return nil, nil
	}
	if mode != SeccompAllowList && mode != SeccompArgs {
		return nil, fmt.Errorf("unknown seccomp mode %d", int(mode))
	}
	prog := []unix.SockFilter{
		// Foreign architectures (int 0x80 from 32-bit x86 code, AArch32
		// compat tasks on arm64) are killed.
		stmt(ldAbs, offArch),
		jump(jeqK, auditArch, 1, 0),
		stmt(retK, unix.SECCOMP_RET_KILL_PROCESS),
		stmt(ldAbs, offNr),
		// x32 syscall numbers (bit 30; x86-64 only, and harmless elsewhere:
		// no syscall number reaches it) are refused.
		jump(jgeK, 0x40000000, 0, 1),
		retEPERM,
	}
	if mode == SeccompArgs {
		// read/write: descriptor must be below maxFd (high word 0, low word < maxFd).
		for _, nr := range []int{unix.SYS_READ, unix.SYS_WRITE} {
			prog = append(prog, guarded(nr, []unix.SockFilter{
				argHi(0),
				jump(jeqK, 0, 1, 0),
				retEBADF,
				argLo(0),
				jump(jgeK, maxFd, 0, 1),
				retEBADF,
				retAllow,
			})...)
		}
		// futex: the command (op & 0x7f) must be one of allowedFutexCmds.
		block := []unix.SockFilter{argLo(1), stmt(andK, 0x7f)}
		n := len(allowedFutexCmds)
		for i, c := range allowedFutexCmds {
			// On a match jump to the ALLOW after the list; else try the next.
			block = append(block, jump(jeqK, c, uint8(n-i), 0))
		}
		block = append(block, retEPERM, retAllow)
		prog = append(prog, guarded(unix.SYS_FUTEX, block)...)
	}
	// clone: refused with namespace flags (flags are argument 0 on x86-64
	// and on arm64).
	prog = append(prog, guarded(unix.SYS_CLONE, []unix.SockFilter{
		argLo(0),
		jump(jsetK, nsCloneFlags, 0, 1),
		retEPERM,
		retAllow,
	})...)
	// clone3 answers ENOSYS so that libc and the Go runtime fall back to clone.
	prog = append(prog, guarded(unix.SYS_CLONE3, []unix.SockFilter{retENOSYS})...)

	// The allow-list as ranges of consecutive numbers: per range
	// "A >= lo ? (A > hi ? next : ALLOW) : next".
	for _, r := range allowedRanges() {
		if r[0] == r[1] {
			prog = append(prog, jump(jeqK, uint32(r[0]), 0, 1), retAllow)
			continue
		}
		prog = append(prog,
			jump(jgeK, uint32(r[0]), 0, 2),
			jump(jgtK, uint32(r[1]), 1, 0),
			retAllow)
	}
	prog = append(prog, retEPERM)
	if len(prog) > 4096 {
		return nil, fmt.Errorf("seccomp program too long (%d instructions)", len(prog))
	}
	return prog, nil
}

// allowedRanges is [0, lastSyscall] minus deniedSyscalls and the syscalls
// handled by their own blocks, as sorted closed ranges.
func allowedRanges() [][2]int {
	skip := map[int]bool{unix.SYS_CLONE: true, unix.SYS_CLONE3: true}
	for _, nr := range deniedSyscalls {
		skip[nr] = true
	}
	var allowed []int
	for nr := 0; nr <= lastSyscall; nr++ {
		if !skip[nr] {
			allowed = append(allowed, nr)
		}
	}
	sort.Ints(allowed)
	var out [][2]int
	for _, nr := range allowed {
		if n := len(out); n > 0 && out[n-1][1] == nr-1 {
			out[n-1][1] = nr
			continue
		}
		out = append(out, [2]int{nr, nr})
	}
	return out
}

// installSeccomp sets no_new_privs and installs prog with
// SECCOMP_FILTER_FLAG_TSYNC, so every thread of the process gets the filter
// (and no_new_privs) at once: a Go process is never single-threaded.
func installSeccomp(prog []unix.SockFilter) error {
	if len(prog) == 0 {
		return nil
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	r, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER,
		unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER, TSYNC): %w", errno)
	}
	if r != 0 {
		return fmt.Errorf("seccomp(SET_MODE_FILTER, TSYNC): thread %d could not be synchronised", r)
	}
	return nil
}
