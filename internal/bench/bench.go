// Package bench is the registry: one table of benchmarks, each saying what
// rung it belongs to, what one op is, how many hops that op makes, where it
// may run, what it needs, and how to run one block of it.
//
// Run executes inside a worker process (see internal/runner), so a benchmark
// may pin threads, change GOMAXPROCS or start partner processes without
// touching the harness.
package bench

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/ctxbench/ctxbench/internal/kernels"
)

// Rung is a level of the ladder.
type Rung string

// The rungs, cheapest first.
const (
	Floor     Rung = "floor"
	Coroutine Rung = "coroutine"
	Goroutine Rung = "goroutine"
	Runtime   Rung = "runtime"
	Thread    Rung = "thread"
	Process   Rung = "process"
	Container Rung = "container"
	VM        Rung = "vm"
	Reference Rung = "reference"
)

// RungOrder is the order of the ladder.
var RungOrder = []Rung{Floor, Coroutine, Goroutine, Runtime, Thread, Process, Container, VM, Reference}

func rungIndex(r Rung) int {
	for i, x := range RungOrder {
		if x == r {
			return i
		}
	}
	return len(RungOrder)
}

// Placement says where the two contexts run.
type Placement string

// The placements. They measure different quantities and are never mixed.
const (
	SameCPU  Placement = "same-cpu"  // both pinned to one CPU: the direct switch cost
	CrossCPU Placement = "cross-cpu" // pinned to two CPUs: wake-up latency, IPIs, idle exit
	Unpinned Placement = "unpinned"  // wherever the scheduler puts them: often bimodal
)

// AllPlacements lists the placements in display order.
var AllPlacements = []Placement{SameCPU, CrossCPU, Unpinned}

// ParsePlacement accepts a placement name.
func ParsePlacement(s string) (Placement, error) {
	for _, p := range AllPlacements {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown placement %q (want same-cpu, cross-cpu or unpinned)", s)
}

// Kind separates switches from reference rows.
type Kind string

// The kinds of result.
const (
	Switch  Kind = "switch"
	RefKind Kind = "reference"
)

// Request is one block, as the worker receives it.
type Request struct {
	Bench     string    `json:"bench"`
	Placement Placement `json:"placement"`
	CPUA      int       `json:"cpu_a"` // -1: not pinned
	CPUB      int       `json:"cpu_b"`
	Iters     uint64    `json:"iters"`
	Samples   int       `json:"samples"`
	Warmup    int       `json:"warmup"`
	Perf      bool      `json:"perf"`
	Arg       int64     `json:"arg,omitempty"`
	// Params carry experiment parameters beyond the ladder's (ring size,
	// working set...), by name.
	Params map[string]int64 `json:"params,omitempty"`
}

// Block returns the kernel block for the request.
func (r Request) Block() kernels.Block {
	return kernels.Block{Iters: r.Iters, Samples: r.Samples, Warmup: r.Warmup, CPUA: r.CPUA, CPUB: r.CPUB, Arg: r.Arg, Perf: r.Perf}
}

// Response is what one block measured.
type Response struct {
	// Iters is the ops per sample, set by self-calibrating benchmarks.
	Iters uint64         `json:"iters,omitempty"`
	NS    []uint64       `json:"ns"`
	TSC   []uint64       `json:"tsc"`
	A     kernels.Counts `json:"a"`
	B     kernels.Counts `json:"b"`
	// Process is the whole worker's switches, when A and B count threads.
	Process *kernels.Counts `json:"process,omitempty"`
	// Ring is what a ring block counted beyond NS/TSC/A/B (see ring.go).
	Ring *RingData `json:"ring,omitempty"`
	// Notes are facts about the block worth keeping (what was verified).
	Notes []string `json:"notes,omitempty"`
	// Facts are key/value evidence (namespace inodes, cgroup path...).
	Facts map[string]string `json:"facts,omitempty"`
	Error string            `json:"error,omitempty"`
}

// Benchmark is one registry entry.
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
	// ExpectSwitch: a true blocking handoff makes one kernel switch per hop,
	// which every run verifies.
	ExpectSwitch bool
	// Settings are fixed knobs that change the result, recorded in labels.
	Settings []string
	// Env is added to the worker's environment (e.g. GOMAXPROCS=1).
	// Unset removes variables (e.g. a user's GOMAXPROCS).
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
	// SelfCalibrating benchmarks size their own samples (Params
	// "target_ns"); their Response says how many ops a sample made.
	SelfCalibrating bool
	// MaxBlocks caps the blocks per cell (0: no cap), for benchmarks whose
	// every block starts a costly process (a JVM, a BEAM).
	MaxBlocks int
	// Prepare runs once in the parent before any block (e.g. a build).
	Prepare func(ctx context.Context) error
	// Hidden entries belong to other experiments (rings, say): they run in
	// workers like the rest but are not part of the ladder, `run all` or
	// `list`.
	Hidden bool
}

// Supports reports whether p is one of b's placements.
func (b *Benchmark) Supports(p Placement) bool {
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

var registry []*Benchmark

// ParentCleanups run in the parent (the process that starts workers) after
// a worker was killed or failed, and before a run: they remove what a
// worker could not, such as cgroups of a worker killed by the watchdog.
var ParentCleanups []func()

// WorkerCleanups run in a worker asked to stop (SIGTERM from the runner's
// watchdog or cancellation): they stop what the block started, such as
// container children and cgroups, while the worker can still name them.
// The runner SIGKILLs the worker's group after a grace period either way,
// and ParentCleanups sweep whatever that leaves.
var WorkerCleanups []func()

// Register adds benchmarks to the registry. Registration happens in init
// functions, one file per family.
func Register(bs ...*Benchmark) {
	for _, b := range bs {
		if Lookup(b.Name) != nil {
			panic("bench: duplicate benchmark " + b.Name)
		}
		registry = append(registry, b)
	}
	sort.SliceStable(registry, func(i, j int) bool {
		return rungIndex(registry[i].Rung) < rungIndex(registry[j].Rung)
	})
}

// All returns every ladder benchmark (not the hidden ones) in ladder order.
func All() []*Benchmark {
	var out []*Benchmark
	for _, b := range registry {
		if !b.Hidden {
			out = append(out, b)
		}
	}
	return out
}

// Lookup finds a benchmark by name.
func Lookup(name string) *Benchmark {
	for _, b := range registry {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Select resolves names to benchmarks. A name may be a benchmark, a rung
// ("thread" means every thread benchmark), or "all".
func Select(names []string) ([]*Benchmark, error) {
	var out []*Benchmark
	seen := map[string]bool{}
	add := func(b *Benchmark) {
		if !seen[b.Name] {
			seen[b.Name] = true
			out = append(out, b)
		}
	}
	for _, n := range names {
		if b := Lookup(n); b != nil {
			add(b)
			continue
		}
		matched := false
		for _, b := range All() {
			if n == "all" || string(b.Rung) == n || strings.HasPrefix(b.Name, strings.TrimSuffix(n, "/")+"/") {
				add(b)
				matched = true
			}
		}
		if !matched {
			return nil, fmt.Errorf("unknown benchmark %q (see 'ctxbench list')", n)
		}
	}
	return out, nil
}
