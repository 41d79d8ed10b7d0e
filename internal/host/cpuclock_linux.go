package host

// cpuclock_linux.go: the time of a set of CPUs from /proc/stat and cpuidle,
// the wake-up IPIs from /proc/interrupts, the online CPUs from sysfs.

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// userHZ is the unit of /proc/stat's counters: USER_HZ is 100 on every
// Linux architecture ctxbench builds for.
const userHZ = 100

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
