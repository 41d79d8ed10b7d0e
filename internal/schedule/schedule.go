// Package schedule is ctxbench's one scheduler. It runs a plan of cells
// (benchmark × placement, with an experiment's payload) as blocks in worker
// processes: it prepares each benchmark once, calibrates how many ops make a
// sample, interleaves the cells block by block in a seeded random order
// (Rounds, the loop every experiment uses, the connection pool's windows
// included), enforces a watchdog per block, and runs a separate perf
// verification block per cell. It returns the blocks; turning them into
// figures is the experiment's aggregation.
//
// It knows no mechanism: it imports only the vocabulary (internal/model)
// and the machine's affinity. Which benchmark a worker runs, and how to
// clean up after a killed one, is given to it.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
)

// Options are the sampling choices of a run.
type Options struct {
	Runs            int           // measured samples per cell
	SamplesPerBlock int           // samples per worker
	Warmup          int           // discarded samples at the start of each block
	MinTime         time.Duration // target duration of one sample
	Iterations      uint64        // fixed ops per sample; 0 calibrates
	// NoCalibration sends Iterations as given (0 included): for blocks
	// that size themselves (creation, memory).
	NoCalibration bool
	Seed          int64
	// Timeout is the watchdog of one block of n samples; nil derives one
	// from MinTime (see BlockTimeout).
	Timeout func(c Cell, samples int) time.Duration
	// CalibrationTimeout is the watchdog of a calibration probe (0: 30 s).
	CalibrationTimeout time.Duration
	// PerfCheck runs one extra block per eligible cell with perf events
	// open (Perf says which; nil: the C kernels' cells).
	PerfCheck bool
	Perf      func(c Cell) bool
	// Samples, when set, is the number of samples a block of c asks for
	// whatever Runs says (0: the benchmark's own default).
	Samples func(c Cell) int
	// Check validates a block's response (nil: CheckSamples).
	Check    func(c Cell, resp model.Response, samples int) error
	Executor Executor
	Progress Progress
	// Cleanup removes what earlier killed runs left behind (cgroups of a
	// worker killed by its watchdog), once before the run.
	Cleanup func()
	// DryRun: synthetic figures; nothing is prepared or cleaned up.
	DryRun bool
	// ContentionLimit is the share of a block's CPU time other work may
	// take before the block is discarded and run again (0: DefaultContention;
	// negative: never); Reruns bounds how often (0: DefaultReruns). A block
	// still contended after them is kept, marked, and its cell flagged by
	// the aggregation.
	ContentionLimit float64
	Reruns          int
	// Precision, when set, adds blocks after the planned rounds to the
	// cells whose interval is still wider than its target.
	Precision *Precision
	// Span spreads the planned rounds over at least this long: a round
	// that would start early waits for its share of the span. The host's
	// noise comes in phases of seconds; blocks taken within one phase
	// agree with each other and not with the next run, so a short run's
	// interval would promise more than it keeps (docs/methodology.md).
	Span time.Duration
}

// Precision asks for blocks to be added until each cell's interval is as
// narrow as Target: after the planned rounds, every extra round runs one
// more block of each cell still wider, in a seeded random order (so the
// added blocks are interleaved too), until all are within it, a cell has
// MaxBlocks, or the extra rounds have taken Budget.
type Precision struct {
	Target float64                 // relative half-width, e.g. 0.03
	Width  func(r CellRun) float64 // the experiment's: the cell's relative half-width so far
	// Floor, when set, is the narrowest the cell's interval can get
	// however many blocks are added (a reproducibility interval cannot be
	// narrower than the machine's between-sitting spread): a cell whose
	// floor is above Target gets no extra blocks, and says why.
	Floor     func(r CellRun) float64
	Budget    time.Duration    // wall time the extra rounds may take
	MaxBlocks int              // per cell (0: 10 × the planned blocks)
	Clock     func() time.Time // nil: time.Now (tests stand in their own)
}

