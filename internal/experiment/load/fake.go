package load

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// FakeExecutor answers load blocks with synthetic, deterministic figures:
// for --dry-run, tests and golden files. It measures nothing. Its queue is
// a notional M/M/1 per CPU: a request costs its work plus 3 µs, the
// wake-up is 2.5 µs on an idle CPU and grows as 1/(1 − utilisation), and
// the generator posts on time.
type FakeExecutor struct{ Seed int64 }

// Block synthesizes one block.
func (f FakeExecutor) Block(ctx context.Context, c schedule.Cell, req model.Request, _ time.Duration) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, err
	}
	if req.Bench == catalog.LoadWork {
		return model.Response{NS: []uint64{100}, TSC: []uint64{0}}, nil // 1.00 ns per iteration
	}
	p := req.Load
	if p == nil || (req.Bench != catalog.LoadThread && req.Bench != catalog.LoadProcess) {
		return model.Response{}, fmt.Errorf("fake load executor: cannot serve %s", req.Bench)
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%s/%g/%d/%d", req.Bench, req.Placement, p.Rate, req.Round, f.Seed)
	rng := rand.New(rand.NewSource(int64(h.Sum64())))
	cpus := loadCPUs(c)
	work := float64(p.WorkIters) // ns, at 1 ns per iteration
	cost := work + 3000
	offered := p.Rate * cost / 1e9 / float64(cpus)
	u := math.Min(0.98, offered*(1+0.01*rng.NormFloat64()))
	dur, warm := float64(p.DurationNS), float64(p.WarmupNS)
	n := uint64(p.Rate * dur / 1e9)
	m := uint64(p.Rate * (dur - warm) / 1e9)
	if m == 0 {
		m = 1
	}
	d := &model.LoadData{Scheduled: n, MeasuredScheduled: m, Posted: n, Measured: m, LoadCPUs: cpus,
		NSPerIter: 1, Hists: map[string]model.LoadHist{}, RunDelayNS: 0, Timeslices: int64(n)}
	d.Hops = uint64(float64(m) * (1 - 0.8*u))
	d.Queued = m - d.Hops
	d.ScheduleNS = int64(dur - warm)
	d.MeasuredNS = d.ScheduleNS + int64(cost)
	if offered > 1 { // beyond what the CPUs serve: the backlog grows to the end
		d.MeasuredNS = int64(float64(d.ScheduleNS) * offered)
	}
	d.WindowNS = int64(dur + cost)
	d.LoadCPUNS = int64(u * float64(d.WindowNS) * float64(cpus))
	d.Voluntary, d.Involuntary = int64(d.Hops+n-m), int64(float64(n)*u*0.1)
	d.GenVoluntary = int64(n)
	d.RunDelayNS = int64(float64(n) * 2500 * u / (1 - u))
	if c.CPUA >= 0 {
		d.CPUsSeenGen = 1 << uint(c.CPUA)
	}
	if c.CPUB >= 0 {
		d.CPUsSeenCtx = 1 << uint(c.CPUB)
	}
	draws := min(m, 200_000)
	scale := float64(m) / float64(draws)
	hs := map[string]*hdrhistogram.Histogram{}
	for _, name := range []string{model.HistLag, model.HistWake, model.HistCorrected, model.HistUncorrected, model.HistService, model.HistQueue} {
		hs[name] = hdrhistogram.New(model.LoadHistLowest, model.LoadHistHighest, model.LoadHistFigures)
	}
	wakeMed := 2500 / (1 - u)
	for i := uint64(0); i < draws; i++ {
		lag := 2000 * math.Exp(0.5*rng.NormFloat64())
		wait := wakeMed * math.Exp(0.6*rng.NormFloat64())
		svc := work * (1 + 0.05*rng.ExpFloat64())
		w := int64(math.Round(scale))
		_ = hs[model.HistLag].RecordValues(int64(lag)+1, w)
		if float64(i) < float64(draws)*float64(d.Hops)/float64(m) {
			_ = hs[model.HistWake].RecordValues(int64(wait)+1, w)
		} else {
			_ = hs[model.HistQueue].RecordValues(int64(wait)+1, w)
		}
		_ = hs[model.HistService].RecordValues(int64(svc)+1, w)
		_ = hs[model.HistUncorrected].RecordValues(int64(wait+svc)+1, w)
		_ = hs[model.HistCorrected].RecordValues(int64(lag+wait+svc)+1, w)
	}
	for name, hh := range hs {
		s := model.LoadHist{N: uint64(hh.TotalCount()), Max: uint64(hh.Max())}
		for i, c := range hh.Export().Counts {
			if c > 0 {
				s.Index = append(s.Index, i)
				s.Count = append(s.Count, uint64(c))
			}
		}
		d.Hists[name] = s
	}
	d.Measured = d.Hists[model.HistCorrected].N
	d.Hops, d.Queued = d.Hists[model.HistWake].N, d.Hists[model.HistQueue].N
	return model.Response{Load: d}, nil
}
