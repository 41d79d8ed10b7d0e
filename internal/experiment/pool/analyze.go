package pool

import (
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// windowRecord is one measured window and where it belongs.
type windowRecord struct {
	spec pool.WindowSpec
	w    result.PoolWindow
}

// buildSeries groups a server's windows into curves and summarises each point.
func buildSeries(kind string, recs []windowRecord, pls func(string) pool.Placement) []result.PoolSeries {
	type key struct {
		client, placement string
		workers           int
	}
	groups := map[key]map[int][]result.PoolWindow{}
	var order []key
	for _, r := range recs {
		k := key{r.spec.Client, r.spec.Placement, r.spec.Workers}
		if groups[k] == nil {
			groups[k] = map[int][]result.PoolWindow{}
			order = append(order, k)
		}
		groups[k][r.spec.Pool] = append(groups[k][r.spec.Pool], r.w)
	}
	slices.SortStableFunc(order, func(a, b key) int {
		if c := strings.Compare(a.client, b.client); c != 0 {
			return c
		}
		if c := strings.Compare(a.placement, b.placement); c != 0 {
			return c
		}
		return b.workers - a.workers
	})
	var out []result.PoolSeries
	for _, k := range order {
		pl := pls(k.placement)
		s := result.PoolSeries{
			Server: kind, Client: k.client, Placement: k.placement, Workers: k.workers,
			ServerCPUs: pl.Server, ClientCPUs: pl.Client, GOMAXPROCS: len(pl.Client),
		}
		switch k.client {
		case pool.ClientPgxpool:
			s.LibraryDefaultPool = max(4, runtime.NumCPU()) // NumCPU is fixed at start-up
		case pool.ClientGoRedis:
			s.LibraryDefaultPool = 10 * len(pl.Client) // 10 × GOMAXPROCS
		case pool.ClientDatabaseSQL:
			s.LibraryDefaultPool = 0 // unlimited open connections, 2 kept idle
		}
		pools := make([]int, 0, len(groups[k]))
		for p := range groups[k] {
			pools = append(pools, p)
		}
		slices.Sort(pools)
		for _, p := range pools {
			s.Points = append(s.Points, summarise(p, k.workers, groups[k][p]))
		}
		analyseSeries(&s)
		out = append(out, s)
	}
	return out
}

func summarise(size, workers int, ws []result.PoolWindow) result.PoolPoint {
	if workers == 0 {
		workers = size
	}
	pt := result.PoolPoint{Pool: size, Workers: workers, Windows: ws}
	col := func(f func(w *result.PoolWindow) float64) []float64 {
		v := make([]float64, len(ws))
		for i := range ws {
			v[i] = f(&ws[i])
		}
		return v
	}
	colp := func(f func(w *result.PoolWindow) *float64) *float64 {
		var v []float64
		for i := range ws {
			if p := f(&ws[i]); p != nil {
				v = append(v, *p)
			}
		}
		if len(v) == 0 {
			return nil
		}
		m := stats.Median(v)
		return &m
	}
	pt.QPS = windowEstimate(col(func(w *result.PoolWindow) float64 { return w.QPS }))
	pt.LatencyNs.P50 = windowEstimate(col(func(w *result.PoolWindow) float64 { return w.Latency.P50 }))
	pt.LatencyNs.P90 = windowEstimate(col(func(w *result.PoolWindow) float64 { return w.Latency.P90 }))
	pt.LatencyNs.P99 = windowEstimate(col(func(w *result.PoolWindow) float64 { return w.Latency.P99 }))
	pt.LatencyNs.Max = windowEstimate(col(func(w *result.PoolWindow) float64 { return w.Latency.Max }))
	pt.PoolWaitNs = stats.Median(col(func(w *result.PoolWindow) float64 { return w.PoolWaitNs }))
	pt.HeldNs = stats.Median(col(func(w *result.PoolWindow) float64 { return w.HeldNs }))
	pq := &pt.PerQuery
	pq.ServerVoluntary = colp(func(w *result.PoolWindow) *float64 { return w.PerQuery.ServerVoluntary })
	pq.ServerInvoluntary = colp(func(w *result.PoolWindow) *float64 { return w.PerQuery.ServerInvoluntary })
	pq.ServerAux = colp(func(w *result.PoolWindow) *float64 { return w.PerQuery.ServerAux })
	pq.ServerCPUNs = colp(func(w *result.PoolWindow) *float64 { return w.PerQuery.ServerCPUNs })
	pq.ServerAuxCPUNs = colp(func(w *result.PoolWindow) *float64 { return w.PerQuery.ServerAuxCPUNs })
	pq.ServerRunqWaitNs = colp(func(w *result.PoolWindow) *float64 { return w.PerQuery.ServerRunqWaitNs })
	pq.PerfCPUSwitches = colp(func(w *result.PoolWindow) *float64 { return w.PerQuery.PerfCPUSwitches })
	pq.ClientVoluntary = stats.Median(col(func(w *result.PoolWindow) float64 { return w.PerQuery.ClientVoluntary }))
	pq.ClientInvoluntary = stats.Median(col(func(w *result.PoolWindow) float64 { return w.PerQuery.ClientInvoluntary }))
	pq.ClientCPUNs = stats.Median(col(func(w *result.PoolWindow) float64 { return w.PerQuery.ClientCPUNs }))
	pt.ServerUtil = stats.Median(col(func(w *result.PoolWindow) float64 { return w.ServerUtil }))
	pt.ClientUtil = stats.Median(col(func(w *result.PoolWindow) float64 { return w.ClientUtil }))
	pt.ClientBound = pt.ClientUtil >= pool.ClientBoundUtil
	pt.ForeignUtil = stats.Median(col(func(w *result.PoolWindow) float64 { return w.ForeignUtil }))
	return pt
}

// analyseSeries adds the knee, the USL fit and the shape, each with what
// the windows allow (stats.ShapeOf). Client-bound and disturbed points are
// left out of the knee and the fit and listed: they describe the client or
// the machine, not the server (Gunther's method).
func analyseSeries(s *result.PoolSeries) {
	var ns []int
	var nf, xs []float64
	var windows [][]float64
	clean := 0
	for _, p := range s.Points {
		if p.ClientBound {
			s.ClientBoundPoints = append(s.ClientBoundPoints, p.Pool)
		}
		if !p.ClientBound && p.ForeignUtil <= foreignWarn {
			clean++
		}
	}
	// With fewer than three clean points nothing is left to fit: every
	// point is fitted, and the note says the curve is not the server's.
	keepAll := clean < 3
	for _, p := range s.Points {
		if !keepAll && (p.ClientBound || p.ForeignUtil > foreignWarn) {
			s.Excluded = append(s.Excluded, p.Pool)
			continue
		}
		ns = append(ns, p.Pool)
		nf = append(nf, float64(p.Pool))
		xs = append(xs, p.QPS.Median)
		w := make([]float64, len(p.Windows))
		for i := range p.Windows {
			w[i] = p.Windows[i].QPS
		}
		windows = append(windows, w)
	}
	if len(ns) == 0 {
		return
	}
	if k, err := stats.FindKnee(ns, xs); err == nil {
		s.Knee = &k
	}
	var fit *stats.USLFit
	if f, err := stats.FitUSL(nf, xs); err == nil {
		s.USL = &result.PoolUSL{USLFit: f}
		fit = &f
	} else {
		s.USL = &result.PoolUSL{Error: err.Error()}
	}
	sh := stats.ShapeOf(ns, windows, fit, int64(len(ns))*7919, shapeResamples)
	u := &result.PoolShapeUncertainty{LastOverPeak: sh.LastOverPeak.Estimate, LastOverPeakLow: sh.LastOverPeak.Lo, LastOverPeakHigh: sh.LastOverPeak.Hi,
		Retrograde: sh.Retrograde, Alpha: sh.Alpha, Beta: sh.Beta, NStar: sh.NStar, NStarWithheld: sh.NStarWithheld,
		N95: sh.N95, KneedleShare: sh.KneedleShare, Resamples: sh.Resamples}
	s.Uncertainty = u
	if fit != nil && sh.NStarWithheld != "" {
		// The point estimate stays in the fit's own record; the series'
		// figure is withheld, and says why.
		s.USL.NStar = nil
	}
	if s.Knee != nil && s.Knee.Kneedle != nil && sh.Resamples > 0 && sh.KneedleShare < 0.5 {
		s.Knee.Kneedle = nil // most resampled curves have no knee: "no knee"
	}
	if s.Knee == nil {
		return
	}
	last := len(xs) - 1
	switch {
	case len(ns) < 3:
		s.Shape = "too few points"
	case sh.Retrograde:
		s.Shape = fmt.Sprintf("retrograde (%+.0f%% [%+.0f%%, %+.0f%%] at pool %d against the peak)",
			100*(sh.LastOverPeak.Estimate-1), 100*(sh.LastOverPeak.Lo-1), 100*(sh.LastOverPeak.Hi-1), ns[last])
	case s.Knee.PeakN == ns[last] && s.Knee.N95 == ns[last]:
		s.Shape = "rising"
	default:
		s.Shape = "plateau"
	}
	var notes []string
	if len(s.ClientBoundPoints) > 0 {
		notes = append(notes, fmt.Sprintf("client-bound at pools %v: the curve there describes the client", s.ClientBoundPoints))
	}
	if len(s.Excluded) > 0 {
		notes = append(notes, fmt.Sprintf("pools %v left out of the knee and the fit (client-bound or disturbed)", s.Excluded))
	}
	if keepAll && clean < len(s.Points) {
		notes = append(notes, fmt.Sprintf("only %d of %d points are neither client-bound nor disturbed: all were fitted, and the knee and fit describe the client and the machine as much as the server", clean, len(s.Points)))
	}
	if sh.NStarWithheld != "" {
		notes = append(notes, "USL N* withheld: "+sh.NStarWithheld)
	}
	s.Note = strings.Join(notes, "; ")
}

// shapeResamples is the bootstrap's size for a curve's shape.
const shapeResamples = 200

// foreignWarn is the median share of the CPUs taken by other processes above which a
// point is reported as disturbed.
const foreignWarn = 0.10

// analyze adds the published comparison, verdicts and warnings.
func analyze(res *result.Pools) {
	for i := range res.Servers {
		sr := &res.Servers[i]
		for _, s := range sr.Series {
			if c, ok := compare(s, 10, 90); ok {
				sr.Published = append(sr.Published, c)
			}
			if len(s.ClientBoundPoints) > 0 {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s %s %s %s: %s", sr.Version, s.Client, s.Placement, pool.WorkersText(s.Workers), s.Note))
			}
			var busy []int
			for _, p := range s.Points {
				if p.ForeignUtil > foreignWarn {
					busy = append(busy, p.Pool)
				}
			}
			if len(busy) > 0 {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s %s %s %s: other processes used more than %.0f%% of the CPUs during the windows of pools %v: those figures are disturbed", sr.Version, s.Client, s.Placement, pool.WorkersText(s.Workers), foreignWarn*100, busy))
			}
			for _, p := range s.Points {
				for _, w := range p.Windows {
					if !w.Conns.Stable {
						res.Warnings = append(res.Warnings, fmt.Sprintf("%s %s %s pool %d rep %d: connections changed: %s", sr.Version, s.Client, s.Placement, p.Pool, w.Rep, w.Conns.Detail))
					}
				}
			}
		}
		if !sr.ProcessCounters {
			res.Warnings = append(res.Warnings, sr.Version+": the server's processes are not on this machine (or not readable): no server switch or CPU figures, and the server was not pinned")
		}
		sr.Verdict = verdict(sr)
		res.Verdicts = append(res.Verdicts, sr.Verdict)
	}
}

func pointAt(s result.PoolSeries, size int) *result.PoolPoint {
	for i := range s.Points {
		if s.Points[i].Pool == size {
			return &s.Points[i]
		}
	}
	return nil
}

func qpsOf(p *result.PoolPoint) []float64 {
	v := make([]float64, len(p.Windows))
	for i, w := range p.Windows {
		v[i] = w.QPS
	}
	return v
}

func serverSwitches(p *result.PoolPoint) *float64 {
	q := p.PerQuery
	if q.ServerVoluntary == nil || q.ServerInvoluntary == nil {
		return nil
	}
	v := *q.ServerVoluntary + *q.ServerInvoluntary
	return &v
}

func totalSwitches(p *result.PoolPoint) *float64 {
	s := serverSwitches(p)
	if s == nil {
		return nil
	}
	v := *s + p.PerQuery.ClientVoluntary + p.PerQuery.ClientInvoluntary
	if p.PerQuery.ServerAux != nil {
		v += *p.PerQuery.ServerAux
	}
	return &v
}

func compare(s result.PoolSeries, a, b int) (result.PoolComparison, bool) {
	pa, pb := pointAt(s, a), pointAt(s, b)
	if pa == nil || pb == nil {
		return result.PoolComparison{}, false
	}
	c := result.PoolComparison{Client: s.Client, Placement: s.Placement, Workers: s.Workers, PoolA: a, PoolB: b,
		QPSA: pa.QPS.Median, QPSB: pb.QPS.Median, Alpha: 0.05}
	hl := stats.HLRatio(qpsOf(pa), qpsOf(pb), 0.95)
	c.QPSRatio, c.P = result.NewPoolRatio(hl), hl.P
	c.TimeRatio = result.PoolRatio{Estimate: 1 / c.QPSRatio.Estimate, Confidence: c.QPSRatio.Confidence}
	if c.QPSRatio.Low != nil && c.QPSRatio.High != nil {
		lo, hi := 1 / *c.QPSRatio.High, 1 / *c.QPSRatio.Low
		c.TimeRatio.Low, c.TimeRatio.High = &lo, &hi
	}
	c.P99Ratio = pb.LatencyNs.P99.Median / pa.LatencyNs.P99.Median
	c.ServerSwitchesA, c.ServerSwitchesB = serverSwitches(pa), serverSwitches(pb)
	c.ClientSwitchesA = pa.PerQuery.ClientVoluntary + pa.PerQuery.ClientInvoluntary
	c.ClientSwitchesB = pb.PerQuery.ClientVoluntary + pb.PerQuery.ClientInvoluntary
	c.TotalSwitchesA, c.TotalSwitchesB = totalSwitches(pa), totalSwitches(pb)
	c.BlogDirectionHolds = c.TimeRatio.Estimate > 1
	c.SignificantlySlower = c.BlogDirectionHolds && c.P < c.Alpha && c.QPSRatio.High != nil && *c.QPSRatio.High < 1
	ci := "no interval (too few windows)"
	if c.TimeRatio.Low != nil {
		ci = fmt.Sprintf("%.0f%% CI %.2f–%.2f", c.TimeRatio.Confidence*100, *c.TimeRatio.Low, *c.TimeRatio.High)
	}
	sw := ""
	if c.TotalSwitchesA != nil {
		sw = fmt.Sprintf(", switches/query %.2f → %.2f", *c.TotalSwitchesA, *c.TotalSwitchesB)
	}
	c.Summary = fmt.Sprintf("pool %d vs %d: time per query ×%.2f (%s, p=%.3f), p99 ×%.2f%s",
		b, a, c.TimeRatio.Estimate, ci, c.P, c.P99Ratio, sw)
	return c, true
}

// primary picks the series a verdict is about: the published set-up where it was run
// (1000 workers, cross-cpu, the pool library), else the first.
func primary(sr *result.PoolServer) *result.PoolSeries {
	best, score := -1, -1
	for i, s := range sr.Series {
		sc := 0
		if s.Placement == pool.CrossCPU {
			sc += 4
		}
		if s.Workers == 1000 {
			sc += 2
		}
		if s.Client == pool.ClientPgxpool || s.Client == pool.ClientGoRedis {
			sc++
		}
		if sc > score {
			best, score = i, sc
		}
	}
	if best < 0 {
		return nil
	}
	return &sr.Series[best]
}

func verdict(sr *result.PoolServer) string {
	s := primary(sr)
	if s == nil || s.Knee == nil {
		return sr.Version + ": no data"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s, %s, %s): peak %.0f q/s at pool %d, knee N95 = %d",
		sr.Version, s.Client, pool.WorkersText(s.Workers), s.Placement, s.Knee.PeakX, s.Knee.PeakN, s.Knee.N95)
	if s.USL != nil && s.USL.Error == "" {
		if s.USL.NStar != nil {
			fmt.Fprintf(&b, ", USL α=%.3g β=%.3g N*=%.0f R²=%.2f", s.USL.Alpha, s.USL.Beta, *s.USL.NStar, s.USL.R2)
		} else {
			fmt.Fprintf(&b, ", USL α=%.3g β=%.3g (no interior peak) R²=%.2f", s.USL.Alpha, s.USL.Beta, s.USL.R2)
		}
	}
	fmt.Fprintf(&b, "; %s", s.Shape)
	first, last := s.Points[0], s.Points[len(s.Points)-1]
	if a, z := serverSwitches(&first), serverSwitches(&last); a != nil && z != nil {
		fmt.Fprintf(&b, "; server switches/query %.2f at pool %d → %.2f at pool %d", *a, first.Pool, *z, last.Pool)
	}
	for _, c := range sr.Published {
		if c.Client == s.Client && c.Placement == s.Placement && c.Workers == s.Workers {
			fmt.Fprintf(&b, "; %s — %s", c.Summary, direction(c))
		}
	}
	if len(s.ClientBoundPoints) > 0 {
		fmt.Fprintf(&b, "; client-bound at pools %v", s.ClientBoundPoints)
	}
	var foreign []float64
	for _, p := range s.Points {
		foreign = append(foreign, p.ForeignUtil)
	}
	if f := stats.Median(foreign); f > foreignWarn {
		fmt.Fprintf(&b, "; DISTURBED: other processes used %.0f%% of the CPUs during the median window", f*100)
	}
	return b.String()
}

// direction judges the published claim (the larger pool is slower) from
// the time ratio's interval over windows, by the one verdict rule: at 95%
// or it says there are not enough windows to tell.
func direction(c result.PoolComparison) string {
	iv := stats.Interval{What: fmt.Sprintf("time per query, pool %d/%d", c.PoolB, c.PoolA), Level: c.TimeRatio.Confidence,
		Unit: stats.UnitWindows, Null: 1, OK: c.TimeRatio.Low != nil && c.TimeRatio.High != nil}
	if iv.OK {
		iv.Lo, iv.Hi = *c.TimeRatio.Low, *c.TimeRatio.High
	}
	return stats.Verdict(iv, stats.Words{
		Above:  fmt.Sprintf("pool %d is slower, the published direction holds", c.PoolB),
		Below:  fmt.Sprintf("pool %d is faster, the published direction does not hold", c.PoolB),
		Within: "no difference resolved",
	})
}

// windowEstimate is the median of repeated windows with its interval.
func windowEstimate(vals []float64) result.PoolEstimate {
	return result.NewPoolEstimate(stats.SummarizeWindows(vals))
}