// Defaults of the contention policy: a block in which other work took more
// than a tenth of the measured CPUs' time (a competing measurement takes
// about half; a quiet guest's own housekeeping about 1%) runs again, twice
// at most.
const (
	DefaultContention = 0.10
	DefaultReruns     = 2
)

// Progress receives events between blocks, never inside one.
type Progress interface {
	Begin(totalBlocks int)
	Block(name, phase string)
	End()
}

// NoProgress discards progress events.
type NoProgress struct{}

func (NoProgress) Begin(int)            {}
func (NoProgress) Block(string, string) {}
func (NoProgress) End()                 {}

// Block is one measured block of a cell.
type Block struct {
	Round int
	Resp  model.Response
	// Reruns is how many earlier attempts of this block were discarded
	// because other work took the CPUs; Contended says the kept one was
	// too (the least contended attempt is kept).
	Reruns    int
	Contended bool
}

// CellRun is what a cell's blocks returned, or why it has none.
type CellRun struct {
	Cell   Cell
	Iters  uint64 // ops per sample the cell was calibrated to (0: self-sized)
	Blocks []Block
	Perf   *model.Response // the perf verification block, when one ran
	Err    error
	// Added is how many blocks Precision added; Missed says why the cell
	// did not reach its target ("" when it did, or none was set).
	Added  int
	Missed string
}

