package load

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// level is one aggregated level and what the series needs of its blocks.
type level struct {
	cell Cell
	out  result.LoadLevel
	p99s []*hdrhistogram.Histogram // the blocks' corrected latencies, for the knee's bootstrap
}

// The histograms a level reports, by the JSON's name.
var latencies = []struct {
	hist string
	get  func(l *result.LoadLevel) *result.LoadLatency
}{
	{model.HistLag, func(l *result.LoadLevel) *result.LoadLatency { return &l.GeneratorLag }},
	{model.HistWake, func(l *result.LoadLevel) *result.LoadLatency { return &l.Wakeup }},
	{model.HistCorrected, func(l *result.LoadLevel) *result.LoadLatency { return &l.Corrected }},
	{model.HistUncorrected, func(l *result.LoadLevel) *result.LoadLatency { return &l.Uncorrected }},
	{model.HistService, func(l *result.LoadLevel) *result.LoadLatency { return &l.Service }},
	{model.HistQueue, func(l *result.LoadLevel) *result.LoadLatency { return &l.Queueing }},
}

// Hist imports a block's histogram into hdrhistogram-go (the kernel records
// in its layout).
func Hist(h model.LoadHist) *hdrhistogram.Histogram {
	counts := make([]int64, model.LoadHistCounts)
	for i, idx := range h.Index {
		if idx >= 0 && idx < len(counts) {
			counts[idx] = int64(h.Count[i])
		}
	}
	return hdrhistogram.Import(&hdrhistogram.Snapshot{LowestTrackableValue: model.LoadHistLowest,
		HighestTrackableValue: model.LoadHistHighest, SignificantFigures: model.LoadHistFigures, Counts: counts})
}

// quantile is the value at quantile q of h: the highest value of the
// bucket holding it (at most 0.78% above the recorded value), but never
// above the exact maximum.
func quantile(h *hdrhistogram.Histogram, q float64, most uint64) float64 {
	return math.Min(float64(h.ValueAtQuantile(100*q)), float64(most))
}

// latency summarises one histogram over the blocks.
func latency(blocks []model.LoadHist) result.LoadLatency {
	var l result.LoadLatency
	all := hdrhistogram.New(model.LoadHistLowest, model.LoadHistHighest, model.LoadHistFigures)
	hs := make([]*hdrhistogram.Histogram, len(blocks))
	var maxv uint64
	var sum float64
	for i, b := range blocks {
		hs[i] = Hist(b)
		all.Merge(hs[i])
		l.Count += b.N
		maxv = max(maxv, b.Max)
		if b.N > 0 {
			sum += hs[i].Mean() * float64(b.N)
		}
	}
	if l.Count == 0 {
		return l
	}
	l.MeanNS, l.MaxNS = sum/float64(l.Count), float64(maxv)
	for _, p := range l.Percentiles() {
		var per []float64
		var sizes []uint64
		for i, h := range hs {
			if blocks[i].N > 0 {
				per = append(per, quantile(h, p.Q, blocks[i].Max))
				sizes = append(sizes, blocks[i].N)
			}
		}
		e := stats.TailInterval(p.Q, quantile(all, p.Q, maxv), per, sizes)
		if !e.OK {
			l.Unmeasured = append(l.Unmeasured, e.Why)
			continue
		}
		pc := &result.Percentile{NS: e.Value, BlockNS: per}
		if e.HasInterval {
			lo, hi := e.Lo, e.Hi
			pc.CILow, pc.CIHigh, pc.Confidence = &lo, &hi, e.Confidence
		} else if e.Why != "" {
			l.Unmeasured = append(l.Unmeasured, p.Name+": "+e.Why)
		}
		switch p.Name {
		case "p50":
			l.P50 = pc
		case "p90":
			l.P90 = pc
		case "p99":
			l.P99 = pc
		case "p99_9":
			l.P99_9 = pc
		}
	}
	l.Histogram = sparse(all)
	return l
}

