package memory

// procfs_darwin.go: a process's memory on macOS, from proc_pid_rusage and
// proc_pidinfo. macOS has no proportional set size: PSS is filled with its
// nearest equivalent, phys_footprint (the memory charged to the process,
// shared pages it dirtied counted whole), and every result says so. The
// machine-wide kernel figures (kernel stacks, page tables, slab) are not
// read: macOS gives them only through the Mach host interface.

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

func readProcMem(pid int) (procMem, error) {
	ri, err := host.ReadRusageInfo(pid)
	if err != nil {
		return procMem{}, err
	}
	ti, err := host.ReadTaskInfo(pid)
	if err != nil {
		return procMem{}, err
	}
	return procMem{RSS: int64(ri.ResidentSize), PSS: int64(ri.PhysFootprint), Virt: int64(ti.VirtualSize), Threads: int64(ti.Threads)}, nil
}

// readSysMem is zero: macOS's kernel figures are not read.
func readSysMem() (sysMem, error) { return sysMem{}, nil }

func settledSysMem() (sysMem, error) { return readSysMem() }

// procState is the process's state letter (R, S, T, Z...).
func procState(pid int) (byte, error) {
	st, err := procs.ReadStat(pid)
	if err != nil {
		return 0, fmt.Errorf("pid %d: %w", pid, err)
	}
	return st.State[0], nil
}

// platformNotes say what the figures are on macOS.
func platformNotes() []string {
	return []string{
		"macOS: pss is phys_footprint from proc_pid_rusage, PSS's nearest equivalent (macOS has no proportional set size: shared pages a process dirtied count whole); rss is its resident size, virtual its task's virtual size",
		"macOS: kernel_stack, page_tables, slab and system_used are not measured (0): macOS gives them only through the Mach host interface",
	}
}
