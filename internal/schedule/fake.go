package schedule

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand"
	"time"

	"github.com/ctxbench/ctxbench/internal/model"
)

// FakeExecutor returns deterministic synthetic blocks: for tests, golden
// files and --dry-run. Figures are made up and labelled as such by the
// caller; counts are what a perfect run would count. Each block (round)
// has a level of its own, as real blocks do, so block-level intervals
// have something to describe.
type FakeExecutor struct {
	Seed int64
	// Sitting varies the blocks but not the cells' levels: an A/A
	// self-test's synthetic sittings differ as identical runs do.
	Sitting int
}

var fakeBase = map[model.Rung]float64{
	model.Floor: 3, model.Coroutine: 1.5, model.Goroutine: 150, model.Runtime: 300, model.Thread: 2400,
	model.Process: 2600, model.Container: 2900, model.VM: 12000, model.Reference: 60,
}

// Block synthesizes a response.
func (f FakeExecutor) Block(ctx context.Context, c Cell, req model.Request, _ time.Duration) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	// The cell's level depends on the cell and the seed only (not on the
	// ops a calibration chose), the block's on its round (and sitting).
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d", c.Bench.Name, c.Placement, f.Seed)
	base := fakeBase[c.Bench.Rung] * (1 + float64(h.Sum64()%100)/200)
	fmt.Fprintf(h, "/%d/block %d", req.Iters, req.Round)
	if f.Sitting != 0 {
		fmt.Fprintf(h, "/sitting %d", f.Sitting)
	}
	rng := rand.New(rand.NewSource(int64(h.Sum64())))
	base *= 1 + 0.03*rng.Float64()
	if c.Placement.TwoCPUs() {
		base *= 6
	}
	perOp := base * c.Bench.HopsPerOp
	resp := model.Response{NS: make([]uint64, req.Samples), TSC: make([]uint64, req.Samples)}
	if req.Iters == 0 {
		// A self-calibrating benchmark sizes its own samples to TargetNS
		// and says how many ops they made, as a real probe does.
		req.Iters = max(1, uint64(float64(req.TargetNS)/perOp))
		resp.Iters = req.Iters
	}
	for i := range resp.NS {
		ns := perOp * float64(req.Iters) * (1 + 0.05*rng.Float64())
		resp.NS[i] = uint64(ns)
		resp.TSC[i] = uint64(ns * 2.6)
	}
	ops := uint64(req.Samples+req.Warmup) * req.Iters
	resp.A = model.Counts{Ops: ops, PerfSwitches: -1, PerfMigrations: -1, PerfInstructions: -1, PerfCycles: -1}
	resp.B = resp.A
	if c.Bench.ExpectSwitch {
		hops := uint64(float64(ops) * c.Bench.HopsPerOp)
		resp.A.Voluntary, resp.B.Voluntary = int64(hops/2), int64(hops-hops/2)
		if req.Perf {
			resp.A.PerfSwitches, resp.B.PerfSwitches = resp.A.Voluntary, resp.B.Voluntary
			resp.A.PerfMigrations, resp.B.PerfMigrations = 0, 0
		}
	}
	for _, cpu := range c.CPUSetA {
		resp.A.CPUsSeen |= 1 << uint(cpu)
	}
	for _, cpu := range c.CPUSetB {
		resp.B.CPUsSeen |= 1 << uint(cpu)
	}
	return resp, nil
}