// Run measures the cells: prepare, calibrate, then rounds in which every
// cell runs one block in a random order, then an optional perf block per
// cell. A failing cell is reported and the others go on; cancelling ctx
// stops at once.
func Run(ctx context.Context, cells []Cell, o Options) ([]CellRun, error) {
	if o.Executor == nil {
		return nil, errors.New("schedule: no executor")
	}
	if o.Progress == nil {
		o.Progress = NoProgress{}
	}
	if o.Check == nil {
		o.Check = func(_ Cell, r model.Response, n int) error { return CheckSamples(r, n) }
	}
	if o.Perf == nil {
		o.Perf = KernelPerf
	}
	if o.Timeout == nil {
		o.Timeout = func(c Cell, n int) time.Duration { return BlockTimeout(o.MinTime, c, n) }
	}
	if o.SamplesPerBlock <= 0 || o.Runs <= 0 || (o.MinTime <= 0 && !o.NoCalibration && o.Iterations == 0) {
		return nil, errors.New("schedule: runs, samples per block and min time must be positive")
	}
	if !o.DryRun && o.Cleanup != nil {
		o.Cleanup()
	}
	blocks := (o.Runs + o.SamplesPerBlock - 1) / o.SamplesPerBlock
	calibrates := func(c Cell) bool { return o.Iterations == 0 && !o.NoCalibration && !c.Bench.SelfCalibrating }
	runs := make([]*CellRun, len(cells))
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
		if calibrates(c) {
			total++
		}
		if o.PerfCheck && o.Perf(c) {
			total++
		}
	}
	o.Progress.Begin(total)
	defer o.Progress.End()

	prepared := map[string]error{}
	for _, c := range toPrepare {
		o.Progress.Block(c.Key(), "prepare")
		err := c.Bench.Prepare(ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		prepared[c.Bench.Name] = err
	}
	for i, c := range cells {
		runs[i] = &CellRun{Cell: c, Iters: o.Iterations}
		if err := prepared[c.Bench.Name]; err != nil {
			runs[i].Err = fmt.Errorf("prepare: %w", err)
			continue
		}
		if calibrates(c) {
			o.Progress.Block(c.Key(), "calibrate")
			iters, err := calibrate(ctx, c, o)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				runs[i].Err = fmt.Errorf("calibration: %w", err)
				continue
			}
			runs[i].Iters = iters
		}
	}
	units := func(i int) int {
		if runs[i].Err != nil {
			return 0
		}
		return cellBlocks(runs[i].Cell, blocks)
	}
	samples := func(i, round int) int {
		if o.Samples != nil {
			return o.Samples(runs[i].Cell)
		}
		nb := cellBlocks(runs[i].Cell, blocks)
		per := (o.Runs + nb - 1) / nb
		if round >= nb {
			return per // a block Precision added is a full one
		}
		return min(per, o.Runs-round*per)
	}
	limit, reruns := o.ContentionLimit, o.Reruns
	if limit == 0 {
		limit = DefaultContention
	}
	if reruns == 0 {
		reruns = DefaultReruns
	}
	block := func(ctx context.Context, i, round int) (Block, error) {
		r := runs[i]
		n := samples(i, round)
		req := r.Cell.Request(r.Iters, n, o.Warmup, false)
		req.Round = round
		if r.Cell.Bench.SelfCalibrating {
			req.TargetNS = o.MinTime.Nanoseconds()
		}
		var best Block
		for attempt := 0; ; attempt++ {
			resp, err := RunBlock(ctx, o.Executor, r.Cell, req, o.Timeout(r.Cell, n+o.Warmup), o.DryRun)
			if err == nil {
				err = o.Check(r.Cell, resp, n)
			}
			if err != nil {
				return Block{}, err
			}
			b := Block{Round: round, Resp: resp, Reruns: attempt, Contended: limit > 0 && resp.Contention.OtherShare() > limit}
			if attempt == 0 || resp.Contention.OtherShare() < best.Resp.Contention.OtherShare() {
				best = b
			}
			best.Reruns = attempt
			if !b.Contended || attempt == reruns {
				return best, nil
			}
			o.Progress.Block(r.Cell.Key(), "re-run (contended)")
		}
	}
	rounds := 0
	for i := range runs {
		rounds = max(rounds, units(i))
	}
	started, paced := time.Now(), 0
	done, errs, err := Rounds(ctx, len(runs), units, block,
		RoundOptions{Seed: o.Seed, Step: func(i, r int) {
			if r > paced && !o.DryRun && o.Span > 0 && rounds > 0 {
				paced = r
				pace(ctx, started.Add(o.Span*time.Duration(r)/time.Duration(rounds)))
			}
			o.Progress.Block(runs[i].Cell.Key(), "measure")
		}})
	if err != nil {
		return nil, err
	}
	for i, r := range runs {
		if r.Err == nil {
			r.Err = errs[i]
		}
		for _, d := range done[i] {
			r.Blocks = append(r.Blocks, d.Value)
		}
	}
	if o.Precision != nil && !o.DryRun {
		if err := refine(ctx, runs, blocks, *o.Precision, o.Seed, block, o.Progress); err != nil {
			return nil, err
		}
	}
	if o.PerfCheck {
		for _, r := range runs {
			if r.Err != nil || !o.Perf(r.Cell) {
				continue
			}
			o.Progress.Block(r.Cell.Key(), "verify")
			req := r.Cell.Request(r.Iters, 2, 0, true)
			if r.Cell.Bench.SelfCalibrating {
				req.TargetNS = o.MinTime.Nanoseconds()
			}
			resp, err := o.Executor.Block(ctx, r.Cell, req, o.Timeout(r.Cell, 2))
			host.NotePerfClosed()
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if err == nil && o.Check(r.Cell, resp, 2) == nil {
				r.Perf = &resp
			}
		}
	}
	out := make([]CellRun, len(runs))
	for i, r := range runs {
		out[i] = *r
	}
	return out, nil
}

// KernelPerf says whether a cell gets a perf verification block by
// default: the C kernels open perf events per thread; Go loops and other
// runtimes' probes (self-calibrating) do not.
func KernelPerf(c Cell) bool {
	return c.Bench.Rung != model.Goroutine && !c.Bench.SelfCalibrating
}

