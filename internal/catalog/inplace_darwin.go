package catalog

// inplace_darwin.go: macOS has none of what attach reads (no BPF, no
// cgroups, no /proc); the attach experiment refuses before it asks
// (platform.BPF), and these say why if anything does.

import (
	"errors"
	"fmt"

	"github.com/ctxbench/ctxbench/internal/host/platform"
)

func noInPlace() string { _, why := platform.Darwin.Gives(platform.BPF); return why }

func cgroupDir(name string) (dir, rel string, err error) {
	return "", "", fmt.Errorf("--cgroup %s: %s", name, noInPlace())
}

func tgidOf(int) (int, error) { return 0, errors.New(noInPlace()) }

func commOf(int) string { return "" }

func procCgroups(int) string { return "" }

func machineCounters() TargetCounters { return TargetCounters{Method: noInPlace()} }
