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
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/counter"
	"github.com/ctxbench/ctxbench/internal/model"
)

// Runner is how blocks are run, as opposed to how many are taken: the
// session builds it once per run and every experiment passes it through
// unchanged (experiment.Env.Runner), so no experiment merges it into its
// sampling options.
type Runner struct {
	Executor Executor
	Progress Progress // nil: none
	Seed     int64    // of the seeded interleaving
	// DryRun: synthetic figures; nothing is prepared, paced or cleaned up.
	DryRun bool
	// Cleanup removes what earlier killed runs left behind (cgroups of a
	// worker killed by its watchdog), once before each run.
	Cleanup func()
}

// Options are the sampling choices of a run and the experiment's hooks
// into it (how a block is checked, timed out, perf-verified).
type Options struct {
	Runs            int           // measured samples per cell
	SamplesPerBlock int           // samples per worker
	Warmup          int           // discarded samples at the start of each block
	MinTime         time.Duration // target duration of one sample
	Iterations      uint64        // fixed ops per sample; 0 calibrates
	// NoCalibration sends Iterations as given (0 included): for blocks
	// that size themselves (creation, memory).
	NoCalibration bool
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
	Check func(c Cell, resp model.Response, samples int) error
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
	// Before, when set, runs before every measured block of a cell (an
	// interleaved A/B's set-up of the cell's side), outside the block and
	// its watchdog; an error stops the whole run (it is returned as fatal).
	Before func(ctx context.Context, c Cell) error
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
// at most. Before each re-run the scheduler waits, up to QuietWait, for a
// stretch of QuietWindow in which other work leaves the block's CPUs under
// the limit (keeping them busy meanwhile, host.WaitQuiet): other work comes
// in bursts (a compile's jobs, another benchmark's blocks), and a block run
// again at once lands in the same burst.
const (
	DefaultContention = 0.10
	DefaultReruns     = 2
	QuietWindow       = 200 * time.Millisecond
	QuietWait         = 2 * time.Second
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
func Run(ctx context.Context, rn Runner, cells []Cell, o Options) ([]CellRun, error) {
	if rn.Executor == nil {
		return nil, errors.New("schedule: no executor")
	}
	if rn.Progress == nil {
		rn.Progress = NoProgress{}
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
	// A coarse counter (arm64's CNTVCT_EL0, 40 ns a tick at 25 MHz, which
	// CLOCK_MONOTONIC_RAW reads there too) times a sample within a tick:
	// every calibrated sample spans at least counter.MinSampleTicks of it.
	// Zero where the counter's rate is not stated (the TSC, at GHz).
	if ms := counter.MinSample(); o.MinTime > 0 && o.MinTime < ms {
		o.MinTime = ms
	}
	if !rn.DryRun && rn.Cleanup != nil {
		rn.Cleanup()
	}
	r := &run{rn: rn, o: o, blocks: (o.Runs + o.SamplesPerBlock - 1) / o.SamplesPerBlock}
	rn.Progress.Begin(r.total(cells))
	defer rn.Progress.End()
	runs, err := r.prepare(ctx, cells)
	if err != nil {
		return nil, err
	}
	r.runs = runs
	if err := r.rounds(ctx); err != nil {
		return nil, err
	}
	if o.Precision != nil && !rn.DryRun {
		if err := refine(ctx, runs, r.blocks, *o.Precision, rn.Seed, r.block, rn.Progress); err != nil {
			return nil, err
		}
	}
	if o.PerfCheck {
		if err := r.verifyPerf(ctx); err != nil {
			return nil, err
		}
	}
	out := make([]CellRun, len(runs))
	for i, c := range runs {
		out[i] = *c
	}
	return out, nil
}

// run is one Run's state: the runner, the options with their defaults,
// the planned blocks per cell and the cells' runs so far.
type run struct {
	rn     Runner
	o      Options
	blocks int
	runs   []*CellRun
}

func (r *run) calibrates(c Cell) bool {
	return r.o.Iterations == 0 && !r.o.NoCalibration && !c.Bench.SelfCalibrating
}

// toPrepare is one cell per benchmark that has a Prepare: it is per
// benchmark, not per placement; a dry run prepares nothing.
func (r *run) toPrepare(cells []Cell) []Cell {
	var out []Cell
	seen := map[string]bool{}
	for _, c := range cells {
		if c.Bench.Prepare != nil && !r.rn.DryRun && !seen[c.Bench.Name] {
			seen[c.Bench.Name] = true
			out = append(out, c)
		}
	}
	return out
}

// total is the blocks the progress counts: preparations, calibrations,
// planned blocks and perf blocks.
func (r *run) total(cells []Cell) int {
	total := len(r.toPrepare(cells))
	sides := map[string]bool{}
	for _, c := range cells {
		total += cellBlocks(c, r.blocks)
		if r.calibrates(c) && (c.Variant == "" || !sides[abSides(c)]) {
			total++
		}
		sides[abSides(c)] = true
		if r.o.PerfCheck && r.o.Perf(c) {
			total++
		}
	}
	return total
}

// prepare runs each benchmark's Prepare once and calibrates every cell
// that needs it; a cell whose preparation or calibration failed keeps the
// error and runs no block.
func (r *run) prepare(ctx context.Context, cells []Cell) ([]*CellRun, error) {
	prepared := map[string]error{}
	for _, c := range r.toPrepare(cells) {
		r.rn.Progress.Block(c.Key(), "prepare")
		err := c.Bench.Prepare(ctx)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		prepared[c.Bench.Name] = err
	}
	runs := make([]*CellRun, len(cells))
	calibrated := map[string]uint64{} // an A/B's sides: by benchmark and placement
	for i, c := range cells {
		runs[i] = &CellRun{Cell: c, Iters: r.o.Iterations}
		if err := prepared[c.Bench.Name]; err != nil {
			runs[i].Err = fmt.Errorf("prepare: %w", err)
			continue
		}
		side := abSides(c)
		if n, ok := calibrated[side]; ok && c.Variant != "" {
			// The other side of an interleaved A/B takes the same ops per
			// sample: a change between the sides is then the set-up's alone.
			runs[i].Iters = n
			continue
		}
		if r.calibrates(c) && r.o.Before != nil && !r.rn.DryRun {
			if err := r.o.Before(ctx, c); err != nil {
				return nil, Fatal(err)
			}
		}
		if r.calibrates(c) {
			r.rn.Progress.Block(c.Key(), "calibrate")
			iters, err := calibrate(ctx, r.rn.Executor, c, r.o)
			if err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				runs[i].Err = fmt.Errorf("calibration: %w", err)
				continue
			}
			runs[i].Iters = iters
			if c.Variant != "" {
				calibrated[side] = iters
			}
		}
	}
	return runs, nil
}

// units is how many planned blocks cell i runs (none once it failed).
func (r *run) units(i int) int {
	if r.runs[i].Err != nil {
		return 0
	}
	return cellBlocks(r.runs[i].Cell, r.blocks)
}

// samples is how many samples block round of cell i asks for.
func (r *run) samples(i, round int) int {
	if r.o.Samples != nil {
		return r.o.Samples(r.runs[i].Cell)
	}
	nb := cellBlocks(r.runs[i].Cell, r.blocks)
	per := (r.o.Runs + nb - 1) / nb
	if round >= nb {
		return per // a block Precision added is a full one
	}
	return min(per, r.o.Runs-round*per)
}

// block runs one block of cell i, again (up to Reruns times) while other
// work took more than ContentionLimit of its CPUs, and keeps the least
// contended attempt.
func (r *run) block(ctx context.Context, i, round int) (Block, error) {
	limit, reruns := r.o.ContentionLimit, r.o.Reruns
	if limit == 0 {
		limit = DefaultContention
	}
	if reruns == 0 {
		reruns = DefaultReruns
	}
	c := r.runs[i]
	n := r.samples(i, round)
	req := c.Cell.Request(c.Iters, n, r.o.Warmup, false)
	req.Round = round
	if c.Cell.Bench.SelfCalibrating {
		req.TargetNS = r.o.MinTime.Nanoseconds()
	}
	var best Block
	for attempt := 0; ; attempt++ {
		if r.o.Before != nil && !r.rn.DryRun {
			if err := r.o.Before(ctx, c.Cell); err != nil {
				return Block{}, Fatal(err)
			}
		}
		resp, err := RunBlock(ctx, r.rn, c.Cell, req, r.o.Timeout(c.Cell, n+r.o.Warmup))
		if err == nil {
			err = r.o.Check(c.Cell, resp, n)
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
		r.rn.Progress.Block(c.Cell.Key(), "re-run (contended)")
		if !r.rn.DryRun {
			host.WaitQuiet(ctx, c.Cell.Affinity, limit, QuietWindow, QuietWait)
		}
	}
}

// rounds runs the planned blocks: every round, every cell one block, in
// the runner's seeded order, paced over Span.
func (r *run) rounds(ctx context.Context) error {
	rounds := 0
	for i := range r.runs {
		rounds = max(rounds, r.units(i))
	}
	started, paced := time.Now(), 0
	done, errs, err := Rounds(ctx, len(r.runs), r.units, r.block,
		RoundOptions{Seed: r.rn.Seed, Step: func(i, round int) {
			if round > paced && !r.rn.DryRun && r.o.Span > 0 && rounds > 0 {
				paced = round
				host.BusyUntil(ctx, r.cpus(), started.Add(r.o.Span*time.Duration(round)/time.Duration(rounds)))
			}
			r.rn.Progress.Block(r.runs[i].Cell.Key(), "measure")
		}})
	if err != nil {
		return err
	}
	for i, c := range r.runs {
		if c.Err == nil {
			c.Err = errs[i]
		}
		for _, d := range done[i] {
			c.Blocks = append(c.Blocks, d.Value)
		}
	}
	return nil
}

// verifyPerf runs the perf verification block of every cell that gets
// one; its samples are not part of the figure.
func (r *run) verifyPerf(ctx context.Context) error {
	for _, c := range r.runs {
		if c.Err != nil || !r.o.Perf(c.Cell) {
			continue
		}
		r.rn.Progress.Block(c.Cell.Key(), "verify")
		req := c.Cell.Request(c.Iters, 2, 0, true)
		if c.Cell.Bench.SelfCalibrating {
			req.TargetNS = r.o.MinTime.Nanoseconds()
		}
		resp, err := r.rn.Executor.Block(ctx, c.Cell, req, r.o.Timeout(c.Cell, 2))
		host.NotePerfClosed()
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil && r.o.Check(c.Cell, resp, 2) == nil {
			c.Perf = &resp
		}
	}
	return nil
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

// abSides names the cell an interleaved A/B's two sides share: its
// benchmark and placement (calibrated once, under side A).
func abSides(c Cell) string { return c.Bench.Name + "\x00" + string(c.Placement) }

// cpus is every CPU a cell of the run measures on: what the pacing keeps
// busy while it waits (host.BusyUntil).
func (r *run) cpus() []int {
	var out []int
	for _, c := range r.runs {
		for _, cpu := range c.Cell.Affinity {
			if !slices.Contains(out, cpu) {
				out = append(out, cpu)
			}
		}
	}
	slices.Sort(out)
	return out
}
