// affinity_darwin.go: macOS cannot pin. A thread's affinity tag
// (THREAD_AFFINITY_POLICY) is a hint that threads with one tag share an L2,
// and Apple silicon ignores it; nothing makes a thread run on a chosen CPU.
// Every placement is therefore "unpinned" (internal/schedule), and a
// request to narrow where something runs is refused rather than ignored:
// a label that said "pinned" would be false.

package host

import (
	"errors"
	"fmt"
	"os/exec"
	"runtime"
	"slices"
)

// ErrNoPinning is every request to pin on macOS.
var ErrNoPinning = errors.New("macOS cannot pin a thread to a CPU (affinity tags are hints; Apple silicon ignores them)")

// StartPinned starts cmd. Only "anywhere" can be honoured: cpus must be
// empty or every CPU of the machine.
func StartPinned(cmd *exec.Cmd, cpus []int) error {
	if len(cpus) > 0 && !slices.Equal(cpus, all()) {
		return fmt.Errorf("cannot run on CPUs %v: %w", cpus, ErrNoPinning)
	}
	return cmd.Start()
}

// Of lists the CPUs a task may run on: on macOS every CPU, always.
func Of(int) ([]int, error) { return all(), nil }

// PinThread refuses: macOS cannot pin.
func PinThread(cpus []int) error { return fmt.Errorf("CPUs %v: %w", cpus, ErrNoPinning) }

// PinProcess refuses: macOS cannot pin.
func PinProcess(pid int, cpus []int) error {
	return fmt.Errorf("pid %d to CPUs %v: %w", pid, cpus, ErrNoPinning)
}

// all is every CPU of the machine: the numbers pthread_cpu_number_np
// returns run from 0 to the count of logical CPUs less one.
func all() []int {
	out := make([]int, runtime.NumCPU())
	for i := range out {
		out[i] = i
	}
	return out
}
