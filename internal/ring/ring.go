// Package ring runs the ring experiment: N contexts of one kind (goroutines,
// threads, processes) pass a token around a ring, each summing its own
// working set between receiving and passing the token (lmbench lat_ctx,
// research/anchors-os.md §1.1). It sweeps ring sizes, working sets and
// placements, runs every block in a worker process (the hidden ring/*
// benchmarks of internal/bench), and aggregates what the blocks counted
// into result.Ring points: raw cost per hop, the one-context overhead, and
// their difference, side by side and never clamped.
package ring

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/runner"
)

// Kind is the kind of context in a ring.
type Kind string

// The kinds.
const (
	Goroutine Kind = "goroutine"
	Thread    Kind = "thread"
	Process   Kind = "process"
	Container Kind = "container"
)

// Kinds lists the kinds in ladder order.
var Kinds = []Kind{Goroutine, Thread, Process, Container}

// ParseKind accepts a kind name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown ring kind %q (want goroutine, thread, process or container)", s)
}

// Bench is the hidden benchmark that runs a block of this kind, or an
// error saying why there is none.
func (k Kind) Bench() (*bench.Benchmark, error) {
	name := map[Kind]string{Goroutine: bench.RingGoroutine, Thread: bench.RingThread, Process: bench.RingProcess, Container: bench.RingContainer}[k]
	if name == "" {
		return nil, fmt.Errorf("unknown ring kind %q", k)
	}
	b := bench.Lookup(name)
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
	Placements  []bench.Placement // default: same-cpu
	CPUs        []int
	// Sampling: Runs measured samples per point, SamplesPerBlock per
	// worker, Warmup discarded per block, MinTime the target sample length
	// (the head calibrates rounds per sample to it unless Rounds is set).
	Runs, SamplesPerBlock, Warmup int
	MinTime                       time.Duration
	Rounds                        uint64
	StackBytes                    int64
	IPC                           kernels.RingIPC // links of thread and process rings
	ContainerPreset               string          // container rings: internal/container's preset (default full)
	Timeout                       time.Duration   // per block; 0 derives one
	Seed                          int64
	PerfCheck                     bool // one extra block per point with perf events (N <= PerfMaxTasks)
	Executor                      runner.Executor
	Progress                      runner.Progress
	Env                           result.Environment // caches for "fits in", perf availability
	Host                          string             // for labels
	Limits                        *Limits            // nil: ReadLimits
}

// PerfMaxTasks bounds the rings that get a perf verification block: every
// member opens its own events, four descriptors each.
const PerfMaxTasks = 512

// Cell is one point of a sweep: a kind, a placement, a size and a working
// set, with its CPUs resolved.
type Cell struct {
	runner.Cell
	Kind       Kind
	Tasks      int
	WorkingSet int64
	IPC        kernels.RingIPC
}

// Key names the point in messages and the progress bar.
func (c Cell) Key() string {
	return result.RingPoint(string(c.Kind), c.Tasks, c.WorkingSet) + " (" + string(c.Placement) + ")"
}

// display is the cell as the progress bar shows it: runner.Cell.Key names
// the benchmark, so the copy carries the point's name instead.
func (c Cell) display() runner.Cell {
	b := *c.Bench
	b.Name = result.RingPoint(string(c.Kind), c.Tasks, c.WorkingSet)
	d := c.Cell
	d.Bench = &b
	return d
}

