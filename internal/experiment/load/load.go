// Package load is the load experiment (ctxbench load): contexts of one kind
// woken by an open-loop generator at a stated rate or utilisation, each
// request a fixed amount of work (internal/kernels/load.c). It plans one
// cell per kind, placement and load level, finds the rate that gives each
// utilisation asked for (calibration blocks), runs the levels' blocks
// through the scheduler (interleaved rounds, contention per block), and
// aggregates each level into a result.LoadLevel: achieved rate and
// utilisation, drops and the generator's lag, and wake-up and request
// latency (corrected and uncorrected) as percentiles with intervals,
// blocks as the unit; then each series' knee, where the tail departs.
package load

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Kind is the kind of woken context.
type Kind string

// The kinds.
const (
	Thread  Kind = "thread"
	Process Kind = "process"
)

// Kinds lists the kinds.
var Kinds = []Kind{Thread, Process}

// ParseKind accepts a kind name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("unknown kind %q (want thread or process; goroutines and containers are not offered: see docs/load.md)", s)
}

func (k Kind) bench() (*model.Benchmark, error) {
	name := map[Kind]string{Thread: catalog.LoadThread, Process: catalog.LoadProcess}[k]
	b := catalog.Lookup(name)
	if b == nil {
		return nil, fmt.Errorf("kind %s: no benchmark", k)
	}
	if ok, why := b.Available(); !ok {
		return nil, fmt.Errorf("kind %s: %s", k, why)
	}
	return b, nil
}

// Options are a sweep's choices.
type Options struct {
	Kinds      []Kind
	Placements []model.Placement // default same-cpu
	// Utilizations (fractions of the contexts' CPUs) or Rates (requests
	// per second): exactly one is set.
	Utilizations []float64
	Rates        []float64
	Contexts     int
	Work         time.Duration // per request
	Poisson      bool
	KeepBusy     bool          // a SCHED_IDLE spinner keeps the contexts' CPU from idling
	Block        time.Duration // each block's schedule, warm-up included
	Warmup       time.Duration
	Blocks       int           // per level
	Probe        time.Duration // a calibration block's schedule
	Span         time.Duration // spread the rounds over at least this long
	Timeout      time.Duration // per block; 0 derives one
	Topology     schedule.Topology
	// Capture, when set, adds two cells per level at its rate, interleaved
	// with its own: traced, and traced with the slow-hop capture past this
	// threshold (the capture's cost is the second against the first).
	Capture *model.Threshold
}

// Validate says what is wrong with o, as a one-line error.
func (o Options) Validate() error {
	switch {
	case len(o.Kinds) == 0:
		return errors.New("no kind of context")
	case (len(o.Utilizations) == 0) == (len(o.Rates) == 0):
		return errors.New("give load levels as utilisations or as rates, not both or neither")
	case o.Contexts < 1 || o.Contexts > 1024:
		return fmt.Errorf("contexts must be 1 to 1024, got %d", o.Contexts)
	case o.Work < 0 || o.Work > time.Second:
		return fmt.Errorf("work must be 0 to 1s, got %v", o.Work)
	case o.Block < 50*time.Millisecond || o.Block > time.Hour:
		return fmt.Errorf("block must be 50ms to 1h, got %v", o.Block)
	case o.Warmup < 0 || o.Warmup >= o.Block:
		return fmt.Errorf("warm-up must be at least 0 and shorter than a block (%v), got %v", o.Block, o.Warmup)
	case o.Blocks < 1 || o.Blocks > 1000:
		return fmt.Errorf("blocks must be 1 to 1000, got %d", o.Blocks)
	}
	for _, u := range o.Utilizations {
		if !(u > 0) || u > 1 {
			return fmt.Errorf("utilisation %g%% is outside (0, 100]", 100*u)
		}
	}
	for _, r := range o.Rates {
		if !(r > 0) || r > 5e6 {
			return fmt.Errorf("rate %g/s is outside (0, 5,000,000]", r)
		}
		if n := r * o.Block.Seconds(); n > 20e6 {
			return fmt.Errorf("rate %g/s for %v is %.0f requests a block, more than a schedule holds (20 million)", r, o.Block, n)
		}
	}
	return nil
}

// Cell is one load level of one kind at one placement.
type Cell struct {
	schedule.Cell
	Kind        Kind
	Utilization *float64 // the target, or nil for a rate
	Rate        float64  // the target rate (calibrated for a utilisation)
	Probes      []result.LoadProbe
	series      int // which series (kind × placement) it belongs to
}

