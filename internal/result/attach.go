package result

import "github.com/ctxbench/ctxbench/internal/model"

// Attach is ctxbench attach: targets ctxbench did not start, measured in
// place for a stated time (docs/inplace.md).
type Attach struct {
	// Method says how the kernel was probed ("raw tracepoints only").
	Method string `json:"method"`
	// Probes is the probe set: "light" (a switch's path from __schedule's
	// entry to the return to user space) or "full" (from the syscall's
	// entry, every boundary split).
	Probes      string        `json:"probes"`
	ProbeStatus []AttachProbe `json:"probe_status"`
	// DurationSeconds is the time asked for; Seconds the time measured (the
	// windows' total: shorter when every target exited).
	DurationSeconds float64 `json:"duration_seconds"`
	Seconds         float64 `json:"seconds"`
	WindowSeconds   float64 `json:"window_seconds"`
	// RateLimit is the switches per second each CPU times at most (the
	// rest are counted only); 0: every switch is timed.
	RateLimit float64 `json:"rate_limit"`
	// Ended says why the attach stopped: "duration", "targets exited".
	Ended    string         `json:"ended"`
	Targets  []AttachTarget `json:"targets"`
	Overhead AttachOverhead `json:"overhead"`
	Indirect AttachIndirect `json:"indirect"`
	// Check is --check's comparison with the known workload (null
	// otherwise).
	Check *AttachCheck `json:"check"`
	Notes []string     `json:"notes,omitempty"`
}

// AttachProbe is one tracepoint and whether it was attached.
type AttachProbe struct {
	Tracepoint string `json:"tracepoint"`
	Attached   bool   `json:"attached"`
	Reason     string `json:"reason,omitempty"`
}

