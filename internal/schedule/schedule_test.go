package schedule

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/model"
)

// The scheduler is tested with benchmarks made here: it knows no mechanism.
var (
	pipe = &model.Benchmark{Name: "test/pipe", Rung: model.Thread, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true,
		Placements: []model.Placement{model.SameCPU, model.CrossCPU, model.Unpinned}, Ladder: []model.Placement{model.SameCPU, model.CrossCPU}}
	yield = &model.Benchmark{Name: "test/yield", Rung: model.Thread, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true,
		Placements: []model.Placement{model.SameCPU}, Ladder: []model.Placement{model.SameCPU}, PlacementNote: "sched_yield hands over only on one CPU"}
	chans = &model.Benchmark{Name: "test/chan", Rung: model.Goroutine, Kind: model.Switch, HopsPerOp: 2,
		Placements: []model.Placement{model.SameCPU, model.CrossCPU}, Ladder: []model.Placement{model.SameCPU}}
)

// testRun is a run's options and runner side by side, so a test sets
// either by name.
type testRun struct {
	Options
	Runner
}

func (t testRun) run(ctx context.Context, cells []Cell) ([]CellRun, error) {
	return Run(ctx, t.Runner, cells, t.Options)
}

func opts() testRun {
	return testRun{Options{Runs: 10, SamplesPerBlock: 4, Warmup: 1, MinTime: time.Millisecond}, Runner{Seed: 1, Executor: FakeExecutor{Seed: 1}}}
}

func TestPlanPlacements(t *testing.T) {
	cells, skips := Plan([]*model.Benchmark{pipe, yield}, []model.Placement{model.SameCPU, model.CrossCPU}, []int{0, 1})
	if len(cells) != 3 {
		t.Fatalf("got %d cells, want 3 (pipe twice, yield same-cpu)", len(cells))
	}
	if len(skips) != 1 || skips[0].Bench != "test/yield" || !strings.Contains(skips[0].Reason, "sched_yield") {
		t.Fatalf("yield cross-cpu should be skipped with its reason, got %+v", skips)
	}
	for _, c := range cells {
		switch c.Placement {
		case model.SameCPU:
			if c.CPUA != 1 || c.CPUB != 1 {
				t.Errorf("same-cpu should use the last CPU, got %d/%d", c.CPUA, c.CPUB)
			}
		case model.CrossCPU:
			if c.CPUA != 0 || c.CPUB != 1 {
				t.Errorf("cross-cpu should use first and last, got %d/%d", c.CPUA, c.CPUB)
			}
		}
	}
	if _, skips := Plan([]*model.Benchmark{pipe}, []model.Placement{model.CrossCPU}, []int{3}); len(skips) != 1 {
		t.Fatalf("cross-cpu on one CPU should be skipped, got %+v", skips)
	}
	// Goroutines across CPUs are placed by the runtime inside the set.
	c, _ := Place(chans, model.CrossCPU, []int{0, 1})
	if c.CPUA != -1 || len(c.CPUSetA) != 2 {
		t.Fatalf("goroutine cross-cpu cell: %+v", c)
	}
}

func TestRunIsDeterministicAndComplete(t *testing.T) {
	cells, _ := Plan([]*model.Benchmark{pipe, chans}, nil, []int{0, 1})
	a, err := opts().run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := opts().run(context.Background(), cells)
	for i := range a {
		if a[i].Err != nil {
			t.Fatal(a[i].Err)
		}
		n := 0
		for j, blk := range a[i].Blocks {
			n += len(blk.Resp.NS)
			if blk.Round != j {
				t.Errorf("%s: block %d is from round %d", a[i].Cell.Key(), j, blk.Round)
			}
			if blk.Resp.NS[0] != b[i].Blocks[j].Resp.NS[0] {
				t.Errorf("%s: two runs with one seed differ", a[i].Cell.Key())
			}
		}
		if n != 10 || len(a[i].Blocks) != 3 {
			t.Errorf("%s: %d samples in %d blocks, want --runs 10 in 3 blocks of up to 4", a[i].Cell.Key(), n, len(a[i].Blocks))
		}
		if a[i].Iters == 0 {
			t.Errorf("%s: not calibrated", a[i].Cell.Key())
		}
	}
	if a[0].Perf != nil || a[2].Perf != nil {
		t.Error("perf blocks ran without PerfCheck")
	}
}