// Plan resolves the options into cells; a placement a machine cannot give
// is skipped with the reason.
func Plan(o Options, cpus []int) ([]Cell, []result.Failure, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	placements := o.Placements
	if len(placements) == 0 {
		placements = []model.Placement{model.SameCPU}
	}
	var cells []Cell
	var skipped []result.Failure
	series := 0
	for _, k := range o.Kinds {
		b, err := k.bench()
		if err != nil {
			return nil, nil, err
		}
		for _, p := range placements {
			if !b.Supports(p) || p.IsLevel() {
				skipped = append(skipped, result.Failure{Name: b.Name, Placement: string(p), Error: fmt.Sprintf("%s is not offered: the generator and the contexts run on one CPU (same-cpu), on two (cross-cpu) or wherever the scheduler puts them (unpinned)", p)})
				continue
			}
			sc, err := o.Topology.Place(b, p, cpus)
			if err != nil {
				skipped = append(skipped, result.Failure{Name: b.Name, Placement: string(p), Error: err.Error()})
				continue
			}
			levels := len(o.Rates)
			if len(o.Utilizations) > 0 {
				levels = len(o.Utilizations)
			}
			for i := range levels {
				c := Cell{Cell: sc, Kind: k, series: series}
				if len(o.Utilizations) > 0 {
					u := o.Utilizations[i]
					c.Utilization = &u
				} else {
					c.Rate = o.Rates[i]
				}
				cells = append(cells, c)
			}
			series++
		}
	}
	return cells, skipped, nil
}

// loadCPUs is how many CPUs the contexts of c may run on.
func loadCPUs(c schedule.Cell) int {
	if c.CPUB >= 0 {
		return 1
	}
	return max(1, len(c.Affinity))
}

// levelName names a cell's level.
func (c Cell) levelName() string {
	if c.Utilization != nil {
		return fmt.Sprintf("%g%%", math.Round(1000**c.Utilization)/10)
	}
	return fmt.Sprintf("%g/s", c.Rate)
}

// params are the load parameters of a block of c at rate for d.
func (o Options) params(c Cell, rate float64, d, warmup time.Duration, iters uint64, seed int64, round int) *model.LoadParams {
	return &model.LoadParams{Contexts: o.Contexts, Rate: rate, Poisson: o.Poisson,
		Seed:       uint64(seed)*2654435761 + uint64(round)*40503 + uint64(c.series)*977 + 1,
		DurationNS: d.Nanoseconds(), WarmupNS: warmup.Nanoseconds(), WorkIters: iters,
		DrainNS: max(200*time.Millisecond, d/2).Nanoseconds(), KeepBusy: o.KeepBusy}
}

// timeout is the watchdog of one block of a schedule of d.
func (o Options) timeout(d time.Duration) time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return 30*time.Second + 3*d + time.Duration(o.Contexts)*50*time.Millisecond
}

// Run calibrates the work and each utilisation's rate, measures the levels
// in interleaved rounds, and aggregates every series.
func Run(ctx context.Context, env experiment.Env, cells []Cell, o Options) (experiment.Part, error) {
	var part experiment.Part
	if len(cells) == 0 {
		return part, errors.New("load: nothing to run")
	}
	if env.Runner.Progress == nil {
		env.Runner.Progress = schedule.NoProgress{}
	}
	nsPerIter, iters, err := calibrateWork(ctx, env, cells, o)
	if err != nil {
		return part, err
	}
	failed, err := calibrateRates(ctx, env, cells, o, iters, &part)
	if err != nil {
		return part, err
	}
	run, sc := measuredCells(cells, failed, o, iters, env.Runner.Seed)
	so := schedule.Options{
		Runs: o.Blocks, SamplesPerBlock: 1, NoCalibration: true, Span: o.Span,
		Timeout: schedule.FixedTimeout(o.timeout(o.Block)),
		Check:   func(c schedule.Cell, r model.Response, _ int) error { return check(r) },
		Perf:    func(schedule.Cell) bool { return false },
	}
	runs, err := schedule.Run(ctx, env.Runner, sc, so)
	if err != nil {
		return part, err
	}
	bySeries := aggregateLevels(&part, run, runs, o)
	for s := 0; ; s++ {
		var first *Cell
		for i := range run {
			if run[i].series == s {
				first = &run[i]
				break
			}
		}
		if first == nil {
			break
		}
		part.Loads = append(part.Loads, series(*first, bySeries[s], o, nsPerIter[s], iters[s], env))
	}
	return part, nil
}

