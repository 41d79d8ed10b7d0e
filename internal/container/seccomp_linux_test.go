package container

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runBPF interprets the subset of classic BPF the filters use, over a
// struct seccomp_data built from nr, arch and args. It reports the return
// value and whether any argument word was loaded (which is what makes a
// syscall's verdict uncacheable since Linux 5.11).
func runBPF(t *testing.T, prog []unix.SockFilter, arch uint32, nr int, args ...uint64) (ret uint32, loadedArgs bool) {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[0:], uint32(nr))
	binary.LittleEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[16+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case ldAbs:
			if in.K >= 16 {
				loadedArgs = true
			}
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case andK:
			acc &= in.K
		case retK:
			return in.K, loadedArgs
		case jeqK, jgeK, jgtK, jsetK:
			var cond bool
			switch in.Code {
			case jeqK:
				cond = acc == in.K
			case jgeK:
				cond = acc >= in.K
			case jgtK:
				cond = acc > in.K
			case jsetK:
				cond = acc&in.K != 0
			}
			if cond {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		default:
			t.Fatalf("unexpected opcode %#x at %d", in.Code, pc)
		}
	}
	t.Fatal("program fell off the end")
	return 0, false
}

const (
	allow  = unix.SECCOMP_RET_ALLOW
	eperm  = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	enosys = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	ebadf  = unix.SECCOMP_RET_ERRNO | uint32(unix.EBADF)
	kill   = unix.SECCOMP_RET_KILL_PROCESS
)

func TestSeccompVerdicts(t *testing.T) {
	allowList, err := SeccompProgram(SeccompAllowList)
	if err != nil {
		t.Fatal(err)
	}
	args, err := SeccompProgram(SeccompArgs)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := SeccompProgram(SeccompNone); p != nil {
		t.Error("SeccompNone has a program")
	}
	type check struct {
		nr   int
		args []uint64
		want uint32
	}
	common := []check{
		{unix.SYS_GETPID, nil, allow},
		{unix.SYS_EXECVE, nil, allow},
		{unix.SYS_PERF_EVENT_OPEN, nil, allow},
		{unix.SYS_MOUNT, nil, eperm},
		{unix.SYS_PTRACE, nil, eperm},
		{unix.SYS_KEXEC_LOAD, nil, eperm},
		{unix.SYS_UNSHARE, nil, eperm},
		{unix.SYS_CLONE3, nil, enosys},
		{unix.SYS_CLONE, []uint64{unix.CLONE_VM | unix.CLONE_THREAD}, allow},
		{unix.SYS_CLONE, []uint64{unix.CLONE_NEWNET}, eperm},
		{lastSyscall + 1, nil, eperm},
		{0x40000000 | unix.SYS_READ, nil, eperm},
	}
	for _, p := range []struct {
		name  string
		prog  []unix.SockFilter
		extra []check
	}{
		{"allow", allowList, []check{
			{unix.SYS_READ, []uint64{1 << 40}, allow},
			{unix.SYS_FUTEX, []uint64{0, 6}, allow},
		}},
		{"args", args, []check{
			{unix.SYS_READ, []uint64{3}, allow},
			{unix.SYS_WRITE, []uint64{4}, allow},
			{unix.SYS_READ, []uint64{maxFd}, ebadf},
			{unix.SYS_WRITE, []uint64{1 << 40}, ebadf},
			{unix.SYS_FUTEX, []uint64{0, 0x80 | 1}, allow}, // FUTEX_WAKE_PRIVATE
			{unix.SYS_FUTEX, []uint64{0, 0x80 | 9}, allow}, // FUTEX_WAIT_BITSET_PRIVATE
			{unix.SYS_FUTEX, []uint64{0, 6}, eperm},        // FUTEX_LOCK_PI
		}},
	} {
		for _, c := range append(append([]check{}, common...), p.extra...) {
			got, _ := runBPF(t, p.prog, auditArch, c.nr, c.args...)
			if got != c.want {
				t.Errorf("%s: syscall %d args %v: %#x, want %#x", p.name, c.nr, c.args, got, c.want)
			}
		}
		// Another architecture's numbers are killed: 32-bit x86 and AArch32
		// are foreign to both x86-64 and arm64, and each is the other's.
		for _, arch := range []uint32{unix.AUDIT_ARCH_I386, unix.AUDIT_ARCH_ARM, unix.AUDIT_ARCH_X86_64, unix.AUDIT_ARCH_AARCH64} {
			if arch == auditArch {
				continue
			}
			if got, _ := runBPF(t, p.prog, arch, unix.SYS_GETPID); got != kill {
				t.Errorf("%s: foreign arch %#x not killed: %#x", p.name, arch, got)
			}
		}
	}
	// Every denied syscall of this architecture's table is refused, the
	// ones only this architecture has included.
	for _, nr := range deniedSyscalls {
		if got, _ := runBPF(t, allowList, auditArch, nr); got != eperm {
			t.Errorf("denied syscall %d: %#x, want EPERM", nr, got)
		}
	}
	// The cache property: the allow-list decides read/write/futex without
	// looking at arguments; the argument filter cannot.
	for _, nr := range []int{unix.SYS_READ, unix.SYS_WRITE, unix.SYS_FUTEX} {
		if _, loaded := runBPF(t, allowList, auditArch, nr, 3, 1); loaded {
			t.Errorf("allow-list loads arguments for syscall %d", nr)
		}
		if _, loaded := runBPF(t, args, auditArch, nr, 3, 1); !loaded {
			t.Errorf("argument filter does not load arguments for syscall %d", nr)
		}
	}
}