// sparse is h as the document keeps it.
func sparse(h *hdrhistogram.Histogram) *result.LoadHistogram {
	s := h.Export()
	out := &result.LoadHistogram{Lowest: model.LoadHistLowest, Highest: model.LoadHistHighest, SignificantFigures: model.LoadHistFigures}
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out.ValueNS = append(out.ValueNS, float64(b.To))
			out.Count = append(out.Count, uint64(b.Count))
		}
	}
	for i, c := range s.Counts {
		if c > 0 {
			out.Index = append(out.Index, i)
		}
	}
	return out
}

// aggregate turns a level's blocks into its figures.
func aggregate(c Cell, r schedule.CellRun) level {
	lv := level{cell: c}
	out := &lv.out
	out.TargetUtilization, out.TargetRate, out.Calibration = c.Utilization, c.Rate, c.Probes
	hists := map[string][]model.LoadHist{}
	var measuredNS, scheduleNS, windowNS float64
	var vol, invol, gvol, ginvol, served int64
	var runDelay int64
	var waitSum float64
	runDelayKnown := true
	var utils []float64
	var busy float64
	var ctxSeen, genSeen uint64
	for _, b := range r.Blocks {
		d := b.Resp.Load
		n := &out.Requests
		n.Scheduled += d.Scheduled
		n.Posted += d.Posted
		n.Measured += d.Measured
		n.Dropped += d.Dropped
		n.Unserved += d.Unserved
		n.Hops += d.Hops
		n.Queued += d.Queued
		measuredNS += float64(d.MeasuredNS)
		scheduleNS += float64(d.ScheduleNS)
		windowNS += float64(d.WindowNS)
		vol += d.Voluntary
		invol += d.Involuntary
		gvol += d.GenVoluntary
		ginvol += d.GenInvoluntary
		served += int64(d.Posted - d.Unserved)
		if d.RunDelayNS < 0 {
			runDelayKnown = false
		}
		runDelay += d.RunDelayNS
		for name, h := range d.Hists {
			hists[name] = append(hists[name], h)
		}
		if h, ok := d.Hists[model.HistWake]; ok && h.N > 0 {
			waitSum += Hist(h).Mean() * float64(h.N)
		}
		if h, ok := d.Hists[model.HistQueue]; ok && h.N > 0 {
			waitSum += Hist(h).Mean() * float64(h.N)
		}
		u := utilization(d)
		utils = append(utils, u)
		ct := b.Resp.Contention
		blk := result.LoadBlock{Round: b.Round, Requests: d.Measured, AchievedUtilization: u,
			OtherShare: ct.OtherShare(), StealShare: ct.StealShare(), Reruns: b.Reruns, Contended: b.Contended}
		if d.MeasuredNS > 0 {
			blk.AchievedRate = float64(d.Measured) / (float64(d.MeasuredNS) / 1e9)
		}
		if ct != nil && ct.WallNS > 0 && len(ct.CPUs) > 0 {
			blk.CPUBusy = math.Max(0, 1-float64(ct.IdleNS)/float64(ct.WallNS*int64(len(ct.CPUs))))
		}
		busy += blk.CPUBusy
		out.Blocks = append(out.Blocks, blk)
		ctxSeen |= d.CPUsSeenCtx
		genSeen |= d.CPUsSeenGen
		lv.p99s = append(lv.p99s, Hist(d.Hists[model.HistCorrected]))
	}
	nb := float64(len(r.Blocks))
	if measuredNS > 0 {
		out.AchievedRate = float64(out.Requests.Measured) / (measuredNS / 1e9)
	}
	out.AchievedUtilization = mean(utils)
	out.AchievedUtilizationLow, out.AchievedUtilizationHigh = slices.Min(utils), slices.Max(utils)
	out.CPUBusy = busy / nb
	if served > 0 {
		out.Switches = result.LoadSwitches{Voluntary: float64(vol) / float64(served), Involuntary: float64(invol) / float64(served)}
		out.GeneratorSwitches = result.LoadSwitches{Voluntary: float64(gvol) / float64(served), Involuntary: float64(ginvol) / float64(served)}
		if runDelayKnown {
			v := float64(runDelay) / float64(served)
			out.RunDelayPerRequestNS = &v
		}
	}
	if out.Requests.Measured > 0 {
		out.MeanWaitNS = waitSum / float64(out.Requests.Measured)
	}
	for _, l := range latencies {
		*l.get(out) = latency(hists[l.hist])
	}
	out.Status = result.LoadOK
	if why := behind(out, measuredNS, scheduleNS, nb); why != "" {
		out.Status, out.StatusReason = result.LoadBehind, why
	}
	if p, q := out.Corrected.P99_9, out.Uncorrected.P99_9; out.Corrected.Count > 0 {
		om := &result.LoadOmitted{MaxNS: out.Corrected.MaxNS - out.Uncorrected.MaxNS}
		if p != nil && q != nil {
			v := p.NS - q.NS
			om.P99_9NS = &v
		}
		out.Omitted = om
	}
	out.Flags = levelFlags(c, out, r.Blocks, ctxSeen, genSeen)
	return lv
}

