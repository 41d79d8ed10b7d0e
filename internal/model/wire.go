package model

import (
	"math"
	"strings"
)

// Request is one block, as a worker process receives it (JSON on stdin).
// The payload of experiments beyond the ladder is typed: Ring for a ring
// block, Memory for a memory measurement.
type Request struct {
	Bench     string    `json:"bench"`
	Placement Placement `json:"placement"`
	CPUA      int       `json:"cpu_a"` // -1: not pinned
	CPUB      int       `json:"cpu_b"`
	Iters     uint64    `json:"iters"`
	Samples   int       `json:"samples"`
	Warmup    int       `json:"warmup"`
	Perf      bool      `json:"perf"`
	// Trace asks the block to run with the kernel phase tracer attached
	// (ctxbench explain); the response then carries Explain.
	Trace bool `json:"trace,omitempty"`
	// Probes is the traced block's probe set: "" (ProbesFull) every probe
	// a phase model uses, ProbesLight the few that bound the hop's
	// syscalls and scheduler events (a smaller perturbation, coarser
	// phases).
	Probes string `json:"probes,omitempty"`
	// Capture, on a traced block, turns the slow-hop capture on; the
	// response then carries Capture.
	Capture *CaptureRequest `json:"capture,omitempty"`
	// Round is the round of the interleaving this block runs in (its
	// index among the cell's blocks).
	Round int   `json:"round,omitempty"`
	Arg   int64 `json:"arg,omitempty"`
	// TargetNS is the sample length a self-calibrating benchmark aims at.
	TargetNS int64         `json:"target_ns,omitempty"`
	Ring     *RingParams   `json:"ring,omitempty"`
	Memory   *MemoryParams `json:"memory,omitempty"`
	Load     *LoadParams   `json:"load,omitempty"`
}

