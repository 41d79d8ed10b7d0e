package ring

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// FakeExecutor answers ring blocks with synthetic, deterministic samples:
// for --dry-run, tests and golden files. It measures nothing. Its counts
// are those of a perfect run (every member passes once per round, one
// switch per hop where one is expected); its costs grow with the ring and
// jump where N × working set passes a notional 1 MiB L2 and 32 MiB L3.
type FakeExecutor struct{ Seed int64 }

var fakeHop = map[string]float64{catalog.RingGoroutine: 180, catalog.RingThread: 2400, catalog.RingProcess: 2800, catalog.RingProcessMT: 3000}

// Block synthesizes one ring block.
func (f FakeExecutor) Block(ctx context.Context, c schedule.Cell, req model.Request, _ time.Duration) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	if req.Ring == nil {
		return model.Response{}, fmt.Errorf("fake ring executor: %s without ring parameters", req.Bench)
	}
	n := req.Ring.Tasks
	ws := req.Ring.WorkingSet
	base, ok := fakeHop[req.Bench]
	if !ok || n < 1 || req.Samples < 1 {
		return model.Response{}, fmt.Errorf("fake ring executor: cannot serve %s with %d tasks", req.Bench, n)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%d/%d/%d/%d", req.Bench, req.Placement, n, ws, req.Samples, f.Seed)
	rng := rand.New(rand.NewSource(int64(h.Sum64())))

	touch := float64(ws) / 8 / 3 // ~3 words per ns from cache
	hop := base*(1+0.04*math.Log2(float64(n))) + touch
	foot := float64(n) * float64(ws)
	if foot > 1<<20 {
		hop += float64(ws) / 64 * 1.5 // refills from L3
	}
	if foot > 32<<20 {
		hop += float64(ws) / 64 * 6 // refills from memory
	}
	if req.Placement.TwoCPUs() {
		hop *= 6
	}
	over := 0.25*base + touch
	if foot > 32<<20 {
		over += float64(ws) / 64 * 6
	}
	rounds := req.Iters
	if rounds == 0 {
		target := float64(req.TargetNS)
		rounds = uint64(math.Max(1, math.Ceil(target/(hop*float64(n)))))
	}
	perSample := float64(rounds) * float64(n)
	d := &model.RingData{Tasks: n, WorkingSet: ws, RoundsPerSample: rounds}
	resp := model.Response{NS: make([]uint64, req.Samples), TSC: make([]uint64, req.Samples), Ring: d}
	for _, s := range []*[]uint64{&d.OverheadNS, &d.OverheadTSC, &d.HotNS, &d.HotTSC} {
		*s = make([]uint64, req.Samples)
	}
	for i := 0; i < req.Samples; i++ {
		raw := hop * perSample * (1 + 0.05*rng.Float64())
		ov := over * perSample * (1 + 0.05*rng.Float64())
		ht := (0.25*base + touch) * perSample * (1 + 0.05*rng.Float64())
		resp.NS[i], resp.TSC[i] = uint64(raw), uint64(raw*2.6)
		d.OverheadNS[i], d.OverheadTSC[i] = uint64(ov), uint64(ov*2.6)
		d.HotNS[i], d.HotTSC[i] = uint64(ht), uint64(ht*2.6)
	}
	d.Rounds = 3 + uint64(req.Samples+req.Warmup)*rounds // calibration rounds, then the samples
	if req.Iters != 0 {
		d.Rounds -= 3
	}
	d.Token = uint64(n) * d.Rounds
	d.Passes = uint64(n-1) * d.Rounds
	d.MinPasses, d.MaxPasses = d.Rounds, d.Rounds
	if n == 1 {
		d.MinPasses, d.MaxPasses = 0, 0
	}
	none := model.NoPerf()
	resp.A, resp.B = none, none
	resp.A.Ops, resp.B.Ops = d.Rounds, d.Passes
	if c.Bench.ExpectSwitch {
		resp.A.Voluntary, resp.B.Voluntary = int64(d.Rounds), int64(d.Passes)
		if req.Perf {
			resp.A.PerfSwitches, resp.B.PerfSwitches = int64(d.Rounds), int64(d.Passes)
			resp.A.PerfMigrations, resp.B.PerfMigrations = 0, 0
		}
	}
	if req.Bench == catalog.RingGoroutine {
		resp.GOMAXPROCS = map[bool]int{true: 1, false: 2}[req.Placement == model.SameCPU]
	}
	return resp, nil
}