// behind says why a level's schedule was not kept ("" when it was): a
// request dropped or left unserved, the contexts finishing well after the
// schedule ended (the load is beyond what they serve, so the latency grows
// with the length of the run), or the generator posting late as a rule.
func behind(l *result.LoadLevel, measuredNS, scheduleNS, blocks float64) string {
	n := l.Requests
	switch {
	case n.Dropped > 0:
		return fmt.Sprintf("%s of %s requests dropped: every context's mailbox was full", units.Count(float64(n.Dropped)), units.Count(float64(n.Scheduled)))
	case n.Unserved > 0:
		return fmt.Sprintf("%s requests still pending when the drain ran out", units.Count(float64(n.Unserved)))
	case measuredNS-scheduleNS > 0.1*scheduleNS+blocks*20e6:
		return fmt.Sprintf("the last requests ended %s after the schedule did (per block): the contexts fell behind, and latency here grows with the length of the run", units.Time((measuredNS-scheduleNS)/blocks))
	}
	if p := l.GeneratorLag.P50; p != nil && p.NS > 1e6 {
		return fmt.Sprintf("the generator posted half its requests more than %s late", units.Time(p.NS))
	}
	return ""
}

// levelFlags are what a level must tell its reader.
func levelFlags(c Cell, l *result.LoadLevel, blocks []schedule.Block, ctxSeen, genSeen uint64) []result.Flag {
	flags := []result.Flag{}
	if _, f := experiment.Blocks(blocks); f != nil {
		flags = append(flags, *f)
	}
	if u := l.TargetUtilization; u != nil && math.Abs(l.AchievedUtilization-*u) > 0.05 {
		flags = append(flags, result.Flag{Code: "utilization", Message: fmt.Sprintf("achieved %s of the contexts' CPUs where %s was asked (calibrated to %s requests/s)",
			pct(l.AchievedUtilization), pct(*u), units.Count(l.TargetRate))})
	}
	if want := mask(c.CPUSetB); c.CPUB >= 0 && ctxSeen&^want != 0 {
		flags = append(flags, result.Flag{Code: "placement", Message: fmt.Sprintf("the contexts ran on CPU mask %b, pinned to %v", ctxSeen, c.CPUSetB)})
	}
	if want := mask(c.CPUSetA); c.CPUA >= 0 && genSeen&^want != 0 {
		flags = append(flags, result.Flag{Code: "placement", Message: fmt.Sprintf("the generator ran on CPU mask %b, pinned to %v", genSeen, c.CPUSetA)})
	}
	if l.Requests.Hops > 0 && l.Switches.Voluntary*float64(l.Requests.Posted-l.Requests.Unserved) < 0.95*float64(l.Requests.Hops) {
		flags = append(flags, result.Flag{Code: "switch-count", Message: fmt.Sprintf("%s hops counted but only %.2f voluntary switches per request: a hop is a sleep, so each needs one", units.Count(float64(l.Requests.Hops)), l.Switches.Voluntary)})
	}
	if p, q := l.Corrected.P99_9, l.Uncorrected.P99_9; p != nil && q != nil && p.NS > 2*q.NS && p.NS-q.NS > 100e3 {
		lag := l.GeneratorLag.MaxNS
		flags = append(flags, result.Flag{Code: "omission", Message: fmt.Sprintf("the uncorrected p99.9 (%s) leaves out %s that the corrected one (%s) holds: the generator was held back (lag up to %s), and latency measured from the post does not see the wait before it (coordinated omission)",
			units.Time(q.NS), units.Time(p.NS-q.NS), units.Time(p.NS), units.Time(lag))})
	} else if c, u := l.Corrected.MaxNS, l.Uncorrected.MaxNS; c > 2*u && c-u > 1e6 {
		flags = append(flags, result.Flag{Code: "omission", Message: fmt.Sprintf("the uncorrected maximum (%s) leaves out %s that the corrected one (%s) holds: the generator was held back (lag up to %s), and latency measured from the post does not see the wait before it (coordinated omission)",
			units.Time(u), units.Time(c-u), units.Time(c), units.Time(l.GeneratorLag.MaxNS))})
	}
	if l.Status == result.LoadBehind {
		flags = append(flags, result.Flag{Code: "behind", Message: "the schedule was not kept: " + l.StatusReason + "; this level's latencies are not reported"})
	}
	return flags
}

