package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/result"
)

// Options are the sampling choices of a run.
type Options struct {
	Runs            int           // measured samples per cell
	SamplesPerBlock int           // samples per worker
	Warmup          int           // discarded samples at the start of each block
	MinTime         time.Duration // target duration of one sample
	Iterations      uint64        // fixed ops per sample; 0 calibrates
	Seed            int64
	Timeout         time.Duration // per-block watchdog; 0 derives it
	PerfCheck       bool          // run one extra block per cell with perf events
	Host            string        // host description for labels
	Executor        Executor
	Progress        Progress
	DryRun          bool // synthetic figures: no cleanup of real runs' leftovers, no Prepare
}

// Progress receives events between blocks, never inside one.
type Progress interface {
	Begin(totalBlocks int)
	Block(c Cell, phase string)
	End()
}

type noProgress struct{}

func (noProgress) Begin(int)          {}
func (noProgress) Block(Cell, string) {}
func (noProgress) End()               {}

// Outcome is a cell's result, or why it has none.
type Outcome struct {
	Cell   Cell
	Result *result.Result
	Err    error
}

type cellRun struct {
	cell  Cell
	iters uint64
	resps []bench.Response
	perf  *bench.Response
	err   error
}

// Run measures the cells: calibration, then rounds in which every cell runs
// one block in a random order (so a noisy minute spreads over all cells
// instead of ruining one), then an optional perf block per cell. A failing
// cell is reported and the others go on; cancelling ctx stops at once.
func Run(ctx context.Context, cells []Cell, o Options) ([]Outcome, error) {
	if o.Executor == nil {
		o.Executor = ProcessExecutor{}
	}
	if o.Progress == nil {
		o.Progress = noProgress{}
	}
	if o.SamplesPerBlock <= 0 || o.Runs <= 0 || o.MinTime <= 0 {
		return nil, errors.New("runner: runs, samples per block and min time must be positive")
	}
	// A dry run neither cleans up after real runs nor prepares anything
	// (building probes is real work with real failures).
	if !o.DryRun {
		for _, f := range bench.ParentCleanups { // leftovers of earlier killed runs
			f()
		}
	}
	blocks := (o.Runs + o.SamplesPerBlock - 1) / o.SamplesPerBlock
	runs := make([]*cellRun, len(cells))
	var toPrepare []Cell // one cell per benchmark: Prepare is per benchmark, not per placement
	seen := map[string]bool{}
	for _, c := range cells {
		if c.Bench.Prepare != nil && !o.DryRun && !seen[c.Bench.Name] {
			seen[c.Bench.Name] = true
			toPrepare = append(toPrepare, c)
		}
	}
	total := len(toPrepare)
	for _, c := range cells {
		total += cellBlocks(c, blocks)
		if o.Iterations == 0 && !c.Bench.SelfCalibrating {
			total++
		}
		if o.PerfCheck && perfBlock(c) {
			total++
		}
	}
	o.Progress.Begin(total)
	defer o.Progress.End()

	prepared := map[string]error{}
	for _, c := range toPrepare {
		o.Progress.Block(c, "prepare")
		err := c.Bench.Prepare(ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		prepared[c.Bench.Name] = err
	}
	for i, c := range cells {
		runs[i] = &cellRun{cell: c, iters: o.Iterations}
		if err := prepared[c.Bench.Name]; err != nil {
			runs[i].err = fmt.Errorf("prepare: %w", err)
			continue
		}
		if o.Iterations == 0 && !c.Bench.SelfCalibrating {
			o.Progress.Block(c, "calibrate")
			iters, err := calibrate(ctx, c, o)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				runs[i].err = fmt.Errorf("calibration: %w", err)
				continue
			}
			runs[i].iters = iters
		}
	}
	rng := rand.New(rand.NewSource(o.Seed))
	left := make([]int, len(runs))
	for i := range left {
		left[i] = o.Runs
	}
	for b := 0; b < blocks; b++ {
		for _, i := range rng.Perm(len(runs)) {
			r := runs[i]
			nb := cellBlocks(r.cell, blocks)
			if r.err != nil || left[i] == 0 || b >= nb {
				continue
			}
			n := min(left[i], (o.Runs+nb-1)/nb)
			left[i] -= n
			o.Progress.Block(r.cell, "measure")
			req := request(r.cell, r.iters, n, o.Warmup, false)
			if r.cell.Bench.SelfCalibrating {
				req.Params = map[string]int64{"target_ns": o.MinTime.Nanoseconds()}
			}
			resp, err := o.Executor.Block(ctx, r.cell, req, blockTimeout(o, n+o.Warmup, r.cell))
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				r.err = err
				continue
			}
			if err := checkResponse(resp, n); err != nil {
				r.err = err
				continue
			}
			r.resps = append(r.resps, resp)
		}
	}
	if o.PerfCheck {
		for _, r := range runs {
			if r.err != nil || !perfBlock(r.cell) {
				continue
			}
			o.Progress.Block(r.cell, "verify")
			req := request(r.cell, r.iters, 2, 0, true)
			resp, err := o.Executor.Block(ctx, r.cell, req, blockTimeout(o, 2, r.cell))
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err == nil {
				r.perf = &resp
			}
		}
	}
	out := make([]Outcome, len(runs))
	for i, r := range runs {
		out[i] = Outcome{Cell: r.cell, Err: r.err}
		if r.err == nil {
			res := Aggregate(r.cell, r.iters, r.resps, r.perf, o.Host)
			out[i].Result = &res
		}
	}
	return out, nil
}

