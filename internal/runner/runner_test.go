package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

func opts() Options {
	return Options{Runs: 10, SamplesPerBlock: 4, Warmup: 1, MinTime: time.Millisecond, Seed: 1, Executor: FakeExecutor{Seed: 1}}
}

func TestPlanPlacements(t *testing.T) {
	pipe := bench.Lookup("thread/pipe")
	yield := bench.Lookup("thread/yield")
	cells, skips := Plan([]*bench.Benchmark{pipe, yield}, []bench.Placement{bench.SameCPU, bench.CrossCPU}, []int{0, 1})
	if len(cells) != 3 {
		t.Fatalf("got %d cells, want 3 (pipe twice, yield same-cpu)", len(cells))
	}
	if len(skips) != 1 || skips[0].Bench != "thread/yield" || !strings.Contains(skips[0].Reason, "sched_yield") {
		t.Fatalf("yield cross-cpu should be skipped with its reason, got %+v", skips)
	}
	for _, c := range cells {
		switch c.Placement {
		case bench.SameCPU:
			if c.CPUA != 1 || c.CPUB != 1 {
				t.Errorf("same-cpu should use the last CPU, got %d/%d", c.CPUA, c.CPUB)
			}
		case bench.CrossCPU:
			if c.CPUA != 0 || c.CPUB != 1 {
				t.Errorf("cross-cpu should use first and last, got %d/%d", c.CPUA, c.CPUB)
			}
		}
	}
	if _, skips := Plan([]*bench.Benchmark{pipe}, []bench.Placement{bench.CrossCPU}, []int{3}); len(skips) != 1 {
		t.Fatalf("cross-cpu on one CPU should be skipped, got %+v", skips)
	}
}

func TestRunFakeIsDeterministicAndComplete(t *testing.T) {
	cells, _ := Plan([]*bench.Benchmark{bench.Lookup("thread/pipe"), bench.Lookup("goroutine/chan-gomaxprocs1")}, nil, []int{0, 1})
	a, err := Run(context.Background(), cells, opts())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Run(context.Background(), cells, opts())
	for i := range a {
		if a[i].Err != nil {
			t.Fatal(a[i].Err)
		}
		ra, rb := a[i].Result, b[i].Result
		if len(ra.Samples) != 10 {
			t.Errorf("%s: %d samples, want --runs 10", ra.Name, len(ra.Samples))
		}
		if ra.OneWayNS.Median != rb.OneWayNS.Median {
			t.Errorf("%s: fake runs differ: %v vs %v", ra.Name, ra.OneWayNS.Median, rb.OneWayNS.Median)
		}
		if ra.Blocks != 3 {
			t.Errorf("%s: %d blocks, want 3 (10 samples in blocks of 4)", ra.Name, ra.Blocks)
		}
	}
	thread := a[0].Result
	if thread.SwitchesPerHop == nil || *thread.SwitchesPerHop != 1 || !thread.Verification.Verified {
		t.Errorf("fake thread row not verified: %+v", thread.Verification)
	}
	if g := a[2].Result; g.SwitchesPerHop != nil {
		t.Errorf("goroutine row should have null switches_per_hop")
	}
}

// failing executes blocks but fails every block of one benchmark.
type failing struct {
	FakeExecutor
	bad string
}

func (f failing) Block(ctx context.Context, c Cell, req bench.Request, to time.Duration) (bench.Response, error) {
	if c.Bench.Name == f.bad {
		return bench.Response{}, errors.New("partner died")
	}
	return f.FakeExecutor.Block(ctx, c, req, to)
}

func TestOneFailingCellDoesNotStopTheOthers(t *testing.T) {
	cells, _ := Plan([]*bench.Benchmark{bench.Lookup("thread/pipe"), bench.Lookup("process/pipe")}, []bench.Placement{bench.SameCPU}, []int{0})
	o := opts()
	o.Executor = failing{bad: "process/pipe"}
	out, err := Run(context.Background(), cells, o)
	if err != nil {
		t.Fatal(err)
	}
	if out[0].Err != nil || out[0].Result == nil {
		t.Fatalf("thread/pipe should succeed: %v", out[0].Err)
	}
	if out[1].Err == nil || !strings.Contains(out[1].Err.Error(), "partner died") {
		t.Fatalf("process/pipe should fail with the reason, got %v", out[1].Err)
	}
}

func TestCancelStopsTheRun(t *testing.T) {
	cells, _ := Plan([]*bench.Benchmark{bench.Lookup("thread/pipe")}, nil, []int{0, 1})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, cells, opts()); !errors.Is(err, context.Canceled) {
		t.Fatalf("want context.Canceled, got %v", err)
	}
}

// scaled answers calibration probes as if one op took perOp ns.
type scaled struct{ perOp float64 }

func (s scaled) Block(_ context.Context, _ Cell, req bench.Request, _ time.Duration) (bench.Response, error) {
	r := bench.Response{NS: make([]uint64, req.Samples), TSC: make([]uint64, req.Samples)}
	for i := range r.NS {
		r.NS[i] = uint64(s.perOp * float64(req.Iters))
	}
	return r, nil
}

func TestCalibrationReachesMinTime(t *testing.T) {
	c, _ := CellFor(bench.Lookup("thread/pipe"), bench.SameCPU, []int{0})
	for _, perOp := range []float64{3, 2500, 40000} {
		o := opts()
		o.Executor = scaled{perOp}
		iters, err := calibrate(context.Background(), c, o)
		if err != nil {
			t.Fatal(err)
		}
		sample := float64(iters) * perOp
		if sample < 0.9e6 || sample > 3e6 {
			t.Errorf("perOp %v ns: %d iters make a %.0f ns sample, want about 1 ms", perOp, iters, sample)
		}
	}
}