// calibrateWork measures the work per request on each series' contexts'
// CPU: ns per iteration of the work loop, and the iterations a request's
// work takes, by series.
func calibrateWork(ctx context.Context, env experiment.Env, cells []Cell, o Options) (map[int]float64, map[int]uint64, error) {
	nsPerIter := map[int]float64{}
	iters := map[int]uint64{}
	for i := range cells {
		c := &cells[i]
		if _, ok := nsPerIter[c.series]; ok {
			continue
		}
		env.Runner.Progress.Block(c.Bench.Name+" ("+string(c.Placement)+")", "calibrate the work")
		ns, err := workNS(ctx, env, c.Cell)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, fmt.Errorf("load: measuring the work loop: %w", err)
		}
		nsPerIter[c.series] = ns
		iters[c.series] = uint64(math.Round(float64(o.Work.Nanoseconds()) / ns))
	}
	return nsPerIter, iters, nil
}

// calibrateRates finds the rate of each utilisation's cell; a cell whose
// calibration failed is a failure in part, and its index is returned.
func calibrateRates(ctx context.Context, env experiment.Env, cells []Cell, o Options, iters map[int]uint64, part *experiment.Part) ([]int, error) {
	var failed []int
	for i := range cells {
		c := &cells[i]
		if c.Utilization == nil {
			continue
		}
		env.Runner.Progress.Block(c.Bench.Name+" "+c.levelName(), "calibrate the rate")
		if err := calibrate(ctx, env, c, o, iters[c.series]); err != nil {
			if ctx.Err() != nil {
				return failed, ctx.Err()
			}
			part.Failures = append(part.Failures, result.Failure{Name: c.Bench.Name + " " + c.levelName(), Placement: string(c.Placement), Error: "calibrating the rate: " + err.Error()})
			failed = append(failed, i)
		}
	}
	return failed, nil
}

// measuredCells names the cells that calibrated and gives each its
// schedule's parameters; the scheduler's cells are those levels, then,
// with a capture, each level's traced and captured cells.
func measuredCells(cells []Cell, failed []int, o Options, iters map[int]uint64, seed int64) ([]Cell, []schedule.Cell) {
	var run []Cell
	for i, c := range cells {
		if slices.Contains(failed, i) {
			continue
		}
		c.Name = c.Bench.Name + " " + c.levelName()
		c.Load = o.params(c, c.Rate, o.Block, o.Warmup, iters[c.series], seed, 0)
		run = append(run, c)
	}
	sc := make([]schedule.Cell, len(run))
	for i, c := range run {
		sc[i] = c.Cell
	}
	// The capture's cells, after the levels' own: traced, and captured.
	if o.Capture != nil {
		for _, c := range run {
			t := c.Cell
			t.Trace, t.Name = true, c.Name+" traced"
			k := t
			k.Capture, k.Name = experiment.CaptureRequest(*o.Capture), c.Name+" captured"
			sc = append(sc, t, k)
		}
	}
	return run, sc
}

// aggregateLevels aggregates each level that ran (with its capture,
// where its traced and captured cells ran too), by series; a cell that
// failed is a failure in part.
func aggregateLevels(part *experiment.Part, run []Cell, runs []schedule.CellRun, o Options) map[int][]level {
	bySeries := map[int][]level{}
	for i, r := range runs[:len(run)] {
		c := run[i]
		if r.Err != nil {
			part.Failures = append(part.Failures, result.Failure{Name: c.Name, Placement: string(c.Placement), Error: r.Err.Error()})
			continue
		}
		lv := aggregate(c, r)
		if o.Capture != nil {
			t, k := runs[len(run)+2*i], runs[len(run)+2*i+1]
			switch {
			case t.Err != nil:
				part.Failures = append(part.Failures, result.Failure{Name: t.Cell.Name, Placement: string(c.Placement), Error: t.Err.Error()})
			case k.Err != nil:
				part.Failures = append(part.Failures, result.Failure{Name: k.Cell.Name, Placement: string(c.Placement), Error: k.Err.Error()})
			default:
				lv.out.Capture = captured(*o.Capture, t, k)
			}
		}
		bySeries[c.series] = append(bySeries[c.series], lv)
	}
	return bySeries
}

// workNS runs the work loop's block on c's contexts' CPU: ns per iteration.
func workNS(ctx context.Context, env experiment.Env, c schedule.Cell) (float64, error) {
	b := catalog.Lookup(catalog.LoadWork)
	if b == nil {
		return 0, errors.New("no work benchmark")
	}
	wc := c
	wc.Bench = b
	req := model.Request{Bench: b.Name, Placement: c.Placement, CPUA: c.CPUA, CPUB: c.CPUB, Samples: 1}
	resp, err := schedule.RunBlock(ctx, env.Runner, wc, req, 30*time.Second)
	if err != nil {
		return 0, err
	}
	if len(resp.NS) != 1 || resp.NS[0] == 0 {
		return 0, errors.New("the work block measured nothing")
	}
	return float64(resp.NS[0]) / 100, nil
}

// ProbeOverheadNS is the first guess of what one request costs beside its
// work (a post, a wake-up, two switches), for the first calibration block.
const ProbeOverheadNS = 5000

