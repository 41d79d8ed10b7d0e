package container

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// enteredEnv marks the second stage of EnterSelf (after the re-exec that
// makes a capability drop apply to every thread).
const enteredEnv = "CTXBENCH_CONTAINER_ENTERED"

// EnterFromEnv is EnterSelf for the spec ApplyAttrs put into SpecEnv; with
// no SpecEnv it does nothing and returns the plain spec.
func EnterFromEnv() (Spec, error) {
	text := os.Getenv(SpecEnv)
	if text == "" {
		return Spec{}, nil
	}
	spec, err := ParseSpec(text)
	if err != nil {
		return Spec{}, err
	}
	return spec, EnterSelf(spec)
}

// EnterSelf applies to the calling process what only a process can apply to
// itself: the capability drop and the seccomp filter of spec (namespaces
// and the cgroup were entered when the parent started it). Call it first
// thing in the child's main, before opening anything or starting
// goroutines: when capabilities are dropped, it re-executes the program
// (same argv, same environment plus a marker; inherited descriptors stay
// open) and returns only in the re-executed copy.
//
// Why the re-exec: capabilities are per thread, a Go process always has
// several threads, and syscall.AllThreadsSyscall is refused in programs
// that use cgo. So one locked thread drops its capabilities (bounding set
// included, so exec as root cannot regain them) and execs; the new image
// starts with that thread's credentials only, and every thread the runtime
// then creates inherits them. The seccomp filter needs no re-exec: it is
// installed with SECCOMP_FILTER_FLAG_TSYNC on all threads at once.
func EnterSelf(spec Spec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	if !spec.NeedsSelfEntry() {
		return nil
	}
	if spec.DropCaps && os.Getenv(enteredEnv) != spec.String() {
		return dropCapsAndReexec(spec)
	}
	os.Unsetenv(enteredEnv)
	// Keep SIGKILL on parent death across the credential change and exec.
	_ = unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGKILL), 0, 0, 0)
	if spec.Seccomp != SeccompNone {
		prog, err := SeccompProgram(spec.Seccomp)
		if err != nil {
			return err
		}
		if err := installSeccomp(prog); err != nil {
			return err
		}
	}
	return checkSelf(spec)
}

func dropCapsAndReexec(spec Spec) error {
	// Never unlocked: this thread either execs or reports failure with
	// reduced capabilities, and must not run other goroutines then.
	runtime.LockOSThread()
	if err := dropCapsThisThread(); err != nil {
		return fmt.Errorf("dropping capabilities: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %w", err)
	}
	env := append(os.Environ(), enteredEnv+"="+spec.String())
	err := unix.Exec("/proc/self/exe", os.Args, env)
	return fmt.Errorf("re-executing after the capability drop: %w", err)
}

// checkSelf confirms from /proc/self/status that the entry took effect.
func checkSelf(spec Spec) error {
	st, err := readStatus(0)
	if err != nil {
		return err
	}
	if spec.Seccomp != SeccompNone {
		if mode, _ := strconv.Atoi(st["Seccomp"]); mode != 2 {
			return fmt.Errorf("seccomp mode is %d after installing the filter", mode)
		}
	}
	if spec.DropCaps {
		eff, err := parseHex(st["CapEff"])
		if err != nil || eff&^DefaultCapMask() != 0 {
			return fmt.Errorf("CapEff %s after the capability drop", st["CapEff"])
		}
	}
	return nil
}

// SelfApplied is the part of a spec a process applies to itself, as values
// a process that runs no Go code can apply (a single-threaded side does it
// in C before its kernel; internal/kernels/confine.c): the capabilities it
// keeps, the kernel's last capability, and the seccomp program.
type SelfApplied struct {
	DropCaps bool
	KeepCaps uint64
	LastCap  int
	Seccomp  []unix.SockFilter
}

// SelfApply returns what a process started into a container of spec must
// apply to itself.
func SelfApply(spec Spec) (SelfApplied, error) {
	if err := spec.Validate(); err != nil {
		return SelfApplied{}, err
	}
	var s SelfApplied
	if spec.DropCaps {
		last, err := lastCap()
		if err != nil {
			return SelfApplied{}, fmt.Errorf("reading cap_last_cap: %w", err)
		}
		s.DropCaps, s.KeepCaps, s.LastCap = true, DefaultCapMask(), int(last)
	}
	prog, err := SeccompProgram(spec.Seccomp)
	if err != nil {
		return SelfApplied{}, err
	}
	s.Seccomp = prog
	return s, nil
}
