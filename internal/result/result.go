// Package result is ctxbench's versioned result schema: the types of a result
// file, and loading, validating and atomically saving it.
//
// A result file is one JSON Document. Every figure in it says what it is in
// its field name (nanoseconds end in _ns; "one_way" means per hop), so a
// display unit never leaks into the data. docs/schema.md describes each
// field; bump SchemaVersion on any incompatible change.
package result

import (
	"time"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// SchemaVersion is the version of the document this package writes.
const SchemaVersion = 2

// Document is one result file.
type Document struct {
	SchemaVersion int         `json:"schema_version"`
	Tool          Tool        `json:"tool"`
	Command       []string    `json:"command"`
	StartedAt     time.Time   `json:"started_at"`
	FinishedAt    time.Time   `json:"finished_at"`
	Settings      Settings    `json:"settings"`
	Environment   Environment `json:"environment"`
	// Results holds one entry per benchmark and placement.
	Results []Result `json:"results"`
	// Experiments other than the switch ladder; each is omitted when not run.
	Spawn        []Spawn       `json:"spawn,omitempty"`
	Memory       []Memory      `json:"memory,omitempty"`
	Rings        []Ring        `json:"rings,omitempty"`
	Loads        []LoadSeries  `json:"loads,omitempty"`
	Pools        *Pools        `json:"pools,omitempty"`
	Replications []Replication `json:"replications,omitempty"`
	AA           *AA           `json:"aa,omitempty"`
	// History says what the machine's history of sittings knew of this
	// run and whether the run was recorded in it (null: history off).
	History *History `json:"history,omitempty"`
	// HostState is what the host probe said of the run (null: no block was
	// probed: a dry run, files written before).
	HostState *HostState `json:"host_state,omitempty"`
	// AB is an interleaved A/B's set-up and its changes (ctxbench ab).
	AB *AB `json:"ab,omitempty"`
	// Attach is ctxbench attach: targets measured in place.
	Attach *Attach `json:"attach,omitempty"`
	// Derived are the figures computed from several rows.
	Derived *Derived `json:"derived,omitempty"`
	// Warnings about the run as a whole (noise, environment), each with a fix.
	Warnings []Warning `json:"warnings"`
	// Failures are cells that ran and failed; Skipped were asked for but
	// cannot run here. Each says why.
	Failures []Failure `json:"failures,omitempty"`
	Skipped  []Failure `json:"skipped,omitempty"`
}

// Failure is a benchmark and placement without a result, and why.
type Failure struct {
	Name      string `json:"name"`
	Placement string `json:"placement,omitempty"`
	Error     string `json:"error"`
}

// Tool identifies the program that wrote the document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	// Commit is the VCS revision the binary was built from ("-dirty" when
	// the tree had changes), from Go's build information; empty when the
	// build recorded none.
	Commit string `json:"commit,omitempty"`
	// Build identifies the executable when no clean commit does (a build
	// without VCS information, or of a tree with changes): "sha256:" and
	// 16 hex digits of the file.
	Build     string `json:"build,omitempty"`
	GoVersion string `json:"go_version"`
	CC        string `json:"cc,omitempty"` // C compiler the kernels were built with
	Cgo       bool   `json:"cgo"`
}

// Settings are the sampling choices of the run.
type Settings struct {
	Preset          string   `json:"preset"` // quick, default, thorough, custom
	Runs            int      `json:"runs"`   // measured samples per benchmark and placement
	SamplesPerBlock int      `json:"samples_per_block"`
	Warmup          int      `json:"warmup"` // discarded samples at the start of every block
	MinTimeNS       int64    `json:"min_time_ns"`
	Iterations      uint64   `json:"iterations,omitempty"` // fixed ops per sample; 0 = calibrated
	Placements      []string `json:"placements"`
	CPUs            []int    `json:"cpus"`
	Seed            int64    `json:"seed"`
	DryRun          bool     `json:"dry_run,omitempty"`
	// SpanNS is the least time each run's blocks were spread over.
	SpanNS int64 `json:"span_ns,omitempty"`
	// TargetCI is --target-ci as a fraction (0: none): blocks were added to
	// cells wider than it, within TargetBudgetNS.
	TargetCI       float64 `json:"target_ci,omitempty"`
	TargetBudgetNS int64   `json:"target_budget_ns,omitempty"`
	// CaptureAbove is --capture-above as given ("p99", "50µs"; empty: no
	// capture).
	CaptureAbove string `json:"capture_above,omitempty"`
}

