package result

import (
	"fmt"
	"strings"
)

// Environment is the machine a document was measured on. internal/machine
// fills it; it lives here because it is part of the schema.
type Environment struct {
	Hostname       string            `json:"hostname"`
	OS             string            `json:"os"`
	Arch           string            `json:"arch"`
	Kernel         string            `json:"kernel"`       // uname release
	KernelBuild    string            `json:"kernel_build"` // uname version
	Cmdline        string            `json:"cmdline"`
	CPU            CPUInfo           `json:"cpu"`
	Topology       []TopologyLevel   `json:"topology,omitempty"` // the levels of the CPU topology present, nearest first
	Virtualization Virtualization    `json:"virtualization"`
	Clocksource    string            `json:"clocksource"`
	Mitigations    map[string]string `json:"mitigations"`
	Cgroup         CgroupInfo        `json:"cgroup"`
	Scheduler      SchedInfo         `json:"scheduler"`
	Idle           IdleInfo          `json:"idle"`
	Perf           PerfInfo          `json:"perf"`
	Load           LoadInfo          `json:"load"`
	Steal          StealInfo         `json:"steal"`
	Warnings       []Warning         `json:"warnings"`
}

// CPUInfo describes the processor.
type CPUInfo struct {
	Model          string     `json:"model"`
	Vendor         string     `json:"vendor"`
	Family         int        `json:"family"`
	ModelID        int        `json:"model_id"`
	Stepping       int        `json:"stepping"`
	Microcode      string     `json:"microcode,omitempty"`
	Logical        int        `json:"logical_cpus"`
	Online         string     `json:"online"`
	Allowed        []int      `json:"allowed_cpus"` // this process's affinity
	SMTActive      bool       `json:"smt_active"`
	ThreadsPerCore int        `json:"threads_per_core"`
	Hybrid         bool       `json:"hybrid"`
	CoreTypes      []CoreType `json:"core_types,omitempty"`
	Governor       string     `json:"governor"` // "" when there is no cpufreq
	TSC            TSCInfo    `json:"tsc"`
	Caches         []Cache    `json:"caches,omitempty"`
	// Features are arm64's /proc/cpuinfo "Features" (atomics, sve...), as
	// the first CPU lists them; absent on x86-64, whose flags are not kept.
	Features []string `json:"features,omitempty"`
}

// CoreType is a class of cores on a hybrid CPU (e.g. Intel P and E cores).
type CoreType struct {
	Name string `json:"name"`
	CPUs []int  `json:"cpus"`
}

// TopologyLevel is a level of the CPU topology the machine has, as sysfs
// says (internal/host's Level): a pair of CPUs that realises it and what
// tells the two apart.
type TopologyLevel struct {
	// Name is smt-sibling, same-llc, other-llc, other-node, other-package,
	// p-to-e or cross-cpu.
	Name string `json:"name"`
	// CPUs is the pair: the first wakes the second (p-to-e: the P core
	// first).
	CPUs        [2]int `json:"cpus"`
	Description string `json:"description"`
	// At, on the cross-cpu entry, is the level its pair is at (absent
	// where the topology cannot say).
	At string `json:"at,omitempty"`
}

// TSCInfo says whether reference cycles can be read from the reference
// counter, and which counter it is: the TSC on x86-64, the generic timer's
// CNTVCT_EL0 on arm64 (internal/host/counter).
type TSCInfo struct {
	Constant   bool    `json:"constant"`
	Nonstop    bool    `json:"nonstop"`
	Usable     bool    `json:"usable"`
	HzMeasured float64 `json:"hz_measured,omitempty"` // ticks per second over the run
	// Counter names the counter the timed loops read ("TSC",
	// "CNTVCT_EL0"); absent in documents written before it was recorded
	// (the TSC).
	Counter string `json:"counter,omitempty"`
	// Hz is the counter's frequency where the architecture states it
	// (arm64: CNTFRQ_EL0); absent where it is only measured (the TSC).
	Hz float64 `json:"hz,omitempty"`
	// Trapped: a read of the counter cost half a system call or more, so
	// the kernel traps and emulates it (an erratum's workaround).
	Trapped bool `json:"trapped,omitempty"`
}

// CounterName is the name of the counter a document's ticks count: the TSC
// where the document does not say.
func (t TSCInfo) CounterName() string {
	if t.Counter == "" {
		return "TSC"
	}
	return t.Counter
}

// Cache is one level of cache as seen from CPU 0.
type Cache struct {
	Level      int    `json:"level"`
	Type       string `json:"type"`
	SizeBytes  int64  `json:"size_bytes"`
	SharedWith string `json:"shared_cpu_list"`
}

