package procs

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
)

// Allowed lists the CPUs the calling thread may run on.
func Allowed() ([]int, error) { return host.Of(0) }

// Affinity lists the CPUs task tid may run on.
func Affinity(tid int) ([]int, error) { return host.Of(tid) }

// PinProcess sets the affinity of every thread of pid. Threads and processes it
// creates later inherit the mask from their creator.
func PinProcess(pid int, cpus []int) error {
	set := host.Set(cpus)
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