// Warning is something the reader of a figure must know, with a one-line fix.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Result is one benchmark at one placement.
type Result struct {
	Name        string `json:"name"`
	Rung        string `json:"rung"`
	Placement   string `json:"placement"`
	Kind        string `json:"kind"` // "switch" or "reference"
	Description string `json:"description"`
	// Op says what one timed operation is; HopsPerOp how many hops it makes.
	Op        string  `json:"op"`
	HopsPerOp float64 `json:"hops_per_op"`
	// Label says what the figure is; JSON carries it twice, as one line
	// ("label") and by part ("label_parts"): see labels.go.
	Label model.Label `json:"-"`

	OneWayNS Figure `json:"one_way_ns"`
	// Variant, in an interleaved A/B (ctxbench ab), is the side the row
	// measured: "A" or "B"; absent elsewhere.
	Variant string `json:"variant,omitempty"`
	// HostAdjusted is the figure with the host's state taken out (null
	// where the blocks were not probed or no host effect was resolved).
	HostAdjusted *HostAdjusted `json:"host_adjusted,omitempty"`
	// CrossCPU, on a cross-cpu row, says what its extra cost over the
	// same benchmark's same-cpu row consists of (derived).
	CrossCPU     *CrossCPU      `json:"cross_cpu,omitempty"`
	OneWayCycles *stats.Summary `json:"one_way_cycles"` // TSC reference cycles per hop; null without a usable TSC
	// Samples are the raw per-sample figures, one-way ns, in the order taken.
	Samples []float64 `json:"samples"`

	// SwitchesPerHop is the counted context switches of both sides per hop,
	// or null where no kernel switch is expected (floor, goroutines,
	// reference rows).
	SwitchesPerHop *float64 `json:"switches_per_hop"`
	// Multiple is the row as a multiple of the document's baseline row
	// (Derived.Baseline): MultipleInterval's median where there is one (the
	// median of the per-round ratios), else the ratio of the two medians;
	// nil without a baseline.
	Multiple *float64 `json:"multiple_of_baseline,omitempty"`
	// MultipleInterval is the multiple taken round by round against the
	// baseline (their blocks interleaved), with its interval; absent when
	// the two rows' blocks cannot be paired (a one-block probe row).
	MultipleInterval *Interval     `json:"multiple_interval,omitempty"`
	Verification     Verification  `json:"verification"`
	Placed           PlacementInfo `json:"placement_info"`

	// Evidence is what the benchmark verified about itself in its first
	// block (e.g. the namespaces and cgroup each side entered, how a VM's
	// guest ran), by key.
	Evidence map[string]string `json:"evidence,omitempty"`
	// KVM is what KVM itself counted per op in the first block, and the
	// guest mode (vm rows): the VM decomposition reads it.
	KVM *KVMCounts `json:"kvm,omitempty"`

	IterationsPerSample uint64 `json:"iterations_per_sample"`
	// Blocks is how many blocks (worker processes) the samples came from;
	// BlockInfo says, block by block in the order the samples are, which
	// round it ran in, how many samples it holds, and what else took its
	// CPUs. Blocks, not samples, are the unit of replication.
	Blocks    int         `json:"blocks"`
	BlockInfo []BlockInfo `json:"block_info,omitempty"`
	// WarmupDropped is how many measured samples at the start of every
	// block were found still warming up and dropped (stats.SteadyStart).
	WarmupDropped int       `json:"warmup_dropped,omitempty"`
	Settings      []string  `json:"settings,omitempty"` // e.g. GOMAXPROCS=1
	Flags         []Flag    `json:"flags"`
	Warnings      []Warning `json:"warnings,omitempty"`
	// Explain is where the hop's time goes (ctxbench explain only).
	Explain *Explain `json:"explain,omitempty"`
}

// Contended says the figure is flagged contended: other work took its CPUs
// in some blocks even after re-running them, so it is no clean measurement.
func (r *Result) Contended() bool {
	for _, f := range r.Flags {
		if f.Code == "contended" {
			return true
		}
	}
	return false
}

