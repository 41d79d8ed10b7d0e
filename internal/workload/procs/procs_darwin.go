package procs

// procs_darwin.go: the counters, states and tree of live processes on
// macOS. Its kernel gives another process's counters for the process as a
// whole (proc_pidinfo PROC_PIDTASKINFO: context switches and CPU time of
// all its threads), not per thread, and does not split voluntary switches
// from involuntary ones: every switch is counted as Voluntary, a process
// is read as one task (Tasks), and its CPU time is in the time base's
// ticks, converted. The process table is sysctl kern.proc.

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
)

// HaveSchedstat is false: macOS has no run-queue wait time per thread.
func HaveSchedstat() bool { return false }

// CPUMethod names how CPU time is read, for the output's method section.
func CPUMethod() string {
	return "proc_pidinfo(PROC_PIDTASKINFO) pti_total_user + pti_total_system per process (macOS counts another process's threads together), time-base ticks converted with sysctl hw.tbfrequency"
}

// Process reads the counters of pid, all its threads together.
func Process(pid int) (Counters, error) {
	ti, err := host.ReadTaskInfo(pid)
	if err != nil {
		return Counters{}, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	tb, err := host.ReadTimebase()
	if err != nil {
		return Counters{}, err
	}
	return countersOf(ti, tb), nil
}

// countersOf is a task's counters: its switches all voluntary (macOS does
// not tell them apart), its CPU time converted from ticks.
func countersOf(ti host.TaskInfo, tb host.Timebase) Counters {
	return Counters{Voluntary: uint64(max(0, ti.Switches)), CPUNs: tb.NS(ti.TotalUser + ti.TotalSystem), Threads: max(1, int(ti.Threads))}
}

// Tasks is pid alone: macOS counts a process's threads together.
func Tasks(pid int) ([]int, error) {
	if _, err := ReadStat(pid); err != nil {
		return nil, err
	}
	return []int{pid}, nil
}

// Thread reads the counters of pid as a whole: tid must be pid (macOS has
// no per-thread counters of another process).
func Thread(pid, tid int) (Counters, error) {
	if tid != pid {
		return Counters{}, fmt.Errorf("thread %d of pid %d: macOS counts a process's threads together", tid, pid)
	}
	return Process(pid)
}

// ReadStat reads pid's entry of the process table (sysctl kern.proc.pid).
func ReadStat(pid int) (Stat, error) {
	kp, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil || kp.Proc.P_pid != int32(pid) {
		return Stat{}, ErrGone
	}
	return statOf(kp), nil
}

// statOf is a process table entry as a Stat: its state as Linux's letter,
// its start time (microseconds since the epoch) as StartTicks.
func statOf(kp *unix.KinfoProc) Stat {
	states := map[int8]string{1: "I", 2: "R", 3: "S", 4: "T", 5: "Z"} // SIDL SRUN SSLEEP SSTOP SZOMB, sys/proc.h
	st := states[kp.Proc.P_stat]
	if st == "" {
		st = "?"
	}
	start := kp.Proc.P_starttime
	return Stat{Pid: int(kp.Proc.P_pid), PPid: int(kp.Eproc.Ppid), Pgrp: int(kp.Eproc.Pgid),
		Comm: unix.ByteSliceToString(kp.Proc.P_comm[:]), State: st,
		StartTicks: uint64(start.Sec)*1_000_000 + uint64(start.Usec)}
}

// all lists every process on the system (sysctl kern.proc.all).
func all() []Stat {
	kps, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil
	}
	out := make([]Stat, 0, len(kps))
	for i := range kps {
		out = append(out, statOf(&kps[i]))
	}
	return out
}
