package host

// taskcpus.go: where a process's threads ran, seen from outside. A probe of
// another runtime cannot report the CPU it ran on at its sample boundaries
// as the C kernels do, so the worker samples the CPU the kernel last ran
// each of its threads on (/proc/PID/task/TID/stat, field 39) while it runs.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// TaskCPUs is a mask (bit i: CPU i, the first 64) of the CPUs the threads
// of process pid last ran on, read now; 0 when none could be read (the
// process is gone).
func TaskCPUs(pid int) uint64 {
	dir := filepath.Join("/proc", strconv.Itoa(pid), "task")
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	var mask uint64
	for _, t := range tasks {
		b, err := os.ReadFile(filepath.Join(dir, t.Name(), "stat"))
		if err != nil {
			continue
		}
		if cpu, ok := lastCPU(string(b)); ok && cpu < 64 {
			mask |= 1 << uint(cpu)
		}
	}
	return mask
}

// lastCPU is the processor field of a /proc stat line: the 37th field
// after the command, which is in parentheses and may hold spaces or
// parentheses itself (hence from the last ')').
func lastCPU(stat string) (int, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	const processor = 39 - 3 // fields 1 and 2 are before ')'; f[0] is field 3
	if len(f) <= processor {
		return 0, false
	}
	cpu, err := strconv.Atoi(f[processor])
	return cpu, err == nil && cpu >= 0
}
