package spawn

// spawn_darwin.go: macOS has no execveat, no container to create, and its
// C kernels have no creation kernels (kernels.SpawnBuilt is false there):
// only the goroutine kinds run, and these are never reached by another.

import (
	"errors"
	"os"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// execveatExists is false: execveat is Linux's.
func execveatExists() bool { return false }

func runContainer(kernels.Block, container.Spec) (kernels.Output, string, []string, error) {
	_, why := platform.Darwin.Gives(platform.Containers)
	return kernels.Output{}, "", nil, errors.New(why)
}

// selfRSS is this process's resident size in bytes (proc_pid_rusage; 0
// if unreadable).
func selfRSS() int64 {
	ri, err := host.ReadRusageInfo(os.Getpid())
	if err != nil {
		return 0
	}
	return int64(ri.ResidentSize)
}

// thpSetting is "none": macOS has no transparent huge pages to set.
func thpSetting() string { return "none (macOS)" }
