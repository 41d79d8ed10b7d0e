package load

import (
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

func hist(vals []int64) model.LoadHist {
	h := hdrhistogram.New(model.LoadHistLowest, model.LoadHistHighest, model.LoadHistFigures)
	var mx int64
	for _, v := range vals {
		_ = h.RecordValue(v)
		mx = max(mx, v)
	}
	s := model.LoadHist{N: uint64(len(vals)), Max: uint64(mx)}
	for i, c := range h.Export().Counts {
		if c > 0 {
			s.Index = append(s.Index, i)
			s.Count = append(s.Count, uint64(c))
		}
	}
	return s
}

// block synthesizes a block of n requests 100 µs apart: the generator
// posts lag after the intended time, the context wakes 3 µs after the post
// and works 20 µs. stall, when > 0, holds the generator back by that long
// (and the requests due meanwhile are posted late, back to back) from
// request at on: the contexts are fine the moment they run.
func block(rng *rand.Rand, n int, stall time.Duration, at int) schedule.Block {
	var lag, wake, corr, unc, svc []int64
	held := 0
	for i := range n {
		l := int64(2000 + rng.Intn(3000))
		if stall > 0 && i >= at && int64(i-at)*100_000 < stall.Nanoseconds() {
			l = stall.Nanoseconds() - int64(i-at)*100_000
			held++
		}
		w := int64(3000 + rng.Intn(1000))
		s := int64(20000 + rng.Intn(500))
		lag, wake, svc = append(lag, l), append(wake, w), append(svc, s)
		unc = append(unc, w+s)
		corr = append(corr, l+w+s)
	}
	sched := int64(n) * 100_000
	d := &model.LoadData{Scheduled: uint64(n), MeasuredScheduled: uint64(n), Posted: uint64(n), Measured: uint64(n), Hops: uint64(n),
		ScheduleNS: sched, MeasuredNS: sched + 30_000, WindowNS: sched + 30_000, LoadCPUNS: sched / 4, LoadCPUs: 1,
		Voluntary: int64(n), CPUsSeenCtx: 2, CPUsSeenGen: 2,
		Hists: map[string]model.LoadHist{model.HistLag: hist(lag), model.HistWake: hist(wake), model.HistCorrected: hist(corr),
			model.HistUncorrected: hist(unc), model.HistService: hist(svc), model.HistQueue: hist(nil)}}
	return schedule.Block{Resp: model.Response{Load: d, Contention: &model.Contention{WallNS: sched, CPUs: []int{1}, IdleNS: sched / 2}}}
}

func cell() Cell {
	u := 0.25
	b := catalog.Lookup(catalog.LoadThread)
	return Cell{Cell: schedule.Cell{Bench: b, Placement: model.SameCPU, CPUA: 1, CPUB: 1, Affinity: []int{1}, CPUSetA: []int{1}, CPUSetB: []int{1}},
		Kind: Thread, Utilization: &u, Rate: 10000}
}

// A 50 ms stall of the generator in one block shows in the corrected p99.9
// and maximum, not in the uncorrected ones, is reported as left out of
// them (an omission flag and omitted_by_uncorrected), and the lag says
// how late the generator was; the level is still reported (it caught up).
func TestStallShowsInCorrectedOnly(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	var blocks []schedule.Block
	for i := range 6 {
		stall := time.Duration(0)
		if i == 2 {
			stall = 50 * time.Millisecond
		}
		blocks = append(blocks, block(rng, 5000, stall, 2500))
	}
	l := aggregate(cell(), schedule.CellRun{Blocks: blocks}).out
	if l.Status != result.LoadOK {
		t.Fatalf("status %s (%s): a stall the generator caught up on is no backlog", l.Status, l.StatusReason)
	}
	if l.Corrected.MaxNS < 50e6 || l.Corrected.P99_9 == nil || l.Corrected.P99_9.NS < 10e6 {
		t.Errorf("corrected max %v, p99.9 %+v: the 50 ms stall must show", l.Corrected.MaxNS, l.Corrected.P99_9)
	}
	if l.Uncorrected.MaxNS > 1e6 || l.Uncorrected.P99_9 == nil || l.Uncorrected.P99_9.NS > 1e6 {
		t.Errorf("uncorrected max %v, p99.9 %+v: measured from the post, the stall is invisible", l.Uncorrected.MaxNS, l.Uncorrected.P99_9)
	}
	if l.Omitted == nil || l.Omitted.MaxNS < 49e6 || l.Omitted.P99_9NS == nil || *l.Omitted.P99_9NS < 9e6 {
		t.Errorf("omitted_by_uncorrected %+v", l.Omitted)
	}
	if l.GeneratorLag.MaxNS < 49e6 {
		t.Errorf("the generator's lag max %v: it was held back 50 ms", l.GeneratorLag.MaxNS)
	}
	if !slices.ContainsFunc(l.Flags, func(f result.Flag) bool {
		return f.Code == "omission" && strings.Contains(f.Message, "coordinated omission")
	}) {
		t.Errorf("no omission flag: %+v", l.Flags)
	}
	for _, lat := range []*result.LoadLatency{&l.Wakeup, &l.Corrected, &l.Uncorrected} {
		prev := 0.0
		for _, p := range lat.Percentiles() {
			if p.P == nil {
				t.Fatalf("%s missing: %v", p.Name, lat.Unmeasured)
			}
			if p.P.NS < prev || (p.P.CILow != nil && !(*p.P.CILow <= p.P.NS && p.P.NS <= *p.P.CIHigh)) || len(p.P.BlockNS) != 6 {
				t.Errorf("%s %+v out of order or outside its interval", p.Name, p.P)
			}
			prev = p.P.NS
		}
	}
	if math.Abs(l.AchievedUtilization-0.25) > 0.01 || l.Requests.Measured != 30000 || l.Switches.Voluntary != 1 {
		t.Errorf("utilization %v, measured %d, voluntary/request %v", l.AchievedUtilization, l.Requests.Measured, l.Switches.Voluntary)
	}
}

// Without the stall, no omission is flagged.
func TestNoOmissionWithoutStall(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	var blocks []schedule.Block
	for range 6 {
		blocks = append(blocks, block(rng, 5000, 0, 0))
	}
	l := aggregate(cell(), schedule.CellRun{Blocks: blocks}).out
	for _, f := range l.Flags {
		if f.Code == "omission" || f.Code == "behind" {
			t.Errorf("flag %s on a level that kept its schedule: %s", f.Code, f.Message)
		}
	}
}

// A backlog at the end of the blocks (the contexts fell behind), drops, or
// requests left unserved: the level is behind, flagged, and the renderers
// show no latency for it.
func TestBehind(t *testing.T) {
	for _, c := range []struct {
		name string
		edit func(d *model.LoadData)
		want string
	}{
		{"backlog", func(d *model.LoadData) { d.MeasuredNS = d.ScheduleNS * 2 }, "fell behind"},
		{"dropped", func(d *model.LoadData) { d.Dropped = 3 }, "dropped"},
		{"unserved", func(d *model.LoadData) { d.Unserved = 3 }, "pending"},
	} {
		rng := rand.New(rand.NewSource(3))
		var blocks []schedule.Block
		for range 4 {
			b := block(rng, 2000, 0, 0)
			c.edit(b.Resp.Load)
			blocks = append(blocks, b)
		}
		l := aggregate(cell(), schedule.CellRun{Blocks: blocks}).out
		if l.Status != result.LoadBehind || !strings.Contains(l.StatusReason, c.want) || l.Reported() {
			t.Errorf("%s: status %s (%s)", c.name, l.Status, l.StatusReason)
		}
	}
}

// The knee is where the corrected p99 first reaches twice the lightest
// level's, interpolated on the log of the latency.
func TestCrossing(t *testing.T) {
	u := []float64{0.25, 0.5, 0.75, 0.9}
	at, _ := crossing(u, []float64{10, 12, 30, 100})
	want := 0.5 + 0.25*(math.Log(20)-math.Log(12))/(math.Log(30)-math.Log(12))
	if at == nil || math.Abs(*at-want) > 1e-9 {
		t.Errorf("knee at %v, want %v", at, want)
	}
	if at, note := crossing(u, []float64{10, 11, 12, 19}); at != nil || !strings.Contains(note, "stays below") {
		t.Errorf("no knee expected: %v %q", at, note)
	}
}

// Options refuse what cannot run, in one line.
func TestValidate(t *testing.T) {
	ok := Options{Kinds: []Kind{Thread}, Utilizations: []float64{0.5}, Contexts: 4, Work: 20 * time.Microsecond, Block: time.Second, Warmup: 100 * time.Millisecond, Blocks: 4}
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []func(o *Options){
		func(o *Options) { o.Utilizations = []float64{1.2} },
		func(o *Options) { o.Utilizations = nil },
		func(o *Options) { o.Rates = []float64{100} },
		func(o *Options) { o.Utilizations, o.Rates = nil, []float64{0} },
		func(o *Options) { o.Contexts = 0 },
		func(o *Options) { o.Warmup = o.Block },
		func(o *Options) { o.Blocks = 0 },
		func(o *Options) { o.Kinds = nil },
	} {
		o := ok
		bad(&o)
		if err := o.Validate(); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: %v", o, err)
		}
	}
}