// Plan resolves the options into cells. Points that cannot run here (a
// placement a kind does not take, a limit of the machine) come back as
// skipped with the reason; a kind that cannot run at all is an error.
func Plan(o Options) ([]Cell, []result.Failure, error) {
	placements := o.Placements
	if len(placements) == 0 {
		placements = []bench.Placement{bench.SameCPU}
	}
	lim := o.Limits
	if lim == nil {
		l := ReadLimits()
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
			if _, err := bench.RingContainerPreset(o.preset()); err != nil {
				return nil, nil, err
			}
		}
		for _, p := range placements {
			rc, err := runner.CellFor(b, p, o.CPUs)
			if err != nil {
				skipped = append(skipped, result.Failure{Name: "ring/" + string(k), Placement: string(p), Error: err.Error()})
				continue
			}
			for _, n := range o.Tasks {
				for _, ws := range o.WorkingSets {
					c := Cell{Cell: rc, Kind: k, Tasks: n, WorkingSet: ws, IPC: o.IPC}
					if k == Goroutine {
						c.IPC = kernels.RingPipe // channels; the option does not apply
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

// Request is the worker request of one block of c.
func (o Options) Request(c Cell, samples, warmup int, perf bool) bench.Request {
	r := bench.Request{
		Bench: c.Bench.Name, Placement: c.Placement, CPUA: c.CPUA, CPUB: c.CPUB,
		Iters: o.Rounds, Samples: samples, Warmup: warmup, Perf: perf,
		Params: map[string]int64{
			bench.ParamTasks:       int64(c.Tasks),
			bench.ParamWorkingSet:  c.WorkingSet,
			bench.ParamMinSampleNS: o.MinTime.Nanoseconds(),
			bench.ParamStack:       o.StackBytes,
			bench.ParamIPC:         int64(c.IPC),
		},
	}
	if c.Kind == Container {
		r.Params[bench.ParamContainer], _ = bench.RingContainerPreset(o.preset())
	}
	return r
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
func (o Options) timeout(c Cell, samples int) time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	start := map[Kind]time.Duration{Goroutine: 5 * time.Microsecond, Thread: time.Millisecond, Process: 30 * time.Millisecond, Container: 60 * time.Millisecond}[c.Kind]
	hop := map[Kind]time.Duration{Goroutine: 20 * time.Microsecond, Thread: time.Millisecond, Process: time.Millisecond, Container: time.Millisecond}[c.Kind]
	n := time.Duration(c.Tasks)
	touch := time.Duration(float64(c.Tasks) * float64(c.WorkingSet) / 0.5e9 * float64(time.Second)) // one round's sums at 0.5 GB/s
	round := n*hop + 2*touch
	perSample := time.Duration(max(o.Rounds, 1)) * round  // --iterations fixes the rounds per sample
	samplesAll := time.Duration(2*(samples+o.Warmup) + 8) // ring and overhead samples, calibration
	return 2*time.Minute + n*start + samplesAll*(perSample+20*o.MinTime)
}

// Outcome is one point's result or why it has none.
type Outcome struct {
	Cell Cell
	Ring *result.Ring
	Err  error
}

// Sweep runs every cell: blocks of all cells in a random order per round
// (a noisy minute spreads over all points instead of ruining one), then an
// optional perf block per cell, then aggregation.
func Sweep(ctx context.Context, cells []Cell, o Options) ([]Outcome, error) {
	if o.Executor == nil {
		o.Executor = runner.ProcessExecutor{}
	}
	if o.Runs <= 0 || o.SamplesPerBlock <= 0 || o.Warmup < 0 || (o.MinTime <= 0 && o.Rounds == 0) {
		return nil, errors.New("ring: runs, samples per block and a sample length (or rounds) must be positive")
	}
	blocks := (o.Runs + o.SamplesPerBlock - 1) / o.SamplesPerBlock
	perf := func(c Cell) bool {
		return o.PerfCheck && c.Bench.ExpectSwitch && c.Tasks <= PerfMaxTasks && o.Env.Perf.Software
	}
	total := len(cells) * blocks
	for _, c := range cells {
		if perf(c) {
			total++
		}
	}
	if o.Progress != nil {
		o.Progress.Begin(total)
		defer o.Progress.End()
	}
	type run struct {
		resps []bench.Response
		perf  *bench.Response
		err   error
	}
	runs := make([]run, len(cells))
	rng := rand.New(rand.NewSource(o.Seed))
	left := o.Runs
	for b := 0; b < blocks; b++ {
		n := min(o.SamplesPerBlock, left)
		left -= n
		for _, i := range rng.Perm(len(cells)) {
			r := &runs[i]
			if r.err != nil {
				continue
			}
			c := cells[i]
			if o.Progress != nil {
				o.Progress.Block(c.display(), "measure")
			}
			resp, err := o.Executor.Block(ctx, c.Cell, o.Request(c, n, o.Warmup, false), o.timeout(c, n))
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err == nil {
				err = checkResponse(resp, c, n)
			}
			if err != nil {
				r.err = err
				continue
			}
			r.resps = append(r.resps, resp)
		}
	}
	for i, c := range cells {
		r := &runs[i]
		if r.err != nil || !perf(c) {
			continue
		}
		if o.Progress != nil {
			o.Progress.Block(c.display(), "verify")
		}
		resp, err := o.Executor.Block(ctx, c.Cell, o.Request(c, 2, 0, true), o.timeout(c, 2))
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if err == nil && checkResponse(resp, c, 2) == nil {
			r.perf = &resp
		}
	}
	out := make([]Outcome, len(cells))
	for i, c := range cells {
		out[i] = Outcome{Cell: c, Err: runs[i].err}
		if runs[i].err == nil {
			rr := Aggregate(c, runs[i].resps, runs[i].perf, o.Env, o.Host)
			out[i].Ring = &rr
		}
	}
	return out, nil
}

// checkResponse rejects a block that does not hold what was asked.
func checkResponse(r bench.Response, c Cell, samples int) error {
	d := r.Ring
	switch {
	case d == nil:
		return errors.New("the worker returned no ring data")
	case len(r.NS) != samples || len(r.TSC) != samples:
		return fmt.Errorf("the worker returned %d samples, asked for %d", len(r.NS), samples)
	case len(d.OverheadNS) != samples || len(d.HotNS) != samples:
		return fmt.Errorf("the worker returned %d overhead samples, asked for %d", len(d.OverheadNS), samples)
	case d.Tasks != c.Tasks || d.RoundsPerSample == 0:
		return fmt.Errorf("the worker ran a ring of %d with %d rounds per sample, asked for %d", d.Tasks, d.RoundsPerSample, c.Tasks)
	}
	for _, v := range r.NS {
		if v == 0 {
			return errors.New("the worker returned a zero-length sample")
		}
	}
	return nil
}
