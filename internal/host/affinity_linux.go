// affinity_linux.go: starting child processes inside a CPU placement. One
// copy of the delicate part — narrowing and restoring the affinity of the
// OS thread that forks — shared by the scheduler, the probes and the pool's
// servers; and pinning a thread or every thread of a process.

package host

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// Set is the CPU mask of cpus.
func Set(cpus []int) unix.CPUSet {
	var s unix.CPUSet
	for _, c := range cpus {
		s.Set(c)
	}
	return s
}

// StartPinned starts cmd from an OS thread whose affinity is cpus. A child
// inherits the affinity of the thread that forks it, so the child and
// everything it starts (every thread of a Go worker's runtime, a server's
// auxiliary processes) run inside the placement from their first
// instruction, with no window in which a sched_setaffinity from outside
// has not landed yet. An empty cpus starts cmd normally.
//
// The calling goroutine is locked to its thread while the mask is
// narrowed. If the old mask cannot be restored the thread stays locked:
// the runtime then never hands a pinned thread to another goroutine (it
// retires it when this goroutine exits), the child is killed and reaped
// (so an error always means nothing was left running), and the error says
// so.
func StartPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	set := Set(cpus)
	runtime.LockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("reading CPU affinity: %w", err)
	}
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("cannot run on CPUs %v: %w", cpus, err)
	}
	startErr := cmd.Start()
	if err := unix.SchedSetaffinity(0, &old); err != nil {
		if startErr == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		return fmt.Errorf("restoring CPU affinity after starting %s: %w", cmd.Path, err)
	}
	runtime.UnlockOSThread()
	return startErr
}

// List is the CPUs of s in ascending order.
func List(s unix.CPUSet) []int {
	var out []int
	for c := 0; c < len(s)*64; c++ {
		if s.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// Of lists the CPUs task tid may run on (0: the calling thread).
func Of(tid int) ([]int, error) {
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &s); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	return List(s), nil
}

// PinThread pins the calling OS thread to cpus (the caller has locked its
// goroutine to the thread).
func PinThread(cpus []int) error {
	set := Set(cpus)
	return unix.SchedSetaffinity(0, &set)
}

// PinProcess sets the affinity of every thread of pid; threads and
// processes it creates later inherit the mask from their creator. A pid
// that is gone is os.ErrNotExist.
func PinProcess(pid int, cpus []int) error {
	set := Set(cpus)
	tasks, err := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	if err != nil {
		return fmt.Errorf("pin pid %d: %w", pid, os.ErrNotExist)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("pin pid %d tid %d to CPUs %v: %w", pid, tid, cpus, err)
		}
	}
	return nil
}
