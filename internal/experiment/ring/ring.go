// Package ring is the ring experiment: N contexts of one kind (goroutines,
// threads, processes, processes in containers) pass a token around a ring,
// each summing its own working set between receiving and passing the token
// (lmbench's lat_ctx: L. McVoy and C. Staelin, "lmbench: Portable Tools for
// Performance Analysis", USENIX 1996). It sweeps ring sizes, working sets and
// placements as cells of the scheduler (the catalog's hidden ring/* entries
// run each block in a worker), and aggregates what the blocks counted into
// result.Ring points: raw cost per hop, the one-context overhead, and their
// difference, side by side and never clamped.
package ring

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// Kind is the kind of context in a ring.
type Kind string

// The kinds.
const (
	Goroutine Kind = "goroutine"
	Thread    Kind = "thread"
	Process   Kind = "process"
	ProcessMT Kind = "process-mt" // the process ring with multi-threaded (Go) members
	Container Kind = "container"
)

// Kinds lists the kinds in ladder order.
var Kinds = []Kind{Goroutine, Thread, Process, ProcessMT, Container}

// ParseKind accepts a kind name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown ring kind %q (want goroutine, thread, process, process-mt or container)", s)
}

// Bench is the hidden benchmark that runs a block of this kind, or an
// error saying why there is none.
func (k Kind) Bench() (*model.Benchmark, error) {
	name := map[Kind]string{Goroutine: catalog.RingGoroutine, Thread: catalog.RingThread, Process: catalog.RingProcess, ProcessMT: catalog.RingProcessMT, Container: catalog.RingContainer}[k]
	if name == "" {
		return nil, fmt.Errorf("unknown ring kind %q", k)
	}
	b := catalog.Lookup(name)
	if b == nil {
		return nil, fmt.Errorf("ring kind %s: benchmark %s is not registered", k, name)
	}
	if ok, why := b.Available(); !ok {
		return nil, fmt.Errorf("ring kind %s: %s", k, why)
	}
	return b, nil
}

// Options are a sweep's choices.
type Options struct {
	Kinds       []Kind
	Tasks       []int
	WorkingSets []int64
	Placements  []model.Placement // default: same-cpu
	// Sampling: Runs measured samples per point, SamplesPerBlock per
	// worker, Warmup discarded per block, MinTime the target sample length
	// (the head calibrates rounds per sample to it unless Rounds is set).
	Runs, SamplesPerBlock, Warmup int
	MinTime                       time.Duration
	Rounds                        uint64
	StackBytes                    int64
	IPC                           model.RingIPC // links of thread and process rings
	ContainerPreset               string        // container rings: internal/container's preset (default full)
	Timeout                       time.Duration // per block; 0 derives one
	PerfCheck                     bool          // one extra block per point with perf events (N <= PerfMaxTasks)
	Limits                        *host.Limits
	// Topology is the levels of the CPU topology recorded here: a level
	// placement runs at its pair (none: such placements are skipped).
	Topology schedule.Topology
}

// PerfMaxTasks bounds the rings that get a perf verification block: every
// member opens its own events, four descriptors each.
const PerfMaxTasks = 512

// Cell is one point of a sweep: a kind, a placement, a size and a working
// set, with its CPUs resolved (the scheduler's cell carries the ring's
// parameters as its payload).
type Cell struct {
	schedule.Cell
	Kind       Kind
	Tasks      int
	WorkingSet int64
	IPC        model.RingIPC
}

// Plan resolves the options into cells. Points that cannot run here (a
// placement a kind does not take, a limit of the machine) come back as
// skipped with the reason; a kind that cannot run at all is an error.
func Plan(o Options, cpus []int) ([]Cell, []result.Failure, error) {
	placements := o.Placements
	if len(placements) == 0 {
		placements = []model.Placement{model.SameCPU}
	}
	lim := o.Limits
	if lim == nil {
		l := host.ReadLimits()
		lim = &l
	}
	var cells []Cell
	var skipped []result.Failure
	for _, k := range o.Kinds {
		b, err := k.Bench()
		if err != nil {
			return nil, nil, err
		}
		if k == Container {
			if err := catalog.CheckContainerPreset(o.preset()); err != nil {
				return nil, nil, err
			}
		}
		for _, p := range placements {
			rc, err := o.Topology.Place(b, p, cpus)
			if err != nil {
				skipped = append(skipped, result.Failure{Name: "ring/" + string(k), Placement: string(p), Error: err.Error()})
				continue
			}
			for _, n := range o.Tasks {
				for _, ws := range o.WorkingSets {
					c := Cell{Cell: rc, Kind: k, Tasks: n, WorkingSet: ws, IPC: o.IPC}
					if k == Goroutine {
						c.IPC = model.RingPipe // channels; the option does not apply
					}
					c.Name = result.RingPoint(string(k), n, ws)
					c.Ring = &model.RingParams{Tasks: n, WorkingSet: ws, StackBytes: o.StackBytes, IPC: c.IPC}
					if k == Container {
						c.Ring.Container = o.preset()
					}
					if err := Check(k, n, ws, o.IPC, *lim); err != nil {
						skipped = append(skipped, result.Failure{Name: c.Key(), Placement: string(p), Error: err.Error()})
						continue
					}
					cells = append(cells, c)
				}
			}
		}
	}
	return cells, skipped, nil
}

