package container

// container_darwin.go: containers are Linux namespaces, cgroups, seccomp
// and capabilities; macOS has none of them (on a Mac, containers run
// inside a Linux virtual machine). Every way in says so with the
// platform's reason, so the container rows, rings and creation kinds are
// listed as unavailable and never half-run.

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/ctxbench/ctxbench/internal/host/platform"
)

// errNone is why nothing here works on macOS.
func errNone() error {
	_, why := platform.Darwin.Gives(platform.Containers)
	return errors.New(why)
}

func readMounts() ([]mountEntry, error) { return nil, errNone() }

// PathOf fails: macOS has no cgroups.
func PathOf(Hierarchy, int, int) (string, error) { return "", errNone() }

// EnterSelf applies nothing: a plain spec needs nothing, any other cannot
// be built on macOS.
func EnterSelf(spec Spec) error {
	if !spec.NeedsSelfEntry() {
		return nil
	}
	return errNone()
}

// Check says no spec but the plain one can be built on macOS.
func Check(spec Spec) error {
	if spec.IsPlain() {
		return nil
	}
	return errNone()
}

// UserNamespacesAvailable is false on macOS.
func UserNamespacesAvailable() (bool, string) { return false, errNone().Error() }

// SelfApply fails for a spec that needs a process to confine itself.
func SelfApply(spec Spec) (SelfApplied, error) {
	if !spec.NeedsSelfEntry() {
		return SelfApplied{}, nil
	}
	return SelfApplied{}, errNone()
}

// DefaultCapMask is empty: macOS has no capabilities.
func DefaultCapMask() uint64 { return 0 }

// ApplyAttrs sets nothing: only a plain spec exists on macOS.
func ApplyAttrs(*exec.Cmd, Spec) {}

// Start fails: a container cannot be built on macOS.
func (s *Set) Start(*exec.Cmd, string) (*Instance, error) { return nil, errNone() }

// StartIn fails: macOS has no cgroups to start a child in.
func StartIn(*exec.Cmd, ...*Cgroup) error { return errNone() }

// Verify reports that nothing can be verified on macOS.
func Verify(pid int, _ Spec, _ *Cgroup) Verification {
	return Verification{Pid: pid, Problems: []string{fmt.Sprint(errNone())}}
}