// BlockInfo is one block of a result: its round of the interleaving, its
// samples, the share of its CPUs' time that other work took (OtherShare,
// steal included; StealShare is the hypervisor's part, in 10 ms ticks),
// and how often it was re-run because of it.
type BlockInfo struct {
	Round      int     `json:"round"`
	Samples    int     `json:"samples"`
	OtherShare float64 `json:"other_share"`
	StealShare float64 `json:"steal_share"`
	Reruns     int     `json:"reruns,omitempty"`
	Contended  bool    `json:"contended,omitempty"`
	// NeighbourBusy is the share of the other online CPUs' time that was
	// not idle during the block: a loaded neighbour vCPU can slow the
	// measured one unseen. Recorded, not judged: it includes ctxbench's own
	// parent process, which on short back-to-back blocks (--quick) keeps a
	// neighbour busy by itself.
	NeighbourBusy float64 `json:"neighbour_busy,omitempty"`
	// WakeupIPIs is the wake-up IPIs the block's CPUs received
	// (/proc/interrupts RES + CAL), start-up included; null where not
	// counted.
	WakeupIPIs *int64 `json:"wakeup_ipis,omitempty"`
	// HostProbeNS is the host probe's reading around the block: a fixed
	// pointer chase timed on the block's CPUs before and after it (the
	// geometric mean of those readings, ns; internal/kernels/hostprobe.c).
	// 0 where it was not read. Higher is a slower host.
	HostProbeNS float64 `json:"host_probe_ns,omitempty"`
}

// Verification is the evidence behind SwitchesPerHop.
type Verification struct {
	Method string `json:"method"`
	// ExpectedPerHop is the switch count per hop a true blocking handoff
	// makes (1), or null where no kernel switch is expected.
	ExpectedPerHop *float64 `json:"expected_per_hop"`
	Hops           float64  `json:"hops"` // hops counted over the measured blocks
	Voluntary      int64    `json:"voluntary"`
	Involuntary    int64    `json:"involuntary"`
	// OSSwitchesPerHop is the same count for rows that expect none: the OS
	// switches the runtime still made (e.g. Go threads parking).
	OSSwitchesPerHop *float64 `json:"os_switches_per_hop,omitempty"`
	// Perf* come from a separate block run with perf software events open
	// (opening them during timed blocks slows every switch).
	PerfSwitchesPerHop *float64 `json:"perf_switches_per_hop"`
	PerfMigrations     *int64   `json:"perf_migrations"`
	InstructionsPerHop *float64 `json:"instructions_per_hop"` // hardware counters, where present
	CyclesPerHop       *float64 `json:"cycles_per_hop"`       //
	Verified           bool     `json:"verified"`
	Note               string   `json:"note,omitempty"`
}

// PlacementInfo records where the contexts asked to run and where they ran.
type PlacementInfo struct {
	Requested string `json:"requested"`
	CPUA      []int  `json:"cpus_a"` // the CPU set side A was allowed; empty = any
	CPUB      []int  `json:"cpus_b"`
	ObservedA []int  `json:"observed_a"` // CPUs side A was seen on
	ObservedB []int  `json:"observed_b"`
	OK        bool   `json:"ok"`
	// Note says what the check could not see, e.g. CPUs numbered 64 and
	// above (the kernels record sightings in a 64-bit mask).
	Note string `json:"note,omitempty"`
}

// KVMCounts is what KVM counted over a vm block (the worker's type, as
// sent): its vCPU statistics per op, by the kernel's names, and the guest
// mode ("kernel", "user", "real").
type KVMCounts = model.KVMData

// Flag marks a figure that must not be read at face value (codes such as
// "switch-count", "placement", "isolation", "hop-count").
type Flag = model.Flag

// Spawn is the creation cost of one kind of context.
type Spawn struct {
	Name        string        `json:"name"`
	Kind        string        `json:"kind"` // goroutine, thread, process, container, vm, runtime
	Description string        `json:"description"`
	Label       string        `json:"label"`
	Op          string        `json:"op"`
	PerCreateNS stats.Summary `json:"per_create_ns"`
	Samples     []float64     `json:"samples"` // ns per creation, one value per sample
	// BlockSamples is how many of the samples each block (worker) took,
	// in order; absent for files that did not record it (one block).
	BlockSamples []int    `json:"block_samples,omitempty"`
	Claim        string   `json:"claim,omitempty"`  // the published/folklore figures beside it, with sources, in one line
	Claims       []Claim  `json:"claims,omitempty"` // the same, one by one
	Notes        []string `json:"notes,omitempty"`
}

