package host

// cpuclock.go: where the time of a set of CPUs went — idle, stolen by the
// hypervisor, or busy — the one reader of /proc/stat's per-CPU lines and of
// cpuidle's residency counters. A block's contention is what was busy on
// its CPUs beyond its own processes' CPU time.

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// userHZ is the unit of /proc/stat's counters: USER_HZ is 100 on every
// Linux architecture ctxbench builds for.
const userHZ = 100

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
}

// ReadCPUClock reads the counters of cpus.
func ReadCPUClock(cpus []int) CPUClock {
	c := CPUClock{At: time.Now(), IdlePrecise: len(cpus) > 0}
	var idleTicks int64
	want := map[string]bool{}
	for _, cpu := range cpus {
		want["cpu"+strconv.Itoa(cpu)] = true
	}
	b, _ := os.ReadFile("/proc/stat")
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || !want[f[0]] {
			continue
		}
		v := make([]int64, 8)
		for i := range v {
			v[i], _ = strconv.ParseInt(f[i+1], 10, 64)
		}
		// user nice system idle iowait irq softirq steal
		c.BusyNS += (v[0] + v[1] + v[2] + v[5] + v[6]) * (1e9 / userHZ)
		c.StealNS += v[7] * (1e9 / userHZ)
		idleTicks += v[3] + v[4]
	}
	var us int64
	for _, cpu := range cpus {
		states, _ := filepath.Glob("/sys/devices/system/cpu/cpu" + strconv.Itoa(cpu) + "/cpuidle/state*/time")
		if len(states) == 0 {
			c.IdlePrecise = false
			break
		}
		for _, s := range states {
			us += readInt(s)
		}
	}
	if c.IdlePrecise {
		c.IdleNS = us * 1000
	} else {
		c.IdleNS = idleTicks * (1e9 / userHZ)
	}
	return c
}

// ReadWakeupIPIs is the interrupts other CPUs sent to make cpus run a
// task, summed: rescheduling (/proc/interrupts RES) and function-call
// (CAL) IPIs, x86. A cross-CPU wake-up of an idle CPU that is not polling
// needs one: the kernel queues the wakee on the target's wake list and
// sends a function-call IPI, or sends a reschedule IPI. -1 where the lines
// do not exist. Apart from ReadCPUClock: only a block's own CPUs need it.
func ReadWakeupIPIs(cpus []int) int64 {
	b, err := os.ReadFile("/proc/interrupts")
	if err != nil {
		return -1
	}
	return parseWakeupIPIs(string(b), cpus)
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

// OtherCPUs are the online CPUs not in cpus (none when the online list
// cannot be read).
func OtherCPUs(cpus []int) []int {
	b, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil
	}
	var out []int
	for _, c := range ParseCPUList(strings.TrimSpace(string(b))) {
		if !slices.Contains(cpus, c) {
			out = append(out, c)
		}
	}
	return out
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
	wall := c1.At.Sub(c0.At).Nanoseconds() * int64(n)
	if wall <= 0 {
		return 0
	}
	return min(1, max(0, float64(wall-(c1.IdleNS-c0.IdleNS)-own)/float64(wall)))
}
