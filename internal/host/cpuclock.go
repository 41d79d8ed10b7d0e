package host

// cpuclock.go: where the time of a set of CPUs went — idle, stolen by the
// hypervisor, or busy. Linux's readers of /proc/stat's per-CPU lines and of
// cpuidle's residency counters are in cpuclock_linux.go; macOS gives no
// such figure (cpuclock_darwin.go). A block's contention is what was busy
// on its CPUs beyond its own processes' CPU time.

import (
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// CPUClock is the time of a set of CPUs at one moment, in nanoseconds
// since boot, summed over the CPUs.
type CPUClock struct {
	At time.Time
	// IdleNS is time in idle states: from cpuidle's residency counters
	// (microseconds) where every CPU has them, else /proc/stat's idle and
	// iowait ticks (10 ms each). IdlePrecise says which.
	IdleNS      int64
	IdlePrecise bool
	// StealNS is time the hypervisor ran something else while the guest
	// wanted the CPU (/proc/stat, 10 ms ticks).
	StealNS int64
	// BusyNS is user + nice + system + irq + softirq (/proc/stat ticks).
	BusyNS int64
	// Unknown: the platform gives no per-CPU time (macOS; see
	// platform.CPUTime), and the rest is zero.
	Unknown bool
}

// parseWakeupIPIs reads /proc/interrupts: its header names a column per
// online CPU ("CPU0 CPU1 ..."), and each counter line is "RES: n0 n1 ...
// Rescheduling interrupts". -1 when a line is missing (not x86) or a CPU
// has no column.
func parseWakeupIPIs(text string, cpus []int) int64 {
	lines := strings.Split(text, "\n")
	column := map[int]int{}
	for i, h := range strings.Fields(lines[0]) {
		if n, err := strconv.Atoi(strings.TrimPrefix(h, "CPU")); err == nil && strings.HasPrefix(h, "CPU") {
			column[n] = i
		}
	}
	var sum int64
	found := 0
	for _, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) == 0 || (f[0] != "RES:" && f[0] != "CAL:") {
			continue
		}
		found++
		for _, cpu := range cpus {
			i, ok := column[cpu]
			if !ok || i+1 >= len(f) {
				return -1
			}
			v, err := strconv.ParseInt(f[i+1], 10, 64)
			if err != nil {
				return -1
			}
			sum += v
		}
	}
	if found != 2 {
		return -1
	}
	return sum
}

// OwnCPU is the CPU time of this process and of its children it has
// reaped (getrusage RUSAGE_SELF and RUSAGE_CHILDREN), in nanoseconds.
func OwnCPU() int64 {
	var self, kids unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &self)
	_ = unix.Getrusage(unix.RUSAGE_CHILDREN, &kids)
	return self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano()
}

// OtherShare is the share of n CPUs' time between two readings that was
// neither idle nor own (this process's CPU time meanwhile): other work, and
// time the hypervisor stole (not idle either). 0 when no time passed.
func OtherShare(c0, c1 CPUClock, own int64, n int) float64 {
	if c0.Unknown || c1.Unknown {
		return 0
	}
	wall := c1.At.Sub(c0.At).Nanoseconds() * int64(n)
	if wall <= 0 {
		return 0
	}
	return min(1, max(0, float64(wall-(c1.IdleNS-c0.IdleNS)-own)/float64(wall)))
}