// CheckSamples rejects a block that does not hold the samples asked for
// (any number when none was asked) or holds an empty one.
func CheckSamples(r model.Response, samples int) error {
	if samples > 0 && (len(r.NS) != samples || len(r.TSC) != samples) {
		return fmt.Errorf("worker returned %d samples, asked for %d", len(r.NS), samples)
	}
	for _, v := range r.NS {
		if v == 0 {
			return errors.New("worker returned a zero-length sample")
		}
	}
	return nil
}

// BlockTimeout is the default watchdog for a block of n samples: generous,
// because a loaded 2-vCPU guest can stall for a long time, but bounded.
// Blocks that start a runtime (a JVM, a BEAM) get a minute more.
func BlockTimeout(minTime time.Duration, c Cell, n int) time.Duration {
	t := 20*time.Second + time.Duration(n)*minTime*20
	if c.Bench.SelfCalibrating {
		t += time.Minute
	}
	return t
}

// FixedTimeout is a watchdog that ignores the block's size.
func FixedTimeout(d time.Duration) func(Cell, int) time.Duration {
	return func(Cell, int) time.Duration { return d }
}

// cellBlocks is how many blocks a cell gets out of the run's blocks.
func cellBlocks(c Cell, blocks int) int {
	if c.Bench.MaxBlocks > 0 && c.Bench.MaxBlocks < blocks {
		return c.Bench.MaxBlocks
	}
	return blocks
}

// refine runs Precision's extra rounds (see Precision).
func refine(ctx context.Context, runs []*CellRun, planned int, p Precision, seed int64,
	block func(ctx context.Context, i, round int) (Block, error), progress Progress) error {
	clock := p.Clock
	if clock == nil {
		clock = time.Now
	}
	limit := func(r *CellRun) int {
		if r.Cell.Bench.MaxBlocks > 0 {
			return r.Cell.Bench.MaxBlocks
		}
		if p.MaxBlocks > 0 {
			return p.MaxBlocks
		}
		return 10 * planned
	}
	start := clock()
	rng := rand.New(rand.NewSource(seed ^ 0x5eed))
	for round := planned; ; round++ {
		var wide []int
		for i, r := range runs {
			if r.Err != nil || r.Missed != "" || len(r.Blocks) == 0 {
				continue
			}
			w := p.Width(*r)
			switch {
			case w <= p.Target:
				continue
			case p.Floor != nil && p.Floor(*r) > p.Target:
				r.Missed = fmt.Sprintf("±%.1f%%: even a perfectly precise sitting would give ±%.1f%% from the sittings this machine's history holds, which more blocks cannot narrow", 100*w, 100*p.Floor(*r))
				continue
			case len(r.Blocks) >= limit(r):
				r.Missed = fmt.Sprintf("±%.1f%% after %d blocks, the most this cell may take", 100*w, len(r.Blocks))
				continue
			}
			wide = append(wide, i)
		}
		if len(wide) == 0 {
			return nil
		}
		if clock().Sub(start) >= p.Budget {
			for _, i := range wide {
				runs[i].Missed = fmt.Sprintf("±%.1f%% after %d blocks when the time budget of %v ran out", 100*p.Width(*runs[i]), len(runs[i].Blocks), p.Budget)
			}
			return nil
		}
		rng.Shuffle(len(wide), func(a, b int) { wide[a], wide[b] = wide[b], wide[a] })
		for _, i := range wide {
			progress.Block(runs[i].Cell.Key(), "measure (narrowing the interval)")
			b, err := block(ctx, i, round)
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				// The planned blocks stand; the cell stops growing.
				runs[i].Missed = "an added block failed: " + err.Error()
				continue
			}
			runs[i].Blocks = append(runs[i].Blocks, b)
			runs[i].Added++
		}
	}
}

// pace waits until t (or ctx is done).
func pace(ctx context.Context, t time.Time) {
	d := time.Until(t)
	if d <= 0 {
		return
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-ctx.Done():
	case <-timer.C:
	}
}
