package memory

// procfs.go: what a process and the machine hold. The readers are per
// platform (procfs_linux.go, procfs_darwin.go); the parsing is here.

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// kbFile parses a /proc file of "Key:   123 kB" lines into bytes per key
// (values without a unit are kept as they are).
func kbFile(path string) (map[string]int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			continue
		}
		if len(fields) > 1 && fields[1] == "kB" {
			n <<= 10
		}
		m[k] = n
	}
	return m, sc.Err()
}

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

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

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
