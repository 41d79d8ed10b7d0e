package procs

import (
	"errors"
	"fmt"
	"os"

	"github.com/ctxbench/ctxbench/internal/host"
)

// Allowed lists the CPUs the calling thread may run on.
func Allowed() ([]int, error) { return host.Of(0) }

// Affinity lists the CPUs task tid may run on.
func Affinity(tid int) ([]int, error) { return host.Of(tid) }

// PinProcess sets the affinity of every thread of pid (host.PinProcess). Threads
// and processes it creates later inherit the mask from their creator.
func PinProcess(pid int, cpus []int) error {
	err := host.PinProcess(pid, cpus)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("pin pid %d: %w", pid, ErrGone)
	}
	return err
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