func mask(cpus []int) uint64 {
	var m uint64
	for _, c := range cpus {
		if c >= 0 && c < 64 {
			m |= 1 << uint(c)
		}
	}
	return m
}

// KneeFactor is how far above the lightest level's corrected p99 the tail
// must rise to have departed.
const KneeFactor = 2

// series is one kind at one placement over its levels, in the order of
// their targets, with the knee and the series' flags.
func series(c Cell, levels []level, o Options, nsPerIter float64, iters uint64, env experiment.Env) result.LoadSeries {
	s := result.LoadSeries{Name: c.Bench.Name, Kind: string(c.Kind), Placement: string(c.Placement),
		CPUGenerator: c.CPUA, CPUContexts: c.CPUB, LoadCPUs: loadCPUs(c.Cell), Mechanism: c.Bench.Mechanism,
		Contexts: o.Contexts, Arrivals: "constant", WorkNS: float64(o.Work.Nanoseconds()), WorkIters: iters, WorkNSPerIter: nsPerIter,
		BlockNS: o.Block.Nanoseconds(), WarmupNS: o.Warmup.Nanoseconds(), Sweep: "rate", Flags: []result.Flag{}, KeepBusy: o.KeepBusy}
	if o.Poisson {
		s.Arrivals = "poisson"
	}
	if len(o.Utilizations) > 0 {
		s.Sweep = "utilization"
	}
	s.Label = label(c, o, env.Host)
	// In the order asked (utilisation or rate): an achieved utilisation
	// can fall short of its target where other work took the CPUs.
	key := func(l level) float64 {
		if l.out.TargetUtilization != nil {
			return *l.out.TargetUtilization
		}
		return l.out.TargetRate
	}
	slices.SortStableFunc(levels, func(a, b level) int {
		if key(a) < key(b) {
			return -1
		}
		if key(a) > key(b) {
			return 1
		}
		return 0
	})
	for _, l := range levels {
		s.Levels = append(s.Levels, l.out)
	}
	if s.Levels == nil {
		s.Levels = []result.LoadLevel{}
	}
	s.Knee = knee(levels, env.Runner.Seed)
	// The corrected p99 should not fall as the load rises: where one level's
	// interval lies wholly below a lighter one's, something other than the
	// load moved the tail (host noise, a contended block).
	for i := 1; i < len(s.Levels); i++ {
		a, b := s.Levels[i-1].Corrected.P99, s.Levels[i].Corrected.P99
		if a == nil || b == nil || a.CILow == nil || b.CIHigh == nil || !s.Levels[i-1].Reported() || !s.Levels[i].Reported() {
			continue
		}
		if *b.CIHigh < *a.CILow {
			s.Flags = append(s.Flags, result.Flag{Code: "non-monotone", Message: fmt.Sprintf("the corrected p99 falls from %s at %s to %s at %s, beyond both intervals: the tail moved with something other than the load (see the levels' contention)",
				units.Time(a.NS), s.Levels[i-1].LevelName(), units.Time(b.NS), s.Levels[i].LevelName())})
		}
	}
	return s
}