// failing executes blocks but fails every block of one benchmark.
type failing struct {
	FakeExecutor
	bad string
}

func (f failing) Block(ctx context.Context, c Cell, req model.Request, to time.Duration) (model.Response, error) {
	if c.Bench.Name == f.bad && req.Samples != 3 { // calibration (3 samples) passes
		return model.Response{}, errors.New("partner died")
	}
	return f.FakeExecutor.Block(ctx, c, req, to)
}

func TestOneFailingCellDoesNotStopTheOthers(t *testing.T) {
	cells, _ := Plan([]*model.Benchmark{pipe, yield}, []model.Placement{model.SameCPU}, []int{0})
	o := opts()
	o.Executor = failing{bad: "test/yield"}
	out, err := o.run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Err != nil || len(out[0].Blocks) != 3 {
		t.Fatalf("test/pipe should succeed: %v", out[0].Err)
	}
	if out[1].Err == nil || !strings.Contains(out[1].Err.Error(), "partner died") || len(out[1].Blocks) != 0 {
		t.Fatalf("test/yield should fail with the reason, got %v", out[1].Err)
	}
}

func TestCancelStopsTheRun(t *testing.T) {
	cells, _ := Plan([]*model.Benchmark{pipe}, nil, []int{0, 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := opts().run(ctx, cells); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

// scaled answers calibration probes as if one op took perOp ns.
type scaled struct{ perOp float64 }

func (s scaled) Block(_ context.Context, _ Cell, req model.Request, _ time.Duration) (model.Response, error) {
	r := model.Response{NS: make([]uint64, req.Samples), TSC: make([]uint64, req.Samples)}
	for i := range r.NS {
		r.NS[i] = uint64(s.perOp * float64(req.Iters))
	}
	return r, nil
}

func TestCalibrationReachesMinTime(t *testing.T) {
	c, _ := Place(pipe, model.SameCPU, []int{0})
	for _, perOp := range []float64{3, 2500, 40000} {
		o := opts()
		o.Executor = scaled{perOp}
		iters, err := calibrate(context.Background(), o.Executor, c, o.Options)
		if err != nil {
			t.Fatal(err)
		}
		sample := float64(iters) * perOp
		if sample < 0.9e6 || sample > 3e6 {
			t.Errorf("perOp %v ns: %d iters make a %.0f ns sample, want about 1 ms", perOp, iters, sample)
		}
	}
}

func TestFailedPrepareFailsItsCellsOnly(t *testing.T) {
	calls := 0
	broken := &model.Benchmark{Name: "test/broken", Rung: model.Runtime, Kind: model.Switch, HopsPerOp: 2,
		Placements: []model.Placement{model.SameCPU}, SelfCalibrating: true,
		Prepare: func(context.Context) error { calls++; return errors.New("toolchain missing") }}
	bc, _ := Place(broken, model.SameCPU, []int{0})
	good, _ := Place(pipe, model.SameCPU, []int{0})
	out, err := opts().run(context.Background(), []Cell{bc, bc, good})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("prepare ran %d times, want once per benchmark", calls)
	}
	for _, o := range out[:2] {
		if o.Err == nil || !strings.Contains(o.Err.Error(), "toolchain missing") {
			t.Errorf("cell with a failed prepare: %v", o.Err)
		}
	}
	if out[2].Err != nil || len(out[2].Blocks) == 0 {
		t.Errorf("an unrelated cell failed: %v", out[2].Err)
	}
}

// Rounds interleaves: every round visits every cell once, in an order
// that is not always the same; a failed unit is retried once when asked,
// and a fatal error stops everything.
func TestRoundsInterleaveRetryAndStop(t *testing.T) {
	var order []int
	got, errs, err := Rounds(context.Background(), 3, func(int) int { return 4 }, func(_ context.Context, i, r int) (int, error) {
		order = append(order, i)
		return i*10 + r, nil
	}, RoundOptions{Seed: 7})
	if err != nil || len(order) != 12 {
		t.Fatalf("ran %d units, err %v", len(order), err)
	}
	firsts := map[int]bool{}
	for r := 0; r < 4; r++ {
		seen := map[int]bool{}
		for _, i := range order[3*r : 3*r+3] {
			seen[i] = true
		}
		if len(seen) != 3 {
			t.Fatalf("round %d did not visit every cell once: %v", r, order)
		}
		firsts[order[3*r]] = true
	}
	if len(firsts) < 2 {
		t.Errorf("every round started with the same cell: %v", order)
	}
	for i := range got {
		if errs[i] != nil || len(got[i]) != 4 || got[i][3].Value != i*10+3 {
			t.Fatalf("cell %d: %+v %v", i, got[i], errs[i])
		}
	}
	tries := 0
	_, errs, _ = Rounds(context.Background(), 1, func(int) int { return 1 }, func(context.Context, int, int) (int, error) {
		tries++
		return 0, errors.New("transient")
	}, RoundOptions{Retry: func(int, int, error) bool { return true }})
	if tries != 2 || errs[0] == nil {
		t.Fatalf("retry: %d tries, error %v", tries, errs[0])
	}
	n := 0
	_, _, err = Rounds(context.Background(), 2, func(int) int { return 5 }, func(context.Context, int, int) (int, error) {
		n++
		return 0, Fatal(errors.New("server died"))
	}, RoundOptions{})
	if !errors.Is(err, ErrFatal) || err.Error() != "server died" || n != 1 {
		t.Fatalf("fatal error: %v after %d units", err, n)
	}
}

// --target-ci: blocks are added, interleaved, to the cells still wider than
// the target, until each is within it, has the most blocks a cell may take,
// or the budget runs out — and each cell that did not get there says why.
func TestPrecisionAddsBlocksUntilTheTarget(t *testing.T) {
	cells, _ := Plan([]*model.Benchmark{pipe}, []model.Placement{model.SameCPU, model.CrossCPU}, []int{0, 1})
	o := opts() // 10 runs in blocks of 4: 3 planned blocks
	o.Precision = &Precision{Target: 0.1, Budget: time.Hour, Width: func(r CellRun) float64 {
		if r.Cell.Placement == model.CrossCPU {
			return 1 // never narrows
		}
		return 1 / float64(len(r.Blocks)) // within 0.1 at 10 blocks
	}}
	o.Precision.MaxBlocks = 12
	runs, err := o.run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		switch r.Cell.Placement {
		case model.SameCPU:
			if len(r.Blocks) != 10 || r.Added != 7 || r.Missed != "" {
				t.Errorf("same-cpu: %d blocks (%d added), missed %q; want 10 (7 added), reached", len(r.Blocks), r.Added, r.Missed)
			}
		case model.CrossCPU:
			if len(r.Blocks) != 12 || !strings.Contains(r.Missed, "the most this cell may take") {
				t.Errorf("cross-cpu: %d blocks, missed %q; want 12 and the limit said", len(r.Blocks), r.Missed)
			}
		}
		for j, b := range r.Blocks {
			if b.Round != j {
				t.Errorf("%s: block %d ran in round %d", r.Cell.Key(), j, b.Round)
			}
		}
	}

	// The budget: a clock that moves a second per look runs out after 3.
	now := time.Unix(0, 0)
	o.Precision = &Precision{Target: 0.1, Budget: 3 * time.Second, Width: func(CellRun) float64 { return 1 },
		Clock: func() time.Time { now = now.Add(time.Second); return now }}
	runs, err = o.run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.Added == 0 || r.Added > 3 || !strings.Contains(r.Missed, "time budget") {
			t.Errorf("%s: %d added, missed %q; want a few added, then the budget said", r.Cell.Key(), r.Added, r.Missed)
		}
	}

	// A cell whose floor (the machine's between-sitting spread, for a
	// reproducibility target) lies above the target gets no block at all.
	o.Precision = &Precision{Target: 0.1, Budget: time.Hour, Width: func(CellRun) float64 { return 1 },
		Floor: func(r CellRun) float64 {
			if r.Cell.Placement == model.CrossCPU {
				return 0.2
			}
			return 0
		}}
	o.Precision.MaxBlocks = 5
	runs, err = o.run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		switch r.Cell.Placement {
		case model.CrossCPU:
			if r.Added != 0 || !strings.Contains(r.Missed, "more blocks cannot narrow") {
				t.Errorf("cross-cpu above its floor: %d added, missed %q", r.Added, r.Missed)
			}
		case model.SameCPU:
			if r.Added != 2 {
				t.Errorf("same-cpu: %d added, want 2 (to the limit of 5)", r.Added)
			}
		}
	}

	// A dry run adds nothing.
	o.DryRun = true
	runs, _ = o.run(context.Background(), cells)
	for _, r := range runs {
		if r.Added != 0 {
			t.Errorf("a dry run added %d blocks", r.Added)
		}
	}
}