// Memory is what one kind of context costs to keep, per context.
type Memory struct {
	Name        string  `json:"name"`
	Kind        string  `json:"kind"` // goroutine, thread, process, container, vm, runtime
	Description string  `json:"description"`
	Label       string  `json:"label"`
	Contexts    int     `json:"contexts"`  // how many were held at once
	Requested   int     `json:"requested"` // how many were asked for
	RSSBytes    float64 `json:"rss_bytes_per_context"`
	PSSBytes    float64 `json:"pss_bytes_per_context"`
	// KernelBytes is kernel stacks + page tables (+ KVM's own page tables
	// for VMs) from /proc/meminfo deltas: machine-wide, so noisy.
	KernelBytes float64 `json:"kernel_bytes_per_context"`
	SlabBytes   float64 `json:"slab_bytes_per_context"`
	VirtBytes   float64 `json:"virtual_bytes_per_context"` // reserved address space, not memory used
	// Charged* are what the contexts' own memory cgroup was charged: exact,
	// undisturbed by the rest of the machine; 0 when not measured.
	ChargedBytes       float64 `json:"charged_bytes_per_context"`
	ChargedUserBytes   float64 `json:"charged_user_bytes_per_context"`
	ChargedKernelBytes float64 `json:"charged_kernel_bytes_per_context"`
	CreateNS           float64 `json:"create_ns_per_context,omitempty"` // first-touch creation while parking
	// RuntimeBytes is another runtime's own count per context (e.g.
	// erlang:memory(processes), a coroutine frame's size); RuntimeMetric
	// says which.
	RuntimeBytes  float64  `json:"runtime_bytes_per_context,omitempty"`
	RuntimeMetric string   `json:"runtime_metric,omitempty"`
	Claim         string   `json:"claim,omitempty"` // the folklore claims beside it
	Claims        []Claim  `json:"claims,omitempty"`
	Limit         string   `json:"limit,omitempty"` // what stopped it short of Requested
	Limits        []string `json:"limits,omitempty"`
	Notes         []string `json:"notes,omitempty"`
}

// Claim is a published or folklore statement shown beside a figure;
// BytesPerContext is set where the claim implies a size.
type Claim struct {
	Text   string `json:"text"`
	Source string `json:"source"`
	// Differs says what differs between the claim and the row beside it
	// when they measure different things ("that is a runtime's cold start
	// with image and network, this is namespaces + cgroup + seccomp
	// alone"); empty when like for like. Beside such a claim no multiple of
	// its figure is printed.
	Differs         string  `json:"differs,omitempty"`
	BytesPerContext float64 `json:"bytes_per_context,omitempty"`
}