func resp(opsA, swA, swB uint64, seenA, seenB uint64) bench.Response {
	return bench.Response{
		NS: []uint64{1000, 1100, 1200}, TSC: []uint64{2600, 2860, 3120},
		A: kernels.Counts{Ops: opsA, Voluntary: int64(swA), CPUsSeen: seenA},
		B: kernels.Counts{Ops: opsA, Voluntary: int64(swB), CPUsSeen: seenB},
	}
}

func TestAggregateFlags(t *testing.T) {
	spin, _ := CellFor(bench.Lookup("thread/futex-spin"), bench.CrossCPU, []int{0, 1})
	// 100 round trips = 200 hops, 3 switches in all: a spinning handoff.
	r := Aggregate(spin, 10, []bench.Response{resp(100, 2, 1, 1, 2)}, nil, "host")
	if r.Verification.Verified || len(r.Flags) != 1 || r.Flags[0].Code != "switch-count" || !strings.Contains(r.Flags[0].Message, "spinning") {
		t.Fatalf("spinning handoff not flagged: %+v", r.Flags)
	}
	pipe, _ := CellFor(bench.Lookup("thread/pipe"), bench.SameCPU, []int{0, 1})
	// 200 hops, 200 switches, but side B seen on CPU 0 although pinned to 1.
	r = Aggregate(pipe, 10, []bench.Response{resp(100, 100, 100, 2, 3)}, nil, "host")
	if !r.Verification.Verified || *r.SwitchesPerHop != 1 {
		t.Fatalf("one switch per hop not verified: %+v", r.Verification)
	}
	if r.Placed.OK || len(r.Flags) != 1 || r.Flags[0].Code != "placement" {
		t.Fatalf("placement outside the CPU set not flagged: %+v %+v", r.Placed, r.Flags)
	}
	if r.OneWayNS.Median != 1100.0/20 || r.OneWayCycles == nil || r.OneWayCycles.Median != 2860.0/20 {
		t.Fatalf("per-hop arithmetic: median %v cycles %+v", r.OneWayNS.Median, r.OneWayCycles)
	}
	if !strings.Contains(r.Label, "same CPU") || !strings.Contains(r.Label, "host") {
		t.Fatalf("label %q", r.Label)
	}
	// A flag raised by a later block is kept beside an earlier flag, and a
	// flag raised by every block is kept once.
	b1, b2 := resp(100, 100, 100, 2, 3), resp(100, 100, 100, 2, 3)
	b1.Facts = map[string]string{"flag:isolation": "shared CPU"}
	b2.Facts = map[string]string{"flag:isolation": "shared CPU", "flag:noise": "busy"}
	r = Aggregate(pipe, 10, []bench.Response{resp(100, 100, 100, 2, 3), b1, b2}, nil, "host")
	codes := map[string]int{}
	for _, f := range r.Flags {
		codes[f.Code]++
	}
	if codes["placement"] == 0 || codes["isolation"] != 1 || codes["noise"] != 1 || r.Verification.Verified {
		t.Fatalf("flags of later blocks: %+v", r.Flags)
	}
}

func TestFailedPrepareFailsItsCellsOnly(t *testing.T) {
	calls := 0
	broken := &bench.Benchmark{Name: "test/broken", Rung: bench.Runtime, Kind: bench.Switch, HopsPerOp: 2,
		Placements: []bench.Placement{bench.SameCPU}, SelfCalibrating: true,
		Prepare: func(context.Context) error { calls++; return errors.New("toolchain missing") }}
	bc, _ := CellFor(broken, bench.SameCPU, []int{0})
	good, _ := CellFor(bench.Lookup("thread/pipe"), bench.SameCPU, []int{0})
	out, err := Run(context.Background(), []Cell{bc, bc, good}, opts())
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
	if out[2].Err != nil || out[2].Result == nil {
		t.Errorf("an unrelated cell failed: %v", out[2].Err)
	}
}

// A creation or memory kind that cannot run on this machine is skipped with
// its reason, not failed: a ladder without root or KVM still succeeds.
func TestLifecycleSkipsUnavailableKinds(t *testing.T) {
	bench.Register(
		&bench.Benchmark{Name: bench.SpawnPrefix + "test-missing", Rung: bench.Reference, Kind: bench.RefKind, Hidden: true,
			Needs: func() (bool, string) { return false, "needs a widget" }},
		&bench.Benchmark{Name: bench.SpawnPrefix + "test-here", Rung: bench.Reference, Kind: bench.RefKind, Hidden: true},
	)
	var shown []string
	out, miss, err := Spawn(context.Background(), []string{"test-missing", "test-here"},
		LifecycleOptions{Samples: 3, CPU: -1, CPUs: []int{0}, Executor: FakeExecutor{Seed: 1}, Progress: func(k string) { shown = append(shown, k) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || out[0].Name != bench.SpawnPrefix+"test-here" {
		t.Fatalf("results %+v, want only test-here", out)
	}
	if len(miss.Failed) != 0 || len(miss.Skipped) != 1 || miss.Skipped[0].Error != "needs a widget" {
		t.Fatalf("missing %+v, want one skip with its reason and no failure", miss)
	}
	if len(shown) == 0 || shown[len(shown)-1] != "" {
		t.Fatalf("progress %q: the line must be cleared at the end", shown)
	}
}
