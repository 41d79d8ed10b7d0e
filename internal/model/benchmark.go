package model

import "context"

// Benchmark is one entry of the catalog: what rung it belongs to, what one
// op is and how many hops it makes, where it may run, what it needs, and how
// one block of it runs. The scheduler reads only the sampling fields
// (HopsPerOp, StartIters, Env, SelfCalibrating, MaxBlocks, Prepare...); Run
// is called inside a worker process.
type Benchmark struct {
	Name        string
	Rung        Rung
	Kind        Kind
	Description string // one line for `ctxbench list`
	Op          string // what one timed op is
	HopsPerOp   float64
	// Switched and Mechanism build the label: what the CPU is handed to,
	// and how.
	Switched  string
	Mechanism string
	// Placements are the ones that make sense; Ladder the ones the default
	// ladder runs. PlacementNote says why the others are refused.
	Placements    []Placement
	Ladder        []Placement
	PlacementNote string
	// LadderLevels: where the default ladder runs it across CPUs, it runs
	// it once at each other level of the topology present too.
	LadderLevels bool
	// ExpectSwitch: a true blocking handoff makes one kernel switch per hop,
	// which every run verifies.
	ExpectSwitch bool
	// Settings are fixed knobs that change the result, recorded in labels.
	Settings []string
	// Env is added to the worker's environment (e.g. GOMAXPROCS=1); Unset
	// removes variables (e.g. a user's GOMAXPROCS).
	Env   []string
	Unset []string
	// StartIters is the first calibration guess for ops per sample.
	StartIters uint64
	// Arg is passed to the kernel (spin count, working set...).
	Arg int64
	// Needs reports whether the benchmark can run here, and why not.
	Needs func() (bool, string)
	// Run measures one block; it runs in a worker process.
	Run func(ctx context.Context, req Request) (Response, error)
	// Hops counts the hops a block made; nil means A's ops × HopsPerOp.
	Hops func(r Response) float64
	// SelfCalibrating benchmarks size their own samples (Request.TargetNS);
	// their Response says how many ops a sample made.
	SelfCalibrating bool
	// Phases names the kernel phase model that splits its hop ("pipe",
	// "futex", "yield"; "" when ctxbench explain cannot split it).
	Phases string
	// Warmup is the fewest discarded samples at the start of each block
	// (0: the run's --warmup): Go's handoffs are still warming up for two
	// samples after one.
	Warmup int
	// MaxBlocks caps the blocks per cell (0: no cap), for benchmarks whose
	// every block starts a costly process (a JVM, a BEAM).
	MaxBlocks int
	// Prepare runs once in the parent before any block (e.g. a build).
	Prepare func(ctx context.Context) error
	// Hidden entries belong to other experiments (rings, creation, memory,
	// the published programs): they run in workers like the rest but are
	// not part of the ladder, `run all` or `list`.
	Hidden bool
}

// Supports reports whether p is one of b's placements. A benchmark that
// runs across two CPUs runs at every level of the topology.
func (b *Benchmark) Supports(p Placement) bool {
	if p.IsLevel() {
		p = CrossCPU
	}
	for _, x := range b.Placements {
		if x == p {
			return true
		}
	}
	return false
}

// Available reports whether b can run on this machine.
func (b *Benchmark) Available() (bool, string) {
	if b.Needs == nil {
		return true, ""
	}
	return b.Needs()
}

// HopsIn counts the hops of a response.
func (b *Benchmark) HopsIn(r Response) float64 {
	if b.Hops != nil {
		return b.Hops(r)
	}
	return float64(r.A.Ops) * b.HopsPerOp
}
