// Package platform is what each operating system ctxbench builds for gives
// a measurement, side by side in one place. The mechanisms themselves are
// in per-platform files (internal/host's affinity_linux.go and
// affinity_darwin.go, ...); these tables say which exist, what provides
// each, and — where one does not — why, and what stands in for it. Both
// tables build on every platform, so a test on Linux reads the macOS
// answers as the darwin build reads them (This is the running platform's).
//
// The rule that keeps the boundary (internal/layering's platform test):
// Linux-only system calls, structure fields and packages, and absolute
// /proc and /sys paths, appear only in platform files — files built for
// one platform, by a _linux/_darwin suffix or a build constraint.
package platform

import (
	"fmt"
	"sort"
)

// Mechanism is one thing a measurement needs of the operating system.
type Mechanism string

// The mechanisms the platforms are compared on.
const (
	// Pinning runs a thread or a process on a chosen CPU (the same-cpu and
	// cross-cpu placements, the levels of the topology, --cpus).
	Pinning Mechanism = "pinning"
	// ThreadCPU is the CPU a thread is on, read by the thread itself at
	// its sample boundaries (where the sides were seen).
	ThreadCPU Mechanism = "thread-cpu"
	// DeathSignal makes the kernel kill a child when its parent dies.
	DeathSignal Mechanism = "death-signal"
	// Subreaper reparents the orphans of a killed worker to the run, so
	// it can reap them.
	Subreaper Mechanism = "subreaper"
	// ThreadSwitches counts one thread's context switches (a side of a
	// two-thread measurement apart from the other).
	ThreadSwitches Mechanism = "thread-switches"
	// ProcessSwitches counts one process's context switches.
	ProcessSwitches Mechanism = "process-switches"
	// PerfEvents are per-thread and per-CPU counters the kernel keeps on
	// request: switches, migrations, cycles, instructions.
	PerfEvents Mechanism = "perf-events"
	// CPUTime is where each CPU's time went (idle, busy, stolen): the
	// contention of a block.
	CPUTime Mechanism = "cpu-time"
	// Futex is Linux's wait-on-address system call.
	Futex Mechanism = "futex"
	// Eventfd is Linux's counter descriptor for wake-ups.
	Eventfd Mechanism = "eventfd"
	// WaitOnAddress is macOS's wait-on-address (os_sync_wait_on_address,
	// __ulock_wait before macOS 14.4).
	WaitOnAddress Mechanism = "wait-on-address"
	// KqueueUser is macOS's user event on a kqueue (EVFILT_USER).
	KqueueUser Mechanism = "kqueue-user"
	// Containers are namespaces, cgroups, seccomp and capabilities.
	Containers Mechanism = "containers"
	// KVM runs virtual machines from user space (the vm rung).
	KVM Mechanism = "kvm"
	// BPF runs programs on the kernel's tracepoints (explain, attach,
	// the slow-hop capture).
	BPF Mechanism = "bpf"
	// PSS is a process's proportional share of the memory it maps.
	PSS Mechanism = "pss"
	// ExecTarget is the hand-written smallest program the creation ladder
	// execs.
	ExecTarget Mechanism = "exec-target"
	// Topology is which CPUs share a core, a cache, a node, a package.
	Topology Mechanism = "topology"
)

// Answer is what a platform gives for one mechanism: how, where it does;
// why not and what stands in, where it does not.
type Answer struct {
	Gives bool
	How   string // what provides it (Gives)
	Why   string // why it is missing, and what stands in for it (!Gives)
}

// Platform is one operating system's answers.
type Platform struct {
	OS      string // GOOS
	Name    string // as a person names it
	Clock   string // how the kernels time samples
	answers map[Mechanism]Answer
}

// Gives reports whether p gives m, and why not where it does not.
func (p Platform) Gives(m Mechanism) (bool, string) {
	a, ok := p.answers[m]
	if !ok {
		panic(fmt.Sprintf("platform: %s has no answer for %q", p.Name, m)) // a table error, caught by every test
	}
	if a.Gives {
		return true, ""
	}
	return false, a.Why
}

// Answer is p's whole answer for m.
func (p Platform) Answer(m Mechanism) Answer { return p.answers[m] }

