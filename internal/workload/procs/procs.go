// Package procs reads per-thread scheduler counters of live processes, finds a
// server's process tree, reads the client's own rusage, and pins processes and
// threads to CPUs. Linux's readers are procs_linux.go (/proc); macOS's,
// procs_darwin.go, count a process as a whole (it has no per-thread counters of
// another process).
//
// Method on Linux (the reason for each source is given with it):
//   - /proc/<pid>/task/<tid>/status voluntary_ctxt_switches / nonvoluntary_ctxt_switches
//     count one thread's switch-outs only, so every thread of every process is summed;
//     a thread that has exited is no longer counted, which is why callers read the
//     counters while the server's processes are still alive.
//   - /proc/<pid>/task/<tid>/schedstat gives time on CPU and time waiting on a run
//     queue in nanoseconds; /proc/<pid>/stat utime+stime (10 ms ticks) is the fallback
//     when the kernel has no schedstat.
//   - getrusage(RUSAGE_SELF) covers all threads of the calling process, exited ones too.
package procs

import (
	"errors"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
)

// Counters are scheduler counters summed over a set of threads: what this
// package reads, in its own terms. The pool experiment writes them into
// the document (result.ProcCounters has the same fields, so it converts).
type Counters struct {
	Voluntary   uint64
	Involuntary uint64
	// CPUNs is time on CPU in nanoseconds.
	CPUNs uint64
	// RunqWaitNs is time spent runnable but waiting for a CPU (schedstat only, else 0).
	RunqWaitNs uint64
	Threads    int
}

// Add returns c + o.
func (c Counters) Add(o Counters) Counters {
	return Counters{
		Voluntary:   c.Voluntary + o.Voluntary,
		Involuntary: c.Involuntary + o.Involuntary,
		CPUNs:       c.CPUNs + o.CPUNs,
		RunqWaitNs:  c.RunqWaitNs + o.RunqWaitNs,
		Threads:     c.Threads + o.Threads,
	}
}

// Sub returns c - o, clamping each field at zero (a counter can only shrink when a
// thread exited between the two reads, which the caller detects separately).
func (c Counters) Sub(o Counters) Counters {
	sub := func(a, b uint64) uint64 {
		if a < b {
			return 0
		}
		return a - b
	}
	return Counters{
		Voluntary:   sub(c.Voluntary, o.Voluntary),
		Involuntary: sub(c.Involuntary, o.Involuntary),
		CPUNs:       sub(c.CPUNs, o.CPUNs),
		RunqWaitNs:  sub(c.RunqWaitNs, o.RunqWaitNs),
		Threads:     c.Threads,
	}
}

// Switches is voluntary plus involuntary.
func (c Counters) Switches() uint64 { return c.Voluntary + c.Involuntary }

// ErrGone means the process exited before or while it was read.
var ErrGone = errors.New("process gone")

// Stat is the part of /proc/<pid>/stat this package uses.
type Stat struct {
	Pid, PPid, Pgrp int
	Comm            string
	State           string
	// StartTicks is the process start time in clock ticks since boot; with the pid it
	// identifies a process across pid reuse.
	StartTicks uint64
}

// Alive reports whether pid exists, is not a zombie and (when startTicks != 0) is the
// same process that was recorded.
func Alive(pid int, startTicks uint64) bool {
	st, err := ReadStat(pid)
	if err != nil || st.State == "Z" || st.State == "X" {
		return false
	}
	return startTicks == 0 || st.StartTicks == startTicks
}

// Children lists the live (non-zombie) child processes of ppid. The kernel's
// /proc/<pid>/task/<tid>/children is optional (CONFIG_PROC_CHILDREN), so /proc is scanned.
func Children(ppid int) []int {
	var out []int
	for _, st := range ChildStats(ppid) {
		out = append(out, st.Pid)
	}
	return out
}

// ChildStats is Children with each child's stat, whose StartTicks lets a
// caller recognise the child after it has been reparented.
func ChildStats(ppid int) []Stat {
	var out []Stat
	for _, st := range all() {
		if st.PPid == ppid && st.State != "Z" {
			out = append(out, st)
		}
	}
	return out
}

// Group lists the live processes whose process group is pgid.
func Group(pgid int) []int {
	var out []int
	for _, st := range all() {
		if st.Pgrp == pgid && st.State != "Z" {
			out = append(out, st.Pid)
		}
	}
	return out
}

// Rusage is the calling process's own resource usage (all threads, exited
// ones included); result.ProcRusage has the same fields.
type Rusage struct {
	Voluntary   uint64
	Involuntary uint64
	UserNs      uint64
	SysNs       uint64
}

// Sub returns r - o.
func (r Rusage) Sub(o Rusage) Rusage {
	return Rusage{
		Voluntary:   r.Voluntary - o.Voluntary,
		Involuntary: r.Involuntary - o.Involuntary,
		UserNs:      r.UserNs - o.UserNs,
		SysNs:       r.SysNs - o.SysNs,
	}
}

// CPUNs is user plus system time.
func (r Rusage) CPUNs() uint64 { return r.UserNs + r.SysNs }

// Self reads getrusage(RUSAGE_SELF).
func Self() Rusage {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return Rusage{}
	}
	return Rusage{
		Voluntary:   uint64(ru.Nvcsw),
		Involuntary: uint64(ru.Nivcsw),
		UserNs:      uint64(ru.Utime.Nano()),
		SysNs:       uint64(ru.Stime.Nano()),
	}
}

// CPUTime is time accounted to a set of CPUs in /proc/stat (10 ms ticks).
type CPUTime struct {
	// BusyNs is user + nice + system + irq + softirq: anything but idle, iowait and steal.
	BusyNs uint64 `json:"busy_ns"`
	// StealNs is time the hypervisor ran something else while the guest wanted the CPU.
	StealNs uint64 `json:"steal_ns"`
}

// ReadCPUTime sums /proc/stat's per-CPU lines for cpus (host.ReadCPUClock).
func ReadCPUTime(cpus []int) (CPUTime, error) {
	c := host.ReadCPUClock(cpus)
	return CPUTime{BusyNs: uint64(c.BusyNS), StealNs: uint64(c.StealNS)}, nil
}
