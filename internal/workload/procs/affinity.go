package procs

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// CPUSet builds a unix.CPUSet from CPU numbers.
func CPUSet(cpus []int) unix.CPUSet {
	var s unix.CPUSet
	s.Zero()
	for _, c := range cpus {
		s.Set(c)
	}
	return s
}

// CPUList lists the CPUs in s in ascending order.
func CPUList(s unix.CPUSet) []int {
	var out []int
	for c := 0; c < len(s)*64; c++ {
		if s.IsSet(c) {
			out = append(out, c)
		}
	}
	return out
}

// Allowed lists the CPUs the calling thread may run on.
func Allowed() ([]int, error) {
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(0, &s); err != nil {
		return nil, fmt.Errorf("sched_getaffinity: %w", err)
	}
	return CPUList(s), nil
}

// Affinity lists the CPUs task tid may run on.
func Affinity(tid int) ([]int, error) {
	var s unix.CPUSet
	if err := unix.SchedGetaffinity(tid, &s); err != nil {
		return nil, err
	}
	return CPUList(s), nil
}

// PinProcess sets the affinity of every thread of pid. Threads and processes it
// creates later inherit the mask from their creator.
func PinProcess(pid int, cpus []int) error {
	set := CPUSet(cpus)
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return fmt.Errorf("pin pid %d: %w", pid, ErrGone)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("pin pid %d tid %d to CPUs %v: %w", pid, tid, cpus, err)
		}
	}
	return nil
}

// PinSelf pins every thread of the calling process. It goes over the thread list
// twice because the Go runtime may start a thread from a not-yet-pinned one while
// the first pass runs.
func PinSelf(cpus []int) error {
	for i := 0; i < 2; i++ {
		if err := PinProcess(os.Getpid(), cpus); err != nil {
			return err
		}
	}
	return nil
}

// StartPinned starts cmd from an OS thread whose affinity is cpus, so the child and
// everything it forks inherit the mask from the first instruction (a server's
// auxiliary processes included). An empty cpus starts it normally.
func StartPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) == 0 {
		return cmd.Start()
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("sched_getaffinity: %w", err)
	}
	set := CPUSet(cpus)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pin starting thread to CPUs %v: %w", cpus, err)
	}
	startErr := cmd.Start()
	if err := unix.SchedSetaffinity(0, &old); err != nil && startErr == nil {
		return fmt.Errorf("restore thread affinity: %w", err)
	}
	return startErr
}
