package container

// start_linux.go: starting a child into its namespaces and cgroups, and
// checking that this process may build a spec.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// ApplyAttrs sets what the spec needs on cmd before it starts: clone flags
// for the namespaces, uid/gid maps for a user namespace, a process group of
// its own (so the whole group can be killed) and SIGKILL when the parent
// dies, and SpecEnv in the environment. Fields of an existing SysProcAttr
// that the spec does not own are kept.
func ApplyAttrs(cmd *exec.Cmd, spec Spec) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	a := cmd.SysProcAttr
	a.Cloneflags |= spec.CloneFlags()
	a.Setpgid = true
	a.Pgid = 0
	a.Pdeathsig = syscall.SIGKILL
	if spec.User {
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		a.GidMappingsEnableSetgroups = false
	}
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = append(cmd.Env, SpecEnv+"="+spec.String())
}

// Start starts cmd as the set's member: its own namespaces (clone flags),
// its own leaf cgroup (entered before the child runs a single instruction
// of its own, so a cgroup namespace is rooted at it), its own process
// group, SIGKILL on parent death. The child is tracked for CleanupAll until
// Release. The caller still owns cmd (Wait it, then call Release).
func (s *Set) Start(cmd *exec.Cmd, member string) (*Instance, error) {
	ApplyAttrs(cmd, s.Spec)
	in := &Instance{Spec: s.Spec}
	if s.tree == nil {
		if err := StartIn(cmd, s.Extra...); err != nil {
			return nil, err
		}
		in.Pid = cmd.Process.Pid
		in.forget = TrackProcess(-in.Pid)
		return in, nil
	}
	cg, err := s.tree.Leaf(member)
	if err != nil {
		return nil, err
	}
	in.Cgroup = cg
	if err := StartIn(cmd, append([]*Cgroup{cg}, s.Extra...)...); err != nil {
		return nil, err
	}
	in.Pid = cmd.Process.Pid
	in.forget = TrackProcess(-in.Pid)
	got, err := PathOf(cg.H, in.Pid, 0)
	if err != nil || got != cg.Rel {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		in.Release()
		if err == nil {
			err = fmt.Errorf("child %d is in cgroup %s, not %s", in.Pid, got, cg.Rel)
		}
		return nil, err
	}
	return in, nil
}

// StartIn starts cmd so that the child is born in every cgroup of cgs (at
// most one of them v2), e.g. its cpu cgroup and a memory cgroup that
// accounts for what it allocates, including what the kernel allocates while
// creating it.
//
// v2: clone3 with CLONE_INTO_CGROUP (SysProcAttr.UseCgroupFD).
// v1 has no CLONE_INTO_CGROUP. A v1 cgroup holds threads, though, and a
// child starts in the cgroups of the thread that forks it: so the forking
// OS thread is moved into each v1 cgroup, the child is started from it, and
// the thread is moved back. The child thus never runs outside its cgroups,
// and its cgroup namespace (if any) is rooted at them, as a runtime does it.
func StartIn(cmd *exec.Cmd, cgs ...*Cgroup) error {
	var v1 []*Cgroup
	for _, cg := range cgs {
		if cg.H.Version != 2 {
			v1 = append(v1, cg)
			continue
		}
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		if cmd.SysProcAttr.UseCgroupFD {
			return errors.New("a child can be born in one v2 cgroup only")
		}
		fd, err := unix.Open(cg.Dir(), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("opening cgroup %s: %w", cg.Dir(), err)
		}
		defer unix.Close(fd)
		cmd.SysProcAttr.UseCgroupFD = true
		cmd.SysProcAttr.CgroupFD = fd
	}
	if len(v1) == 0 {
		return cmd.Start()
	}
	// A goroutine of its own: if the thread cannot be moved back, the
	// goroutine ends still locked and the runtime destroys the thread.
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		tid := unix.Gettid()
		var homes []*Cgroup
		moveBack := func() error {
			var errs []error
			for _, h := range homes {
				if err := h.attachThread(tid); err != nil {
					errs = append(errs, fmt.Errorf("moving the forking thread back to %s: %w", h.Dir(), err))
				}
			}
			return errors.Join(errs...)
		}
		for _, cg := range v1 {
			home, err := PathOf(cg.H, os.Getpid(), tid)
			if err == nil {
				err = cg.attachThread(tid)
			}
			if err != nil {
				if berr := moveBack(); berr != nil {
					done <- errors.Join(err, berr)
					return // still locked: the thread dies with this goroutine
				}
				runtime.UnlockOSThread()
				done <- fmt.Errorf("moving the forking thread into %s: %w", cg.Dir(), err)
				return
			}
			homes = append(homes, &Cgroup{H: cg.H, Rel: home})
		}
		startErr := cmd.Start()
		if err := moveBack(); err != nil {
			if startErr == nil {
				_ = cmd.Process.Kill()
				_, _ = cmd.Process.Wait()
				startErr = errors.New("child killed")
			}
			done <- errors.Join(startErr, err)
			return
		}
		runtime.UnlockOSThread()
		done <- startErr
	}()
	return <-done
}

// Check says whether spec can be built by this process, and if not, why
// (one line, naming what is missing).
func Check(spec Spec) error {
	if err := spec.Validate(); err != nil {
		return err
	}
	caps, err := ownCaps()
	if err != nil {
		return err
	}
	ns := spec.CloneFlags() &^ unix.CLONE_NEWUSER
	if ns != 0 && caps&(1<<unix.CAP_SYS_ADMIN) == 0 && !spec.User {
		return errors.New("namespaces need CAP_SYS_ADMIN (run as root) or a user namespace")
	}
	if spec.User {
		if ok, why := UserNamespacesAvailable(); !ok {
			return errors.New(why)
		}
	}
	if spec.CgroupDepth > 0 {
		h, err := CPUHierarchy()
		if err != nil {
			return err
		}
		if ok, why := h.Usable(); !ok {
			return errors.New(why)
		}
	}
	if spec.Seccomp != SeccompNone {
		if _, err := SeccompProgram(spec.Seccomp); err != nil {
			return err
		}
		if _, err := statusField(0, "Seccomp"); err != nil {
			return errors.New("this kernel does not report seccomp in /proc/<pid>/status")
		}
	}
	if spec.DropCaps && caps&(1<<unix.CAP_SETPCAP) == 0 && !spec.User {
		return errors.New("dropping capabilities from the bounding set needs CAP_SETPCAP")
	}
	return nil
}

// UserNamespacesAvailable reports whether this process may create a user
// namespace, and why not.
func UserNamespacesAvailable() (bool, string) {
	b, err := os.ReadFile("/proc/sys/user/max_user_namespaces")
	if err == nil && len(b) > 0 && (string(b) == "0\n" || string(b) == "0") {
		return false, "user namespaces are disabled (user.max_user_namespaces = 0)"
	}
	if b, err := os.ReadFile("/proc/sys/kernel/unprivileged_userns_clone"); err == nil && string(b) == "0\n" && os.Geteuid() != 0 {
		return false, "unprivileged user namespaces are disabled (kernel.unprivileged_userns_clone = 0)"
	}
	return true, ""
}

func ownCaps() (uint64, error) {
	v, err := statusField(0, "CapEff")
	if err != nil {
		return 0, err
	}
	return parseHex(v)
}