// Span paces the rounds: round r of n starts no earlier than r/n of the
// span after the first (a lower bound by construction: the scheduler
// waits), and a dry run is never paced.
func TestSpanPacesTheRounds(t *testing.T) {
	cells, _ := Plan([]*model.Benchmark{pipe}, []model.Placement{model.SameCPU}, []int{0, 1})
	o := opts() // 3 rounds
	o.Span = 300 * time.Millisecond
	start := time.Now()
	if _, err := o.run(context.Background(), cells); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 200*time.Millisecond {
		t.Errorf("3 rounds over a 300 ms span took %v, want at least 200 ms (the third round's start)", took)
	}
	o.DryRun, o.Span = true, time.Hour
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = o.run(context.Background(), cells)
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("a dry run waited for its span")
	}
}

// contendedExec answers every block as if other work took share of its
// CPU, except the attempts listed as clean.
type contendedExec struct {
	share    float64
	clean    map[int]bool
	attempts int
}

func (c *contendedExec) Block(ctx context.Context, cell Cell, req model.Request, d time.Duration) (model.Response, error) {
	resp, err := FakeExecutor{Seed: 1}.Block(ctx, cell, req, d)
	if err != nil {
		return resp, err
	}
	c.attempts++
	share := c.share
	if c.clean[c.attempts] {
		share = 0.01
	}
	wall := int64(1e9)
	resp.Contention = &model.Contention{WallNS: wall, CPUs: []int{1}, OwnNS: int64(float64(wall) * (1 - share))}
	return resp, nil
}

