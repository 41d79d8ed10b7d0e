package host

// supervise_darwin.go: macOS has neither a parent-death signal nor a child
// subreaper. A child this binary starts (a worker, a partner, a parked
// context) watches its parent instead: a kqueue EVFILT_PROC NOTE_EXIT
// filter on the parent's pid, registered first thing, and the child kills
// itself when it fires — or at once, when the parent was gone before the
// filter was registered (the child is then launchd's). Another program a
// run starts (a probe's runtime, a server) cannot watch: a ctxbench killed
// with SIGKILL can leave one running there (platform.DeathSignal says so).

import (
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// DieWithParent returns attr (a fresh one when nil): macOS has no death
// signal to set. A child of this binary watches its parent (WatchParent).
func DieWithParent(attr *syscall.SysProcAttr) *syscall.SysProcAttr {
	if attr == nil {
		attr = &syscall.SysProcAttr{}
	}
	return attr
}

// WatchParent ends this process when its parent exits: a goroutine waits
// on a kqueue for the parent's NOTE_EXIT and sends this process SIGKILL.
// It returns once the watch is in place.
func WatchParent() {
	parent := os.Getppid()
	kill := func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	kq, err := unix.Kqueue()
	if err != nil {
		return // no watch: the process groups the run kills still end it
	}
	ev := []unix.Kevent_t{{Ident: uint64(parent), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}}
	if _, err := unix.Kevent(kq, ev, nil, nil); err != nil || os.Getppid() != parent {
		// ESRCH: the parent is already gone (and this process reparented).
		kill()
		return
	}
	go func() {
		out := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, out, nil)
			if err == unix.EINTR {
				continue
			}
			if err != nil || n > 0 {
				kill()
				return
			}
		}
	}()
}

// AdoptOrphans does nothing: macOS has no child subreaper.
func AdoptOrphans() {}

// ChildrenOfThisBinary lists the children of this process that run this
// binary (by its name, as the kernel keeps the first 16 bytes of it), from
// sysctl kern.proc.all.
func ChildrenOfThisBinary() []Child {
	self, err := os.Executable()
	if err != nil {
		return nil
	}
	name := filepath.Base(self)
	if len(name) > 16 { // MAXCOMLEN
		name = name[:16]
	}
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	me := int32(os.Getpid())
	var out []Child
	for _, p := range procs {
		if p.Eproc.Ppid != me || unix.ByteSliceToString(p.Proc.P_comm[:]) != name {
			continue
		}
		const sZomb = 5 // SZOMB, sys/proc.h
		out = append(out, Child{PID: int(p.Proc.P_pid), Zombie: p.Proc.P_stat == sZomb})
	}
	return out
}
