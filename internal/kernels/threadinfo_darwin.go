package kernels

// threadinfo_darwin.go: what the goroutine kernels read of the thread they
// run on, on macOS: its CPU (pthread_cpu_number_np, where the C kernels are
// built: cpu_darwin.go) and the switches of the whole process
// (proc_pidinfo's pti_csw: macOS counts no thread apart, and its getrusage
// leaves ru_nvcsw and ru_nivcsw at 0).

import (
	"os"

	"github.com/ctxbench/ctxbench/internal/host"
)

// perThreadSwitches: macOS counts switches per process only.
const perThreadSwitches = false

// goSwitchMethod is how the goroutine kernels count on macOS.
const goSwitchMethod = "proc_pidinfo(PROC_PIDTASKINFO) pti_csw of the whole Go process over every measured block (macOS counts no thread apart; voluntary and involuntary are not told apart)"

func getcpu() int { return currentCPU() }

// processSwitches is every switch of the process so far, all as voluntary.
func processSwitches() (int64, int64) {
	ti, err := host.ReadTaskInfo(os.Getpid())
	if err != nil {
		return 0, 0
	}
	return int64(ti.Switches), 0
}

// threadSwitches is not counted on macOS (perThreadSwitches).
func threadSwitches() (int64, int64) { return 0, 0 }