// perfBlock says whether a cell gets a perf verification block: the C
// kernels open perf events per thread; Go loops and other runtimes' probes
// (self-calibrating) do not.
func perfBlock(c Cell) bool {
	return c.Bench.Rung != bench.Goroutine && !c.Bench.SelfCalibrating
}

func request(c Cell, iters uint64, samples, warmup int, perf bool) bench.Request {
	return bench.Request{Bench: c.Bench.Name, Placement: c.Placement, CPUA: c.CPUA, CPUB: c.CPUB,
		Iters: iters, Samples: samples, Warmup: warmup, Perf: perf, Arg: c.Bench.Arg}
}

func checkResponse(r bench.Response, samples int) error {
	if len(r.NS) != samples || len(r.TSC) != samples {
		return fmt.Errorf("worker returned %d samples, asked for %d", len(r.NS), samples)
	}
	for _, v := range r.NS {
		if v == 0 {
			return errors.New("worker returned a zero-length sample")
		}
	}
	return nil
}

// blockTimeout is the watchdog for a block of n samples: generous, because
// a loaded 2-vCPU guest can stall for a long time, but bounded. Blocks that
// start a runtime (a JVM, a BEAM) get a minute more.
func blockTimeout(o Options, n int, c Cell) time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	t := 20*time.Second + time.Duration(n)*o.MinTime*20
	if c.Bench.SelfCalibrating {
		t += time.Minute
	}
	return t
}

// cellBlocks is how many blocks a cell gets out of the run's blocks.
func cellBlocks(c Cell, blocks int) int {
	if c.Bench.MaxBlocks > 0 && c.Bench.MaxBlocks < blocks {
		return c.Bench.MaxBlocks
	}
	return blocks
}

// calibrate finds the ops per sample that make a sample last about MinTime.
// Each probe is a real block of 3 samples (after 1 warm-up) in a worker; a
// probe whose median sample reaches a quarter of the target is scaled to
// it, a shorter one grows the ops (at most 1000x) and probes again, up to
// six probes.
func calibrate(ctx context.Context, c Cell, o Options) (uint64, error) {
	const probes = 6
	iters := c.Bench.StartIters
	if iters == 0 {
		iters = 64
	}
	target := float64(o.MinTime.Nanoseconds())
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	for attempt := 1; ; attempt++ {
		req := request(c, iters, 3, 1, false)
		resp, err := o.Executor.Block(ctx, c, req, timeout)
		if err != nil {
			return 0, err
		}
		if err := checkResponse(resp, 3); err != nil {
			return 0, err
		}
		ns := make([]float64, len(resp.NS))
		for i, v := range resp.NS {
			ns[i] = float64(v)
		}
		slices.Sort(ns)
		med := ns[1]
		scale := target / med
		if med >= target/4 || attempt == probes {
			return max(1, uint64(math.Ceil(float64(iters)*scale))), nil
		}
		iters = uint64(math.Ceil(float64(iters) * math.Min(scale, 1000)))
	}
}
