package container

// enter_linux.go: what a process started into a container applies to
// itself — the capability drop, no_new_privs and the seccomp filter — and
// the check that it took effect.

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

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
	for _, f := range prog {
		s.Seccomp = append(s.Seccomp, Filter{Code: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K})
	}
	return s, nil
}

// enteredEnv marks the second stage of EnterSelf (after the re-exec that
// makes a capability drop apply to every thread).
const enteredEnv = "CTXBENCH_CONTAINER_ENTERED"