// Virtualization says whether this is a guest and what a VM figure on it means.
type Virtualization struct {
	Guest            bool    `json:"guest"`
	HypervisorVendor string  `json:"hypervisor_vendor,omitempty"` // CPUID 0x40000000
	Detected         string  `json:"detected,omitempty"`          // systemd-detect-virt
	Platform         string  `json:"platform,omitempty"`          // e.g. firecracker, from the kernel command line
	KVM              KVMInfo `json:"kvm"`
	Label            string  `json:"label"`
	// Emulated names the emulator this program ran under ("qemu-user":
	// an arm64 build run on an x86-64 kernel); absent when it ran on its
	// own architecture. Its figures are the emulator's, not a machine's.
	Emulated string `json:"emulated,omitempty"`
}

// KVMInfo describes /dev/kvm on this machine.
type KVMInfo struct {
	Device     bool   `json:"device"`
	Usable     bool   `json:"usable"`
	Backend    string `json:"backend"` // vmx, svm, pvm, none
	Nested     bool   `json:"nested"`
	HaltPollNS int64  `json:"halt_poll_ns"`
	Reason     string `json:"reason,omitempty"`
}

// CgroupInfo describes the cgroup hierarchy.
type CgroupInfo struct {
	Version       string   `json:"version"` // v1, v2, hybrid
	CPUController string   `json:"cpu_controller"`
	V2Controllers []string `json:"v2_controllers"`
	Own           string   `json:"own"`   // this process's cpu cgroup path
	Depth         int      `json:"depth"` // its depth below the root
}

// SchedInfo records scheduler settings that move switch costs.
type SchedInfo struct {
	Autogroup bool   `json:"autogroup"`
	Policy    string `json:"policy"`
	// The settings that move a wake-up's tail (docs/load.md): the
	// preemption model (none, voluntary, full, lazy, rt; "" unknown) and
	// where it was read (debugfs, the boot line, the kernel's config);
	// the timer tick (CONFIG_HZ; 0 unknown); the BPF scheduler loaded
	// through sched_ext ("none" when the kernel has sched_ext and none is
	// loaded, "" when it has none); the CPUs isolated from the scheduler
	// and those with the tick stopped while busy (nohz_full).
	Preempt       string `json:"preempt,omitempty"`
	PreemptSource string `json:"preempt_source,omitempty"`
	HZ            int    `json:"hz,omitempty"`
	SchedExt      string `json:"sched_ext,omitempty"`
	Isolated      string `json:"isolated_cpus,omitempty"`
	NoHZFull      string `json:"nohz_full,omitempty"`
}

// IdleInfo records the idle-state machinery that wakes a sleeping CPU.
type IdleInfo struct {
	// DMALatencyUS is the CPU latency limit in force (/dev/cpu_dma_latency,
	// µs; 2000000000 is none): a low one keeps idle CPUs out of deep states.
	// Null where it cannot be read (it needs root).
	DMALatencyUS *int64   `json:"cpu_dma_latency_us,omitempty"`
	Driver       string   `json:"driver"`
	Governor     string   `json:"governor"`
	States       []string `json:"states,omitempty"`
	// HaltPollNS is the haltpoll governor's poll limit
	// (guest_halt_poll_ns: sysfs, else the command line) when haltpoll is
	// the driver; absent otherwise, or where neither says.
	HaltPollNS *uint64 `json:"guest_halt_poll_ns,omitempty"`
	// Halts says how an idle CPU waits, from the configuration: true, it
	// halts at once (no cpuidle driver and no idle=poll, or haltpoll with
	// polling off), so waking it takes an interrupt and, in a guest, a trip
	// through the host; false, it polls first; null, its governor chooses
	// (a driver with a polling state).
	Halts *bool `json:"halts,omitempty"`
}

// PerfInfo says which perf events work here.
type PerfInfo struct {
	Paranoid int    `json:"paranoid"`
	Software bool   `json:"software"`
	Hardware bool   `json:"hardware"`
	Reason   string `json:"reason,omitempty"`
}

// LoadInfo is the machine's load when the run started.
type LoadInfo struct {
	Load1    float64 `json:"load1"`
	Load5    float64 `json:"load5"`
	Runnable int     `json:"runnable"`
	Procs    int     `json:"procs"`
}

// StealInfo is the share of CPU time the hypervisor gave to others during
// the run (/proc/stat steal), and the machine's own busy share.
type StealInfo struct {
	Percent     float64 `json:"percent"`
	BusyPercent float64 `json:"busy_percent"` // all CPUs, user+system+irq, during the run
	Seconds     float64 `json:"seconds"`
}

// HostLine summarises the environment in one line: the host every label
// ends with, and the heading of every table.
func (e Environment) HostLine() string {
	cpu := e.CPU.Model
	if cpu == "" {
		cpu = "unknown CPU"
	}
	parts := []string{fmt.Sprintf("%s, %d CPUs", cpu, e.CPU.Logical), e.Virtualization.Label}
	if e.Kernel != "" {
		parts = append(parts, "Linux "+e.Kernel)
	}
	return strings.Join(parts, "; ")
}