// Mechanisms lists the mechanisms p answers for, sorted.
func (p Platform) Mechanisms() []Mechanism {
	out := make([]Mechanism, 0, len(p.answers))
	for m := range p.answers {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// Platforms are the platforms ctxbench builds for.
var Platforms = []Platform{Linux, Darwin}

// Linux is what Linux gives: everything ctxbench measures was first built
// on it.
var Linux = Platform{
	OS: "linux", Name: "Linux",
	Clock: "clock_gettime(CLOCK_MONOTONIC_RAW) and the CPU's counter (x86-64: RDTSCP; arm64: CNTVCT_EL0) at every sample boundary",
	answers: map[Mechanism]Answer{
		Pinning:         {Gives: true, How: "sched_setaffinity: a child inherits the mask of the thread that starts it"},
		ThreadCPU:       {Gives: true, How: "sched_getcpu (getcpu(2)) at every sample boundary"},
		DeathSignal:     {Gives: true, How: "PR_SET_PDEATHSIG (SysProcAttr.Pdeathsig = SIGKILL)"},
		Subreaper:       {Gives: true, How: "PR_SET_CHILD_SUBREAPER"},
		ThreadSwitches:  {Gives: true, How: "getrusage(RUSAGE_THREAD) ru_nvcsw + ru_nivcsw"},
		ProcessSwitches: {Gives: true, How: "getrusage(RUSAGE_SELF); /proc/PID/task/TID/status for another process's threads"},
		PerfEvents:      {Gives: true, How: "perf_event_open (where perf_event_paranoid or CAP_PERFMON allow)"},
		CPUTime:         {Gives: true, How: "/proc/stat's per-CPU ticks and cpuidle's residency counters"},
		Futex:           {Gives: true, How: "futex(2) FUTEX_WAIT / FUTEX_WAKE"},
		Eventfd:         {Gives: true, How: "eventfd(2)"},
		WaitOnAddress:   {Why: "os_sync_wait_on_address is macOS's; Linux's wait-on-address is the futex (thread/futex, process/futex)"},
		KqueueUser:      {Why: "kqueue is macOS's (and the BSDs'); Linux's wake-up descriptor is the eventfd (thread/eventfd)"},
		Containers:      {Gives: true, How: "namespaces, cgroups v2, seccomp and capabilities, set up by ctxbench itself (root)"},
		KVM:             {Gives: true, How: "/dev/kvm (x86-64)"},
		BPF:             {Gives: true, How: "BPF programs on raw tracepoints (root, BTF)"},
		PSS:             {Gives: true, How: "/proc/PID/smaps_rollup Pss"},
		ExecTarget:      {Gives: true, How: "a hand-written static ELF in a sealed memfd"},
		Topology:        {Gives: true, How: "sysfs: cores, caches, NUMA nodes, packages, core types"},
	},
}

// Darwin is what macOS gives. Most of what Linux lets a measurement
// control or count, macOS does not offer to a user-space program, and the
// tables say so where a figure would otherwise be read as Linux's.
var Darwin = Platform{
	OS: "darwin", Name: "macOS",
	Clock: "mach_absolute_time at every sample boundary, converted with mach_timebase_info (125/3 ns per tick on Apple silicon, a 24 MHz counter; 1/1 on Intel Macs)",
	answers: map[Mechanism]Answer{
		Pinning:         {Why: "macOS cannot pin a thread to a CPU (thread affinity tags are hints, and Apple silicon ignores them): every placement is unpinned, and each side's CPUs are recorded instead"},
		ThreadCPU:       {Gives: true, How: "pthread_cpu_number_np (macOS 11.0+) at every sample boundary; on Apple silicon the CPU number tells a P core from an E core"},
		DeathSignal:     {Why: "macOS has no parent-death signal: a child this binary starts watches its parent (kqueue EVFILT_PROC NOTE_EXIT) and exits with it; another program it starts (a probe's runtime, a server) does not, and a ctxbench killed with SIGKILL can leave one running"},
		Subreaper:       {Why: "macOS has no child subreaper: the orphans of a killed worker go to launchd, and end by watching their parent"},
		ThreadSwitches:  {Why: "macOS counts context switches per process (getrusage, task_info TASK_EVENTS_INFO), not per thread: the two sides of a thread measurement are counted together"},
		ProcessSwitches: {Gives: true, How: "task_info(TASK_EVENTS_INFO) csw for this process; proc_pidinfo(PROC_PIDTASKINFO) pti_csw for another"},
		PerfEvents:      {Why: "macOS has no perf_event_open; proc_pid_rusage (RUSAGE_INFO_V4) gives a process's cycles and instructions, no per-thread or per-CPU switch counters"},
		CPUTime:         {Why: "macOS gives no per-CPU idle and busy time without the Mach host interface, which ctxbench does not use: a block's contention is not measured"},
		Futex:           {Why: "futex is Linux's; macOS's wait-on-address is os_sync_wait_on_address (thread/wait-on-address, process/wait-on-address)"},
		Eventfd:         {Why: "eventfd is Linux's; macOS's wake-up of another thread through the kernel is a kqueue user event (thread/kqueue-user)"},
		WaitOnAddress:   {Gives: true, How: "os_sync_wait_on_address / os_sync_wake_by_address_any (macOS 14.4+), __ulock_wait / __ulock_wake before"},
		KqueueUser:      {Gives: true, How: "kevent EVFILT_USER with NOTE_TRIGGER"},
		Containers:      {Why: "containers are Linux namespaces and cgroups: on a Mac they run inside a Linux virtual machine — run the Linux arm64 build of ctxbench inside it"},
		KVM:             {Why: "KVM is Linux's; ctxbench has no virtual machine monitor for macOS's Hypervisor.framework"},
		BPF:             {Why: "macOS has no BPF tracepoints; dtrace and kdebug (ktrace) could time a hop's kernel phases, and ctxbench does not offer them (System Integrity Protection restricts dtrace)"},
		PSS:             {Why: "macOS has no proportional set size; its nearest equivalent is the phys_footprint proc_pid_rusage reports (the memory charged to the process, shared pages counted whole)"},
		ExecTarget:      {Why: "the exec target is a hand-written ELF; macOS execs only signed Mach-O programs"},
		Topology:        {Why: "macOS names performance levels (sysctl hw.perflevelN) but no core, cache or package of a CPU number; with no pinning there is no level to place a pair at"},
	},
}