func (o Options) preset() string {
	if o.ContainerPreset == "" {
		return "full"
	}
	return o.ContainerPreset
}

// timeout is the watchdog of one block: generous (a loaded 2-vCPU guest
// stalls, and starting 2,000 member processes takes tens of seconds) but
// bounded by what the ring's size and working set can need.
func (o Options) timeout(c schedule.Cell, samples int) time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	kind := Kind(c.Bench.Name[len("ring/"):])
	start := map[Kind]time.Duration{Goroutine: 5 * time.Microsecond, Thread: time.Millisecond, Process: 30 * time.Millisecond, ProcessMT: 30 * time.Millisecond, Container: 60 * time.Millisecond}[kind]
	hop := map[Kind]time.Duration{Goroutine: 20 * time.Microsecond, Thread: time.Millisecond, Process: time.Millisecond, ProcessMT: time.Millisecond, Container: time.Millisecond}[kind]
	n := time.Duration(c.Ring.Tasks)
	touch := time.Duration(float64(c.Ring.Tasks) * float64(c.Ring.WorkingSet) / 0.5e9 * float64(time.Second)) // one round's sums at 0.5 GB/s
	round := n*hop + 2*touch
	perSample := time.Duration(max(o.Rounds, 1)) * round  // --iterations fixes the rounds per sample
	samplesAll := time.Duration(2*(samples+o.Warmup) + 8) // ring and overhead samples, calibration
	return 2*time.Minute + n*start + samplesAll*(perSample+20*o.MinTime)
}

// Run sweeps the cells: the scheduler runs their blocks in a random order
// per round (a noisy minute spreads over all points instead of ruining
// one), then an optional perf block per point; each point's blocks are
// aggregated into a result.Ring.
func Run(ctx context.Context, env experiment.Env, cells []Cell, o Options) (experiment.Part, error) {
	var part experiment.Part
	if o.Runs <= 0 || o.SamplesPerBlock <= 0 || o.Warmup < 0 || (o.MinTime <= 0 && o.Rounds == 0) {
		return part, errors.New("ring: runs, samples per block and a sample length (or rounds) must be positive")
	}
	byName := map[string]Cell{}
	sc := make([]schedule.Cell, len(cells))
	for i, c := range cells {
		sc[i] = c.Cell
		byName[c.Key()] = c
	}
	so := schedule.Options{
		Runs: o.Runs, SamplesPerBlock: o.SamplesPerBlock, Warmup: o.Warmup, MinTime: o.MinTime, Iterations: o.Rounds,
		PerfCheck: o.PerfCheck,
		Timeout:   o.timeout,
		Perf: func(c schedule.Cell) bool {
			return c.Bench.ExpectSwitch && c.Ring.Tasks <= PerfMaxTasks && env.Environment.Perf.Software
		},
		Check: checkResponse,
	}
	if o.Timeout > 0 {
		so.Timeout = schedule.FixedTimeout(o.Timeout)
	}
	runs, err := schedule.Run(ctx, env.Runner, sc, so)
	if err != nil {
		return part, err
	}
	for _, r := range runs {
		c := byName[r.Cell.Key()]
		if r.Err != nil {
			part.Failures = append(part.Failures, result.Failure{Name: c.Key(), Placement: string(c.Placement), Error: r.Err.Error()})
			continue
		}
		part.Rings = append(part.Rings, Aggregate(c, r, env.Environment, env.Host))
	}
	return part, nil
}

// checkResponse rejects a block that does not hold what was asked.
func checkResponse(c schedule.Cell, r model.Response, samples int) error {
	d := r.Ring
	switch {
	case d == nil:
		return errors.New("the worker returned no ring data")
	case len(r.NS) != samples || len(r.TSC) != samples:
		return fmt.Errorf("the worker returned %d samples, asked for %d", len(r.NS), samples)
	case len(d.OverheadNS) != samples || len(d.HotNS) != samples:
		return fmt.Errorf("the worker returned %d overhead samples, asked for %d", len(d.OverheadNS), samples)
	case d.Tasks != c.Ring.Tasks || d.RoundsPerSample == 0:
		return fmt.Errorf("the worker ran a ring of %d with %d rounds per sample, asked for %d", d.Tasks, d.RoundsPerSample, c.Ring.Tasks)
	}
	return schedule.CheckSamples(r, samples)
}