// Response is what one block measured (JSON on the worker's stdout).
type Response struct {
	// Iters is the ops per sample, set by self-calibrating benchmarks.
	Iters uint64 `json:"iters,omitempty"`
	// NS and TSC are the elapsed nanoseconds and TSC ticks of each
	// measured sample (warm-up excluded).
	NS  []uint64 `json:"ns"`
	TSC []uint64 `json:"tsc"`
	A   Counts   `json:"a"`
	B   Counts   `json:"b"`
	// Process is the whole worker's switches, when A and B count threads.
	Process *Counts     `json:"process,omitempty"`
	Ring    *RingData   `json:"ring,omitempty"`
	Spawn   *SpawnData  `json:"spawn,omitempty"`
	Memory  *MemoryData `json:"memory,omitempty"`
	Load    *LoadData   `json:"load,omitempty"`
	// KVM is what KVM counted over a vm block.
	KVM *KVMData `json:"kvm,omitempty"`
	// Label is what the benchmark found out about itself (how a VM's guest
	// really ran, what a container side entered); the placement, settings
	// and host are added by the caller.
	Label *Label `json:"label,omitempty"`
	// SwitchMethod says how switches were counted when not the default
	// getrusage of both sides (a probe counts its whole process).
	SwitchMethod string `json:"switch_method,omitempty"`
	// GOMAXPROCS is the Go runtime's setting in the worker, for Go rows.
	GOMAXPROCS int `json:"gomaxprocs,omitempty"`
	// Flags are what the block found wrong with itself (an isolation it
	// did not enter); a flagged figure is never reported as verified.
	Flags []Flag `json:"flags,omitempty"`
	// Evidence is key/value proof of what was verified (namespace inodes,
	// cgroup path, how a VM's guest ran...), for the reader.
	Evidence map[string]string `json:"evidence,omitempty"`
	// Explain is the traced block's hop split into phases (Trace only).
	Explain *Explain `json:"explain,omitempty"`
	// Capture is the traced block's captured hops (Request.Capture only).
	Capture *Capture `json:"capture,omitempty"`
	// Contention is where the time of the block's CPUs went, measured by
	// the worker around the block.
	Contention *Contention `json:"contention,omitempty"`
	// HostProbe is the host probe timed on the block's CPUs before and
	// after it (the host's speed in that stretch).
	HostProbe *HostProbe `json:"host_probe,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// Contention accounts for the time of a block's CPUs: over WallNS on CPUs
// CPUs, IdleNS was idle and OwnNS was the block's own processes (the worker
// and every partner it reaped); the rest went to other tasks, interrupts,
// or the hypervisor (StealNS, counted in 10 ms ticks, is part of it).
type Contention struct {
	WallNS      int64 `json:"wall_ns"`
	CPUs        []int `json:"cpus"`
	IdleNS      int64 `json:"idle_ns"`
	OwnNS       int64 `json:"own_ns"`
	StealNS     int64 `json:"steal_ns"`
	IdlePrecise bool  `json:"idle_precise"` // cpuidle residency (µs), not /proc/stat ticks
	// NeighbourBusy is the share of the other online CPUs' time that was
	// not idle: on a VM whose vCPUs share a physical core or
	// a cache, their load slows the measured CPU without taking it.
	NeighbourBusy float64 `json:"neighbour_busy,omitempty"`
	// WakeupIPIs is the wake-up IPIs (rescheduling and function-call
	// interrupts) the CPUs received over the
	// block (start-up included); -1 where the machine does not count them.
	WakeupIPIs int64 `json:"wakeup_ipis,omitempty"`
}

// OtherShare is the share of the CPUs' time that neither idled nor ran the
// block's own processes: other work took it (0 when nothing was measured).
func (c *Contention) OtherShare() float64 {
	if c == nil || c.WallNS <= 0 || len(c.CPUs) == 0 {
		return 0
	}
	capacity := float64(c.WallNS) * float64(len(c.CPUs))
	return max(0, (capacity-float64(c.IdleNS)-float64(c.OwnNS))/capacity)
}

// StealShare is the share of the CPUs' time the hypervisor took.
func (c *Contention) StealShare() float64 {
	if c == nil || c.WallNS <= 0 || len(c.CPUs) == 0 {
		return 0
	}
	return float64(c.StealNS) / (float64(c.WallNS) * float64(len(c.CPUs)))
}

// HostProbe is a fixed piece of work (a pointer chase through 64 KiB,
// internal/kernels/hostprobe.c) timed on each of a block's CPUs just before
// and just after its samples: how fast the host ran the vCPUs in that
// stretch, whatever the block measured. Readings of 0 are CPUs that could
// not be probed.
type HostProbe struct {
	CPUs     []int     `json:"cpus"`
	BeforeNS []float64 `json:"before_ns"`
	AfterNS  []float64 `json:"after_ns"`
}

// NS is the block's probe reading: the geometric mean of its positive
// readings (0 without one).
func (h *HostProbe) NS() float64 {
	if h == nil {
		return 0
	}
	var sum float64
	n := 0
	for _, v := range append(append([]float64{}, h.BeforeNS...), h.AfterNS...) {
		if v > 0 {
			sum += math.Log(v)
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Exp(sum / float64(n))
}

// Counts is what one side counted about itself over a whole block.
type Counts struct {
	Voluntary        int64  `json:"voluntary"`
	Involuntary      int64  `json:"involuntary"`
	PerfSwitches     int64  `json:"perf_switches"`     // -1: perf software event unavailable
	PerfMigrations   int64  `json:"perf_migrations"`   // -1: unavailable
	PerfInstructions int64  `json:"perf_instructions"` // -1: no hardware counters
	PerfCycles       int64  `json:"perf_cycles"`       // -1: no hardware counters
	CPUsSeen         uint64 `json:"cpus_seen"`         // bit i: ran on CPU i at a sample boundary
	Ops              uint64 `json:"ops"`
}

// Switches is voluntary plus involuntary switches.
func (c Counts) Switches() int64 { return c.Voluntary + c.Involuntary }

// NoPerf is a Counts whose perf fields say "not measured".
func NoPerf() Counts {
	return Counts{PerfSwitches: -1, PerfMigrations: -1, PerfInstructions: -1, PerfCycles: -1}
}

// Flag marks a figure that must not be read at face value.
type Flag struct {
	Code    string `json:"code"` // e.g. "switch-count", "placement", "isolation"
	Message string `json:"message"`
}

// Label is the structured description of what a figure is: what the CPU
// was handed to, how, under which isolation, where, with which settings,
// on which host. String joins the parts that are set, in this order.
type Label struct {
	What      string `json:"what"`
	Mechanism string `json:"mechanism,omitempty"`
	Isolation string `json:"isolation,omitempty"` // namespaces, cgroups, filters entered (verified)
	Guest     string `json:"guest,omitempty"`     // how a VM guest really ran: backend, execution mode
	Caveat    string `json:"caveat,omitempty"`    // what the figure is not, e.g. "NOT a hardware VM exit"
	// Stackless marks a switch that resumes a heap frame and swaps no stack
	// (C++20 coroutines, tokio futures, promises, asyncio): a tier apart
	// from stack switches, never to be read as cheaper than the floor.
	Stackless bool     `json:"stackless,omitempty"`
	Workload  string   `json:"workload,omitempty"` // e.g. a ring's working set
	Placement string   `json:"placement,omitempty"`
	Settings  []string `json:"settings,omitempty"`
	Host      string   `json:"host,omitempty"`
}

// Parts are the label's parts that are set, in order, without the host.
func (l Label) Parts() []string {
	var parts []string
	for _, p := range []string{l.What, l.Mechanism, l.Isolation, l.Guest, l.Caveat, l.Workload, l.Placement, strings.Join(l.Settings, ", ")} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return parts
}

// String is the one-line label: the parts, then "on HOST".
func (l Label) String() string {
	parts := l.Parts()
	if l.Host != "" {
		parts = append(parts, "on "+l.Host)
	}
	return strings.Join(parts, " — ")
}

// The probe sets a traced block can ask for (Request.Probes).
const (
	ProbesFull  = ""
	ProbesLight = "light"
)

// Explain is a traced block's hops split into phases on the kernel's
// clock, as the worker read them (internal/phase's models).
type Explain struct {
	Method string `json:"method"`
	Model  string `json:"model"`
	Hops   uint64 `json:"hops"`
	// FiringsPerHop is how many times per hop a probe program ran and
	// recorded (every event, interrupt entries and exits included): what
	// the probes' cost is divided by to get one firing's cost.
	FiringsPerHop float64 `json:"firings_per_hop"`
	HopNsPerHop   float64 `json:"hop_ns_per_hop"` // traced time less other tasks', per hop
	// OtherNsPerHop went to other tasks or idle inside the traced span;
	// UnattributedNsPerHop the model did not explain (set-up, rare paths).
	OtherNsPerHop        float64        `json:"other_ns_per_hop"`
	UnattributedNsPerHop float64        `json:"unattributed_ns_per_hop"`
	Closure              float64        `json:"closure"`
	Phases               []ExplainPhase `json:"phases"`
	// Parallel, on a hop across CPUs, is what the waker's CPU did
	// meanwhile: measured, not part of the hop.
	Parallel []ExplainPhase     `json:"parallel,omitempty"`
	Counts   map[string]float64 `json:"per_hop_counts,omitempty"`
	Gaps     []ExplainGap       `json:"gaps,omitempty"`
	// Unexplained are the largest transitions the model did not
	// attribute ("from -> to" probes, ns per hop), for an audit.
	Unexplained []ExplainPhase `json:"unexplained,omitempty"`
	Notes       []string       `json:"notes,omitempty"`
}

// ExplainPhase is one phase of a hop, in time order.
type ExplainPhase struct {
	Name   string `json:"name"`
	What   string `json:"what"`
	Probes string `json:"probes"`
	// Kinds is what work the phase is (the kinds of each of the model's
	// phases it spans: one, or several where optional boundaries did not
	// fire); From and To are the kernel events that bound it (internal/phase
	// kind names: "switch", "fpu-save", ...; empty for the interrupts and for
	// the time between two CPUs' events, whose From is the first CPU's).
	// Verdicts select phases by these, never by Name.
	Kinds    []PhaseKind `json:"kinds,omitempty"`
	From     string      `json:"from,omitempty"`
	To       string      `json:"to,omitempty"`
	NsPerHop float64     `json:"ns"`
	PerHop   float64     `json:"per_hop"`
	// Firings is how many probe firings per hop land inside the phase:
	// one per occurrence (the event that closes it), two per interrupt
	// (entry and exit); what the untraced scale takes out of it.
	Firings float64 `json:"firings_per_hop,omitempty"`
	// CPU, on a hop across CPUs, is the side the phase ran on: "waker",
	// "wakee", or "between" for the time from an event on one CPU to one
	// on the other (the IPI's flight). Empty on one CPU. OnSide reads it
	// as a Side.
	CPU string `json:"cpu,omitempty"`
	// UntracedNs is the phase on the untraced scale: NsPerHop less its
	// Firings times the probes' measured cost per firing. Set by the
	// explain experiment, never by a worker; nil where the cost per
	// firing has no 95% interval or no firings were counted (0 ns is a
	// figure, so absence is not written as 0).
	UntracedNs *float64 `json:"untraced_ns,omitempty"`
	// UntracedUnreliable marks a phase whose correction is larger than
	// the phase, or whose correction's interval is wider than what is
	// left of it: its untraced figure is mostly the correction's noise.
	UntracedUnreliable bool `json:"untraced_unreliable,omitempty"`
}

// ExplainGap is work a phase holds that the probes could not separate.
type ExplainGap struct {
	Work   string `json:"work"`
	Inside string `json:"inside"`
	Needs  string `json:"needs"`
}
