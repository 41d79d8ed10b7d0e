package procs

// procs_linux.go: the counters, states and tree of live processes, from /proc.

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
)

// HaveSchedstat reports whether the kernel exposes /proc/<pid>/schedstat.
func HaveSchedstat() bool {
	_, err := os.Stat("/proc/self/schedstat")
	return err == nil
}

// CPUMethod names how CPU time is read, for the output's method section.
func CPUMethod() string {
	if HaveSchedstat() {
		return "/proc/<pid>/task/<tid>/schedstat (ns on CPU, ns waiting on a run queue)"
	}
	return "/proc/<pid>/task/<tid>/stat utime+stime (10 ms ticks; no schedstat on this kernel)"
}

// Process sums the counters of every thread of pid.
func Process(pid int) (Counters, error) {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return Counters{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	var sum Counters
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		c, err := Thread(pid, tid)
		if err != nil {
			continue // a thread that exited between readdir and read
		}
		sum = sum.Add(c)
	}
	if sum.Threads == 0 {
		return Counters{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	return sum, nil
}

// Tasks lists the threads of pid (/proc/PID/task).
func Tasks(pid int) ([]int, error) {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return nil, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	var out []int
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, tid)
		}
	}
	return out, nil
}

// Thread reads one thread's counters.
func Thread(pid, tid int) (Counters, error) {
	base := fmt.Sprintf("/proc/%d/task/%d/", pid, tid)
	st, err := os.ReadFile(base + "status")
	if err != nil {
		return Counters{}, ErrGone
	}
	c := Counters{Threads: 1}
	c.Voluntary = statusField(st, "voluntary_ctxt_switches:")
	c.Involuntary = statusField(st, "nonvoluntary_ctxt_switches:")
	if ss, err := os.ReadFile(base + "schedstat"); err == nil {
		f := strings.Fields(string(ss))
		if len(f) >= 2 {
			c.CPUNs, _ = strconv.ParseUint(f[0], 10, 64)
			c.RunqWaitNs, _ = strconv.ParseUint(f[1], 10, 64)
			return c, nil
		}
	}
	stat, err := os.ReadFile(base + "stat")
	if err != nil {
		return Counters{}, ErrGone
	}
	f := statFields(stat)
	if len(f) > 14 {
		ut, _ := strconv.ParseUint(f[13], 10, 64)
		stt, _ := strconv.ParseUint(f[14], 10, 64)
		c.CPUNs = (ut + stt) * 10_000_000 // USER_HZ is 100 in the Linux ABI
	}
	return c, nil
}

// ReadStat parses /proc/<pid>/stat.
func ReadStat(pid int) (Stat, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Stat{}, ErrGone
	}
	f := statFields(b)
	if len(f) < 22 {
		return Stat{}, fmt.Errorf("pid %d: short stat", pid)
	}
	st := Stat{Pid: pid, Comm: f[1], State: f[2]}
	st.PPid, _ = strconv.Atoi(f[3])
	st.Pgrp, _ = strconv.Atoi(f[4])
	st.StartTicks, _ = strconv.ParseUint(f[21], 10, 64)
	if pid == os.Getpid() {
		st.StartTicks = selfStart(st.StartTicks)
	}
	return st, nil
}

// selfStart is this process's start time as first read. Natively every
// reading is the same; under qemu-user, which writes /proc/<own pid>/stat
// itself, the start time is the reading thread's, so two goroutines on
// two threads would disagree and a sweep would take this live process for
// a dead one with its pid.
var selfStart = func() func(uint64) uint64 {
	var once sync.Once
	var first uint64
	return func(read uint64) uint64 {
		once.Do(func() { first = read })
		return first
	}
}()

// all lists every process on the system (each pid once).
func all() []Stat {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Stat
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := ReadStat(pid); err == nil {
			out = append(out, st)
		}
	}
	return out
}

func statusField(b []byte, key string) uint64 {
	i := bytes.Index(b, []byte("\n"+key))
	if i < 0 {
		return 0
	}
	rest := b[i+1+len(key):]
	if j := bytes.IndexByte(rest, '\n'); j >= 0 {
		rest = rest[:j]
	}
	v, _ := strconv.ParseUint(strings.TrimSpace(string(rest)), 10, 64)
	return v
}

// statFields splits /proc/<pid>/stat into fields, field 0 being the pid and field 1
// the command (which may itself contain spaces and parentheses).
func statFields(b []byte) []string {
	s := string(b)
	open := strings.IndexByte(s, '(')
	closeP := strings.LastIndexByte(s, ')')
	if open < 0 || closeP < open {
		return nil
	}
	out := []string{strings.TrimSpace(s[:open]), s[open+1 : closeP]}
	return append(out, strings.Fields(s[closeP+1:])...)
}