// AttachFigure is a figure over the attach's time windows: the whole
// run's value, and the windows' median with its distribution-free
// interval (stats.MedianInterval) at Confidence.
type AttachFigure struct {
	Value      float64 `json:"value"`
	Median     float64 `json:"median"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	Windows    int     `json:"windows"`
}

// AttachTarget is what one target's switching cost it.
type AttachTarget struct {
	// Kind is pid, cgroup or all; Name how the output names it.
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Pid    int    `json:"pid,omitempty"`
	Cgroup string `json:"cgroup,omitempty"`
	// CgroupDepth is the levels below the root cgroup its tasks run in.
	CgroupDepth int `json:"cgroup_depth"`
	// Processes and Threads are the most seen in one window.
	Processes int `json:"processes"`
	Threads   int `json:"threads"`
	// ExitedAfterSeconds is when the target was found gone (null: it ran
	// to the end).
	ExitedAfterSeconds *float64 `json:"exited_after_s"`
	// Switches counts its switches away over the run (as nvcsw and nivcsw
	// count them); SwitchesPerS is their rate.
	Switches     uint64       `json:"switches"`
	SwitchesPerS AttachFigure `json:"switches_per_s"`
	// Kinds are the switches by kind: voluntary, involuntary (away);
	// woken_same_cpu, woken_cross_cpu, resumed, new, unknown (in); to_idle,
	// from_idle; migrated.
	Kinds       []AttachKind       `json:"kinds"`
	Wakeups     AttachWakeups      `json:"wakeups"`
	Preemptions AttachPreemptions  `json:"preemptions"`
	RunQueue    AttachRunQueue     `json:"run_queue"`
	NsPerSwitch AttachFigure       `json:"ns_per_switch"`
	Percentiles *AttachPercentiles `json:"ns_per_switch_percentiles"`
	// Phases are a switch's path read through the in-place model, ns per
	// switch, in time order; Closure the share of the paths' time they
	// name.
	Phases  []AttachPhase `json:"phases"`
	Closure float64       `json:"closure"`
	// ShareLost is the direct time on switch paths over the target's CPU
	// time; CPUPerS the CPUs it kept busy on average.
	ShareLost AttachFigure `json:"share_lost"`
	CPUPerS   float64      `json:"cpu_per_s"`
	// TimedShare is the share of its switches whose path was timed (below
	// 1 under a rate limit: the direct figures are that sample's).
	TimedShare float64 `json:"timed_share"`
	// BlockedIn are the syscalls its voluntary switches blocked in (full
	// probe set only), most first.
	BlockedIn []AttachSyscall `json:"blocked_in"`
	// Proc is the target's own counters over the same windows.
	Proc    AttachProc     `json:"proc"`
	WhatIf  *AttachWhatIf  `json:"what_if"`
	Windows []AttachWindow `json:"windows"`
}

// AttachKind is one kind of switch.
type AttachKind struct {
	Kind     string  `json:"kind"`
	Switches uint64  `json:"switches"`
	PerS     float64 `json:"switches_per_s"`
	// Share is of the switches away (for an incoming kind, of the
	// switches in).
	Share float64 `json:"share"`
	// NsPerSwitch and the percentiles are the direct cost of this kind's
	// timed switches (null: none timed, or not a kind with a path).
	NsPerSwitch *float64 `json:"ns_per_switch"`
	P50         *float64 `json:"p50"`
	P99         *float64 `json:"p99"`
}

// AttachWakeups are the target's tasks' wakeups.
type AttachWakeups struct {
	PerS float64 `json:"per_s"`
	// BySameShare were woken by a task of the same target; RemoteShare
	// completed on another CPU than the waker's (an IPI's wake list).
	BySameShare float64 `json:"by_same_share"`
	RemoteShare float64 `json:"remote_share"`
	// NsPerWakeup is the waker's CPU's time in try_to_wake_up (sched_waking
	// to sched_wakeup on one CPU); null where none was timed.
	NsPerWakeup *float64 `json:"ns_per_wakeup"`
}

// AttachPreemptions are the involuntary switches by who preempted.
type AttachPreemptions struct {
	PerS           float64           `json:"per_s"`
	BySame         float64           `json:"by_same_per_s"`
	ByTarget       float64           `json:"by_target_per_s"`
	ByKernelThread float64           `json:"by_kernel_thread_per_s"`
	ByOther        float64           `json:"by_other_per_s"`
	Top            []AttachPreempter `json:"top"`
}

// AttachPreempter is a process that preempted the target's tasks.
type AttachPreempter struct {
	Comm  string  `json:"comm"`
	Pid   int     `json:"pid"`
	PerS  float64 `json:"per_s"`
	Share float64 `json:"share"`
}

// AttachRunQueue is the time the target's tasks waited on a run queue.
type AttachRunQueue struct {
	Kinds []AttachWait `json:"kinds"`
	// ShareOfWall is the wait summed over its tasks per second of wall time
	// (a single-threaded target's share of its time spent runnable but
	// waiting; above 1, several tasks waited at once).
	ShareOfWall AttachFigure `json:"share_of_wall"`
}

// AttachWait is the run-queue wait of one kind of switch-in.
type AttachWait struct {
	Kind   string  `json:"kind"`
	Waits  uint64  `json:"waits"`
	MeanNs float64 `json:"mean_ns"`
	P50    float64 `json:"p50"`
	P90    float64 `json:"p90"`
	P99    float64 `json:"p99"`
	P99_9  float64 `json:"p99_9"`
}

// AttachPercentiles of the direct cost of one switch's path.
type AttachPercentiles struct {
	P50 float64 `json:"p50"`
	P90 float64 `json:"p90"`
	P99 float64 `json:"p99"`
}

// AttachPhase is one phase of a switch's path.
type AttachPhase struct {
	Name  string            `json:"name"`
	What  string            `json:"what"`
	Kinds []model.PhaseKind `json:"kinds"`
	// From and To are the events that bound it.
	From string `json:"from"`
	To   string `json:"to"`
	// Ns is per switch; PerSwitch how often it occurred per switch; Share
	// its part of the paths' time.
	Ns        float64 `json:"ns"`
	PerSwitch float64 `json:"per_switch"`
	Share     float64 `json:"share"`
}

// AttachSyscall is a syscall the target's tasks blocked in.
type AttachSyscall struct {
	Syscall string  `json:"syscall"`
	Share   float64 `json:"share"`
}

// AttachProc is the target's own counters (/proc, schedstat, the cgroup's
// cpu.stat) over the attach's windows: what its figures are checked
// against.
type AttachProc struct {
	Method       string  `json:"method"`
	SwitchesPerS float64 `json:"switches_per_s"`
	// Agreement is the programs' count over this one (for the machine: the
	// switches of every task, to and from idle, over /proc/stat's ctxt less
	// ctxbench's own).
	Agreement       float64 `json:"agreement"`
	RunQueueShare   float64 `json:"run_queue_share_of_wall"`
	CPUPerS         float64 `json:"cpu_per_s"`
	ExitedInAWindow bool    `json:"exited_in_a_window"`
}

// AttachWindow is one time window of a target.
type AttachWindow struct {
	StartSeconds float64 `json:"start_s"`
	Seconds      float64 `json:"seconds"`
	SwitchesPerS float64 `json:"switches_per_s"`
	// NsPerSwitch and ShareLost are null where the window timed no switch
	// or the target used no CPU.
	NsPerSwitch      *float64 `json:"ns_per_switch"`
	ShareLost        *float64 `json:"share_lost"`
	RunQueueShare    float64  `json:"run_queue_share_of_wall"`
	CPUPerS          float64  `json:"cpu_per_s"`
	ProcSwitchesPerS float64  `json:"proc_switches_per_s"`
}

// AttachOverhead is what the attach cost, from the kernel's BPF run-time
// statistics: every program's runs and their time.
type AttachOverhead struct {
	Method string `json:"method"`
	// StatsOn says the kernel kept the statistics (kernel.bpf_stats_enabled).
	StatsOn  bool            `json:"stats_on"`
	Programs []AttachProgram `json:"programs"`
	// NsPerSwitch is the programs' run time per switch of the targets;
	// NsPerRun the mean run; CPUShare the run time per second over one CPU.
	NsPerSwitch float64      `json:"ns_per_switch"`
	NsPerRun    float64      `json:"ns_per_run"`
	CPUShare    AttachFigure `json:"cpu_share"`
	// Missed counts runs the kernel skipped (another BPF program was
	// running on the CPU): events not seen.
	Missed uint64 `json:"missed"`
}

// AttachProgram is one BPF program's runs.
type AttachProgram struct {
	Name     string  `json:"name"`
	RunsPerS float64 `json:"runs_per_s"`
	NsPerRun float64 `json:"ns_per_run"`
}

// AttachIndirect is the indirect cost of a switch (what it costs the work
// after it: caches, TLB), only with a named method.
type AttachIndirect struct {
	Method    string `json:"method"`
	Available bool   `json:"available"`
	// Reason says why it is not given here.
	Reason string   `json:"reason,omitempty"`
	Share  *float64 `json:"share"`
}

// AttachWhatIf is what the target's switch rate would cost at this
// machine's measured figures.
type AttachWhatIf struct {
	// Ladder are the history's figures of the bare hops of this machine.
	Ladder []AttachLadder `json:"ladder"`
	// ShareAtLadder is the switch rate at the ladder's same-placement hops
	// (woken across CPUs at the cross-cpu figure) over the target's CPU time.
	ShareAtLadder *float64 `json:"share_at_ladder"`
	// Why are the facts of the target that make a switch of it dearer than
	// a bare hop.
	Why  []string    `json:"why"`
	Pool *AttachPool `json:"pool"`
	Note string      `json:"note,omitempty"`
}

// AttachLadder is a ladder figure from the machine's history.
type AttachLadder struct {
	Name      string  `json:"name"`
	Placement string  `json:"placement"`
	OneWayNs  float64 `json:"one_way_ns"`
	Sittings  int     `json:"sittings"`
	At        string  `json:"at"`
}

// AttachPool is the pool experiment's measured curve beside the target.
type AttachPool struct {
	File   string            `json:"file"`
	Server string            `json:"server"`
	Series string            `json:"series"`
	Points []AttachPoolPoint `json:"points"`
}

// AttachPoolPoint is one pool size of the curve: its throughput, the
// server's switches per query, and what those switches would cost at the
// target's measured cost per switch, over the server's CPU time there.
type AttachPoolPoint struct {
	Pool             int      `json:"pool"`
	QueriesPerS      float64  `json:"queries_per_s"`
	SwitchesPerQuery float64  `json:"switches_per_query"`
	SwitchesPerS     float64  `json:"switches_per_s"`
	ShareLost        *float64 `json:"share_lost"`
}

// AttachCheck is ctxbench attach --check: the attach against ctxbench's
// own known workload (internal/kernels/pipeload.c, the attach section's
// target), with the ladder's thread/pipe hop measured in the same sitting.
type AttachCheck struct {
	// HopsPerS is the rate the workload was told to make, AchievedPerS what
	// it made while attached; CPU where it ran.
	HopsPerS     float64 `json:"hops_per_s"`
	AchievedPerS float64 `json:"achieved_per_s"`
	CPU          int     `json:"cpu"`
	Rounds       int     `json:"rounds"`
	// LadderOneWayNs is the ladder's thread/pipe same-cpu hop (its kernel,
	// in this process), untraced; LadderTracedNs the same with the attach's
	// probes on (explain's traced scale); LadderNsPerSwitch the attach's
	// direct cost of that hop's switches. Medians over rounds.
	LadderOneWayNs    Interval `json:"ladder_one_way_ns"`
	LadderTracedNs    Interval `json:"ladder_traced_one_way_ns"`
	LadderNsPerSwitch Interval `json:"ladder_ns_per_switch"`
	// RatioToTracedHop is the workload's direct cost per switch over the
	// ladder's traced hop; RatioToLadderSwitch over the attach's reading of
	// the ladder's switches.
	RatioToTracedHop    float64 `json:"ratio_to_traced_hop"`
	RatioToLadderSwitch float64 `json:"ratio_to_ladder_switch"`
	// ThroughputCost is the share of the workload's throughput (its work
	// between hops) the attach took: 1 − attached over not, rounds paired
	// (a window attached between two without), with its interval.
	ThroughputCost Interval `json:"throughput_cost"`
	WorkPerS       float64  `json:"work_per_s"`
}