// calibrate finds the rate at which c's load takes its utilisation of the
// contexts' CPUs, as schbench's -A steers its rate (busy % measured, the
// rate scaled by target/measured, a step bounded to ×0.3…×3), but in
// separate probe blocks before the measured ones, so the measured
// schedule is fixed (open loop): up to five probes, until one lands within
// 1.5 points of the target. A probe that could not keep its schedule
// (drops, a backlog at its end) is past what the CPUs can serve — other
// work on them lowers that — so the next probe asks less, whatever
// utilisation it reached; the rate kept is the probe's closest to the
// target among those that kept their schedule.
func calibrate(ctx context.Context, env experiment.Env, c *Cell, o Options, iters uint64) error {
	u := *c.Utilization
	cost := float64(o.Work.Nanoseconds()) + ProbeOverheadNS
	rate := u * float64(loadCPUs(c.Cell)) * 1e9 / cost
	probe := o.Probe
	if probe <= 0 {
		probe = 300 * time.Millisecond
	}
	warm := min(50*time.Millisecond, probe/4)
	best, bestMiss := 0.0, math.Inf(1)
	for k := range 5 {
		req := c.Request(0, 1, 0, false)
		req.Load = o.params(*c, rate, probe, warm, iters, env.Runner.Seed, -1-k)
		resp, err := schedule.RunBlock(ctx, env.Runner, c.Cell, req, o.timeout(probe))
		if err == nil {
			err = check(resp)
		}
		if err != nil {
			return err
		}
		got := utilization(resp.Load)
		c.Probes = append(c.Probes, result.LoadProbe{Rate: rate, Utilization: got})
		kept := keptSchedule(resp.Load)
		if miss := math.Abs(got - u); kept && miss < bestMiss {
			best, bestMiss = rate, miss
		}
		if kept && bestMiss <= 0.015 {
			break
		}
		switch {
		case !kept:
			rate *= math.Max(0.3, math.Min(0.8, u/math.Max(got, 1e-9)))
		case !(got > 0):
			rate *= 3
		default:
			rate *= math.Max(0.3, math.Min(3, u/got))
		}
		if rate > 5e6 {
			break
		}
	}
	if best == 0 {
		return fmt.Errorf("no probe kept its schedule (the last asked %.0f requests/s): the CPUs cannot serve %s here", rate, c.levelName())
	}
	c.Rate = best
	return nil
}

// keptSchedule says a block's requests were all served about when the
// schedule ended: none dropped or left, no backlog beyond a tenth of it.
func keptSchedule(d *model.LoadData) bool {
	return d.Dropped == 0 && d.Unserved == 0 && float64(d.MeasuredNS-d.ScheduleNS) <= 0.1*float64(d.ScheduleNS)+20e6
}

// utilization is the share of the contexts' CPUs the load took in a block.
func utilization(d *model.LoadData) float64 {
	if d == nil || d.WindowNS <= 0 || d.LoadCPUs < 1 {
		return 0
	}
	return float64(d.LoadCPUNS) / float64(d.WindowNS) / float64(d.LoadCPUs)
}

// check rejects a block that measured nothing.
func check(r model.Response) error {
	d := r.Load
	switch {
	case d == nil:
		return errors.New("the worker returned no load data")
	case d.Scheduled == 0 || d.Posted == 0:
		return fmt.Errorf("the block posted %d of %d requests", d.Posted, d.Scheduled)
	case d.Measured == 0:
		return errors.New("no request was measured (every one fell in the warm-up)")
	case d.Hists == nil:
		return errors.New("the block returned no histograms")
	}
	return nil
}

// captured is a level's captured wake-ups, and the capture's cost: the
// captured blocks' median wake-up against the traced blocks', paired by
// round.
func captured(th model.Threshold, t, k schedule.CellRun) *result.Capture {
	c := experiment.Capture(th, k.Blocks)
	if c == nil {
		return nil
	}
	c.Cost = experiment.CaptureCostOf(wakeMedians(t), wakeMedians(k), experiment.KernelCaptureNS(k.Blocks))
	return c
}

// wakeMedians are a cell's blocks' median wake-up latency, one value a
// block.
func wakeMedians(r schedule.CellRun) stats.Series {
	var s stats.Series
	for _, b := range r.Blocks {
		d := b.Resp.Load
		if d == nil {
			continue
		}
		h, ok := d.Hists[model.HistWake]
		if !ok || h.N == 0 {
			continue
		}
		s.Values = append(s.Values, quantile(Hist(h), 0.5, h.Max))
		s.Sizes = append(s.Sizes, 1)
		s.Rounds = append(s.Rounds, b.Round)
	}
	return s
}