// Ring is one point of a ring sweep (N contexts passing a token).
type Ring struct {
	Kind        string        `json:"kind"`
	Placement   string        `json:"placement"`
	Tasks       int           `json:"tasks"`
	WorkingSetB int64         `json:"working_set_bytes"`
	Label       model.Label   `json:"-"`
	RawNS       stats.Summary `json:"raw_ns_per_hop"`
	OverheadNS  stats.Summary `json:"overhead_ns_per_hop"`
	// NetNS is raw − overhead per hop, never clamped: NetInterval's median
	// (the median of the per-block differences, the figure the tables
	// print) where there are two blocks or more, else the difference of
	// the two medians.
	NetNS float64 `json:"net_ns_per_hop"`
	// NetInterval is raw − overhead taken block by block (both are timed
	// in every sample of a block), with its interval: a net whose interval
	// holds 0 is not resolved here.
	NetInterval    *Interval      `json:"net_interval,omitempty"`
	RawCycles      *stats.Summary `json:"raw_cycles_per_hop,omitempty"`
	Samples        []float64      `json:"samples"`
	SwitchesPerHop *float64       `json:"switches_per_hop"`
	// RawNSPerSwitch and NetNSPerSwitch divide the per-hop figures by the
	// counted switches per hop: points whose switches per hop differ
	// compare per switch, not per hop (nil where no switch is expected).
	RawNSPerSwitch *float64 `json:"raw_ns_per_switch,omitempty"`
	NetNSPerSwitch *float64 `json:"net_ns_per_switch,omitempty"`
	// RawPerSwitchInterval and NetPerSwitchInterval are the per-hop
	// intervals divided by the switches per hop.
	RawPerSwitchInterval *Interval `json:"raw_per_switch_interval,omitempty"`
	NetPerSwitchInterval *Interval `json:"net_per_switch_interval,omitempty"`
	HopsCounted          float64   `json:"hops_counted"`
	HopsExpected         float64   `json:"hops_expected"`
	InstructionsPerHop   *float64  `json:"instructions_per_hop,omitempty"`
	CyclesPerHop         *float64  `json:"cycles_per_hop,omitempty"`
	CoreType             string    `json:"core_type,omitempty"`
	Flags                []Flag    `json:"flags"`

	// Added with the ring experiment (internal/ring); all optional.
	Name            string         `json:"name,omitempty"`             // the hidden benchmark, e.g. ring/thread
	OverheadSamples []float64      `json:"overhead_samples,omitempty"` // per-sample overhead ns per hop
	OverheadCycles  *stats.Summary `json:"overhead_cycles_per_hop,omitempty"`
	NetCycles       *float64       `json:"net_cycles_per_hop,omitempty"` // raw − overhead TSC cycles, taken as NetNS is; never clamped
	// OverheadHotNS is lmbench's own baseline: one context, the same
	// pipes, but one working set summed on every hop, so it stays cached;
	// NetHotNS, raw − it taken as NetNS is, keeps the cache refills.
	OverheadHotNS      *stats.Summary `json:"overhead_hot_ns_per_hop,omitempty"`
	NetHotNS           *float64       `json:"net_hot_ns_per_hop,omitempty"`
	FootprintB         int64          `json:"footprint_bytes"`   // tasks × working set
	FitsIn             string         `json:"fits_in,omitempty"` // smallest cache level holding the footprint ("L2", "L3", "memory")
	LLCBytes           int64          `json:"llc_bytes,omitempty"`
	Voluntary          int64          `json:"voluntary"`
	Involuntary        int64          `json:"involuntary"`
	OSSwitchesPerHop   *float64       `json:"os_switches_per_hop,omitempty"` // goroutine rings: the process's OS switches
	PerfSwitchesPerHop *float64       `json:"perf_switches_per_hop,omitempty"`
	Verified           bool           `json:"verified"`                    // hops counted = expected, and one switch per hop where one is expected
	RoundsPerSample    []uint64       `json:"rounds_per_sample,omitempty"` // per block
	Blocks             int            `json:"blocks"`
	BlockInfo          []BlockInfo    `json:"block_info,omitempty"`
	CPUs               []int          `json:"cpus,omitempty"` // the head's CPU, then the odd members' (empty: unpinned)
	Settings           []string       `json:"settings,omitempty"`
	Warnings           []Warning      `json:"warnings,omitempty"`
}

// Replication is one published experiment re-run as published, beside the
// published figure and what the publication got wrong.
type Replication struct {
	Name      string             `json:"name"`
	Source    string             `json:"source"`
	Published string             `json:"published"`
	Measured  string             `json:"measured"`
	Values    map[string]float64 `json:"values"`
	Mistake   string             `json:"mistake,omitempty"`
	Notes     []string           `json:"notes,omitempty"`
}

// BlockSizes are the samples per block in the order the samples are, or nil
// when the blocks were not recorded (files before schema version 2).
func BlockSizes(blocks []BlockInfo) []int {
	if len(blocks) == 0 {
		return nil
	}
	out := make([]int, len(blocks))
	for i, b := range blocks {
		out[i] = b.Samples
	}
	return out
}

// BlockProbes are the blocks' host probe readings, in the order of the
// samples (0 where a block has none; nil when the blocks were not recorded).
func BlockProbes(blocks []BlockInfo) []float64 {
	if len(blocks) == 0 {
		return nil
	}
	out := make([]float64, len(blocks))
	for i, b := range blocks {
		out[i] = b.HostProbeNS
	}
	return out
}

// BlockRounds are the rounds of the interleaving the blocks ran in, in the
// order of the samples (nil when the blocks were not recorded).
func BlockRounds(blocks []BlockInfo) []int {
	if len(blocks) == 0 {
		return nil
	}
	out := make([]int, len(blocks))
	for i, b := range blocks {
		out[i] = b.Round
	}
	return out
}

