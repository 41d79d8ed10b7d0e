package memory

// procfs.go: what a process and the machine hold. The readers are per
// platform (procfs_linux.go, procfs_darwin.go); the parsing is here.

import (
	"os"
	"strconv"
	"strings"
)

// procMem is what one process holds: on Linux from smaps_rollup and
// status; on macOS PSS is its nearest equivalent, phys_footprint
// (procfs_darwin.go).
type procMem struct {
	RSS, PSS, Virt int64
	Threads        int64
}

// sysMem is the part of /proc/meminfo that per-context kernel memory shows in
// (zero on macOS, which does not say).
type sysMem struct {
	KernelStack, PageTables, Slab, SUnreclaim, Used int64
}

// settle is Options.NoSettle negated, for the run in progress.
var settle = true

func (a sysMem) minus(b sysMem) sysMem {
	return sysMem{a.KernelStack - b.KernelStack, a.PageTables - b.PageTables, a.Slab - b.Slab,
		a.SUnreclaim - b.SUnreclaim, a.Used - b.Used}
}

// readInt reads a one-number file such as /proc/sys/kernel/pid_max.
func readInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
