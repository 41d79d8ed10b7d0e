package host

// cpuclock_darwin.go: macOS gives no per-CPU idle, busy or stolen time to a
// program that does not use the Mach host interface (host_processor_info),
// and ctxbench does not: a block's contention is not measured there
// (platform.CPUTime), and says so rather than reading as "no contention".

import (
	"slices"
	"time"
)

// ReadCPUClock is an unknown clock: macOS does not say where a CPU's time
// went.
func ReadCPUClock([]int) CPUClock { return CPUClock{At: time.Now(), Unknown: true} }

// ReadWakeupIPIs is -1: macOS does not count wake-up interrupts per CPU.
func ReadWakeupIPIs([]int) int64 { return -1 }

// OtherCPUs are the CPUs not in cpus.
func OtherCPUs(cpus []int) []int {
	var out []int
	for _, c := range all() {
		if !slices.Contains(cpus, c) {
			out = append(out, c)
		}
	}
	return out
}