// Explain is where a benchmark's hop goes, phase by phase on the kernel's
// clock (ctxbench explain): traced and untraced blocks of the same cell,
// interleaved in one sitting, and the traced blocks' phases averaged.
type Explain struct {
	Method string `json:"method"` // how the kernel was probed
	Model  string `json:"model"`  // the phase model (pipe, futex, yield)
	Blocks int    `json:"blocks"` // traced blocks
	// TracedOneWayNS and UntracedOneWayNS are the user-space clock's
	// medians per hop with and without the probes; ProbeCost is their
	// ratio − 1 with its interval (blocks paired by round).
	TracedOneWayNS   float64 `json:"traced_one_way_ns"`
	UntracedOneWayNS float64 `json:"untraced_one_way_ns"`
	// TracedMeanNS is the traced samples' mean per hop: the kernel's
	// clock adds time up, so its hop compares with a mean, not a median.
	TracedMeanNS  float64 `json:"traced_mean_one_way_ns"`
	ProbeCost     float64 `json:"probe_cost"`
	ProbeCostLow  float64 `json:"probe_cost_low"`
	ProbeCostHigh float64 `json:"probe_cost_high"`
	// ProbeCostConfidence is that interval's level (0 where not recorded:
	// files before it, or too few rounds for any interval).
	ProbeCostConfidence float64 `json:"probe_cost_confidence,omitempty"`
	// Probes is the traced cells' probe set: "full" or "light" (only the
	// syscall, wakeup and switch probes). Absent in files written before
	// the light set existed (they are full).
	Probes string `json:"probes,omitempty"`
	// FiringsPerHop is how many times per hop a probe ran and recorded in
	// the traced blocks (their mean); absent where the worker did not
	// count them.
	FiringsPerHop float64 `json:"firings_per_hop,omitempty"`
	// ProbeNsPerFiring is one probe firing's cost: the traced minus the
	// untraced block median of each round, over FiringsPerHop, and the
	// median of those per-round figures with its order-statistic interval
	// (stats.PerRound). Absent without firings or fewer than two rounds.
	ProbeNsPerFiring *Interval `json:"probe_ns_per_firing,omitempty"`
	// UntracedMeanNS is the untraced samples' mean per hop: what the
	// phases on the untraced scale add up to, as TracedMeanNS is for the
	// traced phases.
	UntracedMeanNS float64 `json:"untraced_mean_one_way_ns"`
	// UntracedClosure is the phases' sum on the untraced scale (their
	// UntracedNs) over UntracedMeanNS; absent where the phases have no
	// untraced scale (ProbeNsPerFiring absent or below 95%).
	UntracedClosure *float64 `json:"untraced_closure,omitempty"`
	// Closure is the phases' sum over the traced hop (TracedMeanNS, the
	// user-space clock's mean per hop of the traced blocks). KernelHopNS
	// is the traced time per hop on the kernel's clock, less what other
	// tasks and idle took (it also holds the warm-up sample and what a
	// block did between its partners' start and its first hop), and
	// KernelClosure the phases' sum over it.
	Closure        float64            `json:"closure"`
	KernelHopNS    float64            `json:"kernel_hop_ns"`
	KernelClosure  float64            `json:"kernel_closure"`
	Phases         []ExplainPhase     `json:"phases"` // in time order
	OtherNS        float64            `json:"other_ns"`
	UnattributedNS float64            `json:"unattributed_ns"`
	Counts         map[string]float64 `json:"per_hop_counts,omitempty"`
	Gaps           []model.ExplainGap `json:"gaps,omitempty"`
	// Parallel, on a hop across CPUs, is what the waker's CPU did while
	// the hop went on on the other (finishing its syscall, blocking,
	// idling): measured, not part of the hop, not in the closure.
	Parallel []ExplainPhase `json:"parallel,omitempty"`
	// Unexplained are the largest transitions the model left unattributed.
	Unexplained []ExplainPhase `json:"unexplained,omitempty"`
	Notes       []string       `json:"notes,omitempty"`
	// Capture is the cell's captured slow hops (--capture-above; nil
	// without).
	Capture *Capture `json:"capture,omitempty"`
}

// ExplainPhase is one phase of a hop (the worker's type, as sent): ns per
// hop on the kernel's clock, how often per hop it ran, what the kernel does
// in it, the probes that bound it.
type ExplainPhase = model.ExplainPhase