// A block in which other work took more than the limit runs again, at most
// Reruns times; the least contended attempt is kept, and one still over the
// limit is marked contended (the aggregation flags its cell).
func TestContendedBlocksRunAgain(t *testing.T) {
	cells, _ := Plan([]*model.Benchmark{pipe}, []model.Placement{model.SameCPU}, []int{0, 1})
	o := opts()
	o.Runs, o.SamplesPerBlock, o.Iterations = 4, 4, 100 // one block, no calibration
	ex := &contendedExec{share: 0.5}
	o.Executor = ex
	runs, err := o.run(context.Background(), cells)
	if err != nil {
		t.Fatal(err)
	}
	b := runs[0].Blocks[0]
	if ex.attempts != 1+DefaultReruns || !b.Contended || b.Reruns != DefaultReruns {
		t.Errorf("always contended: %d attempts, block %+v; want %d attempts, kept and marked", ex.attempts, b, 1+DefaultReruns)
	}
	ex = &contendedExec{share: 0.5, clean: map[int]bool{2: true}}
	o.Executor = ex
	runs, _ = o.run(context.Background(), cells)
	b = runs[0].Blocks[0]
	if ex.attempts != 2 || b.Contended || b.Reruns != 1 || b.Resp.Contention.OtherShare() > 0.02 {
		t.Errorf("clean on the second attempt: %d attempts, block %+v", ex.attempts, b)
	}
}
