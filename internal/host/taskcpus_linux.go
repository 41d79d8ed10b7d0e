package host

import (
	"os"
	"path/filepath"
	"strconv"
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
