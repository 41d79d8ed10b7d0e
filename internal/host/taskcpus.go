package host

// taskcpus.go: where a process's threads ran, seen from outside. A probe of
// another runtime cannot report the CPU it ran on at its sample boundaries
// as the C kernels do, so the worker samples the CPU the kernel last ran
// each of its threads on (Linux: /proc/PID/task/TID/stat, field 39, read
// by taskcpus_linux.go; macOS does not say: taskcpus_darwin.go) while it
// runs.

import (
	"strconv"
	"strings"
)

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