// label says what the series measured.
func label(c Cell, o Options, host string) string {
	what := map[Kind]string{Thread: "threads of one process", Process: "single-threaded processes"}[c.Kind]
	arr := "constant gaps"
	if o.Poisson {
		arr = "Poisson arrivals"
	}
	gen := "the generator on the contexts' CPU"
	if c.CPUA != c.CPUB {
		gen = "the generator on another CPU"
	}
	if c.CPUA < 0 {
		gen = "the generator and the contexts placed by the scheduler"
	}
	parts := []string{fmt.Sprintf("%d %s woken through futexes by an open-loop generator (%s), %s of work per request", o.Contexts, what, arr, units.Time(float64(o.Work.Nanoseconds()))),
		c.PlacementText() + ", " + gen}
	if o.KeepBusy {
		parts = append(parts, "the contexts' CPU kept from idling by a SCHED_IDLE spinner")
	}
	if host != "" {
		parts = append(parts, host)
	}
	return strings.Join(parts, "; ")
}

// knee is the achieved utilisation at which the corrected p99 reaches
// KneeFactor × the lightest level's, interpolated on the log of the
// latency, with a bootstrap over each level's blocks (seeded).
func knee(levels []level, seed int64) *result.LoadKnee {
	var ok []level
	for _, l := range levels {
		if l.out.Reported() && l.out.Corrected.P99 != nil && len(l.p99s) > 0 {
			ok = append(ok, l)
		}
	}
	k := &result.LoadKnee{Metric: "request_corrected p99", Factor: KneeFactor, Confidence: stats.Confidence}
	if len(ok) < 2 {
		k.Note = "fewer than two levels with a corrected p99: no knee"
		return k
	}
	us := make([]float64, len(ok))
	p99 := make([]float64, len(ok))
	for i, l := range ok {
		us[i], p99[i] = l.out.AchievedUtilization, l.out.Corrected.P99.NS
	}
	k.BaseNS = p99[0]
	at, note := crossing(us, p99)
	if at == nil {
		k.Note = note
		return k
	}
	k.Utilization = at
	const resamples = 400
	rng := rand.New(rand.NewSource(seed ^ 0x6b6e6565))
	var found []float64
	for range resamples {
		x := make([]float64, len(ok))
		for i, l := range ok {
			h := hdrhistogram.New(model.LoadHistLowest, model.LoadHistHighest, model.LoadHistFigures)
			for range l.p99s {
				h.Merge(l.p99s[rng.Intn(len(l.p99s))])
			}
			x[i] = float64(h.ValueAtQuantile(99))
		}
		if v, _ := crossing(us, x); v != nil {
			found = append(found, *v)
		} else {
			found = append(found, math.Inf(1))
		}
	}
	k.Resamples = resamples
	slices.Sort(found)
	// Order statistics, not interpolation: a resample that never departed
	// is +Inf, and interpolating between two of them is no number.
	lo := found[int(math.Floor(0.025*float64(len(found)-1)))]
	hi := found[int(math.Ceil(0.975*float64(len(found)-1)))]
	if !math.IsInf(lo, 0) {
		k.Low = &lo
	}
	if !math.IsInf(hi, 0) {
		k.High = &hi
	} else {
		k.Note = "in some resamples the tail did not depart within the levels measured: the interval's upper end is open"
	}
	return k
}

// crossing is where y first reaches KneeFactor × y[0], interpolating
// log(y) linearly in u; nil and why when it does not within the levels.
func crossing(u, y []float64) (*float64, string) {
	t := KneeFactor * y[0]
	for i := 1; i < len(y); i++ {
		if y[i] >= t {
			a, b := math.Log(y[i-1]), math.Log(y[i])
			f := 1.0
			if b > a {
				f = (math.Log(t) - a) / (b - a)
			}
			v := u[i-1] + math.Max(0, math.Min(1, f))*(u[i]-u[i-1])
			return &v, ""
		}
	}
	return nil, fmt.Sprintf("the corrected p99 stays below %d× the lightest level's up to %s utilisation", KneeFactor, pct(u[len(u)-1]))
}

// pct is a fraction as a percentage with one decimal.
func pct(f float64) string { return units.Percent(100*f, 1) }

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
