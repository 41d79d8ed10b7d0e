package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

type poolView struct {
	Run       *runView
	Legend    []legendItem // of the stacked switches
	Series    []poolSeriesView
	Published []result.PoolComparison
	Verdicts  []string
	Warnings  []string
}

type poolSeriesView struct {
	Title string
	Figs  []Fig
	Note  string
}

func poolViews(runs []*runView) []poolView {
	var out []poolView
	for _, rv := range runs {
		if rv.Doc.Pools == nil {
			continue
		}
		for _, r := range []*result.Pools{rv.Doc.Pools} {
			v := poolView{Run: rv, Verdicts: r.Verdicts, Warnings: r.Warnings, Legend: switchLegend()}
			for _, s := range r.Servers {
				v.Published = append(v.Published, s.Published...)
				for _, se := range s.Series {
					v.Series = append(v.Series, seriesView(s, se))
				}
			}
			out = append(out, v)
		}
	}
	return out
}

func seriesView(s result.PoolServer, se result.PoolSeries) poolSeriesView {
	workers := fmt.Sprint(se.Workers)
	if se.Workers == 0 {
		workers = "one per connection"
	}
	v := poolSeriesView{Title: fmt.Sprintf("%s %s via %s · %s · workers %s", s.Server, s.Version, se.Client, se.Placement, workers), Note: se.Note}
	pts := slices.Clone(se.Points)
	slices.SortFunc(pts, func(a, b result.PoolPoint) int { return a.Pool - b.Pool })
	if len(pts) == 0 {
		return v
	}
	ax := newPoolAxis(pts)
	v.Figs = append(v.Figs, throughputPanel(se, pts, ax, v.Title), latencyPanel(pts, ax, v.Title), switchesPanel(s, pts, ax, v.Title))
	return v
}

// poolAxis is the pool-size axis every panel of a series shares: log base
// 2 over the pool sizes measured.
type poolAxis struct {
	pools  []float64
	lo, hi float64
	ticks  []tick
}

func newPoolAxis(pts []result.PoolPoint) poolAxis {
	ax := poolAxis{}
	for _, pt := range pts {
		ax.pools = append(ax.pools, float64(pt.Pool))
	}
	ax.lo, ax.hi = logDomain(ax.pools[0], ax.pools[len(ax.pools)-1], 2)
	ax.ticks = log2Ticks(ax.lo, ax.hi, units.Short, 8)
	return ax
}

// plot is a panel of the series with the pool-size axis set.
func (ax poolAxis) plot(label string) *plot {
	p := newPlot(panelW, panelH, label)
	p.x = scale{log: true, lo: ax.lo, hi: ax.hi, from: p.left + 8, to: p.right - 8}
	return p
}

// xs are the pool sizes' positions on p.
func (ax poolAxis) xs(p *plot) []float64 {
	out := make([]float64, len(ax.pools))
	for i, n := range ax.pools {
		out[i] = p.x.pos(n)
	}
	return out
}

// throughputPanel draws queries per second against pool size, from zero,
// with the knee, the client library's default pool and each point's
// interval; a hollow marker is a client-bound point.
func throughputPanel(se result.PoolSeries, pts []result.PoolPoint, ax poolAxis, title string) Fig {
	p := ax.plot("throughput against pool size: " + title)
	hi := 0.0
	for _, pt := range pts {
		hi = math.Max(hi, pt.QPS.Median)
		if pt.QPS.CIHigh != nil {
			hi = math.Max(hi, *pt.QPS.CIHigh)
		}
	}
	yt, _, yhi := linTicks(0, hi, 5, units.ShortCount)
	p.y = scale{lo: 0, hi: yhi, from: p.bot, to: p.top}
	p.axes("throughput", "pool size (connections, log)", "queries per second", ax.ticks, yt)
	if k := se.Knee; k != nil {
		x := p.x.pos(float64(k.N95))
		p.add(group(fmt.Sprintf("knee: pool %d is the smallest reaching 95%% of the peak (%s q/s at pool %d)", k.N95, units.ShortCount(k.PeakX), k.PeakN),
			line(x, p.top, x, p.bot, "knee"), text(x+3, p.top+9, fmt.Sprintf("95%% of peak: %d", k.N95), "start", "knee-label")))
	}
	if se.LibraryDefaultPool > 0 {
		x := p.x.pos(float64(se.LibraryDefaultPool))
		p.add(group(fmt.Sprintf("%s would pick a pool of %d here by default", se.Client, se.LibraryDefaultPool),
			marker("triangle", x, p.bot-5, 4, "mk libdef")))
	}
	xs := ax.xs(p)
	ys := make([]float64, len(pts))
	var g []Elem
	for i, pt := range pts {
		ys[i] = p.y.pos(pt.QPS.Median)
	}
	g = append(g, polyline(xs, ys, "ln net")...)
	for i, pt := range pts {
		x := xs[i]
		var parts []Elem
		if pt.QPS.CILow != nil && pt.QPS.CIHigh != nil {
			parts = append(parts, line(x, p.y.pos(*pt.QPS.CILow), x, p.y.pos(*pt.QPS.CIHigh), "wh"))
		}
		cls := "mk"
		title := fmt.Sprintf("pool %d: %s queries/s (median of %d windows)", pt.Pool, units.ShortCount(pt.QPS.Median), pt.QPS.N)
		if pt.ClientBound {
			cls = "mk hollow"
			title += "\nclient-bound: the client, not the server, limited this point"
		}
		if se.Knee != nil && se.Knee.Kneedle != nil && *se.Knee.Kneedle == pt.Pool {
			parts = append(parts, marker("circle", x, ys[i], 7, "kneedle"))
			title += "\nKneedle knee of the curve"
		}
		parts = append(parts, marker("circle", x, ys[i], 3.5, cls))
		g = append(g, group(title, parts...))
	}
	e := group("", g...)
	e.Class = "k-thread"
	p.add(e)
	return p.fig
}

// latencyPanel draws the query latency's p50 and p99 against pool size, on
// a log scale.
func latencyPanel(pts []result.PoolPoint, ax poolAxis, title string) Fig {
	p := ax.plot("query latency p50 and p99 against pool size: " + title)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		for _, e := range []float64{pt.LatencyNs.P50.Median, pt.LatencyNs.P99.Median} {
			if e > 0 {
				lo, hi = math.Min(lo, e), math.Max(hi, e)
			}
		}
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1e3, 1e4
	}
	ylo, yhi := logDomain(lo, hi, 10)
	p.y = scale{log: true, lo: ylo, hi: yhi, from: p.bot, to: p.top}
	p.axes("latency per query", "pool size (connections, log)", "latency (log)", ax.ticks, logTicks(ylo, yhi, units.ShortTime))
	xs := ax.xs(p)
	for _, q := range []struct {
		name, cls, shape string
		get              func(result.PoolPoint) float64
	}{
		{"p50", "k-thread", "circle", func(pt result.PoolPoint) float64 { return pt.LatencyNs.P50.Median }},
		{"p99", "k-process", "square", func(pt result.PoolPoint) float64 { return pt.LatencyNs.P99.Median }},
	} {
		ys := make([]float64, len(pts))
		for i, pt := range pts {
			ys[i] = p.y.pos(q.get(pt))
		}
		g := polyline(xs, ys, "ln net")
		for i, pt := range pts {
			g = append(g, group(fmt.Sprintf("pool %d: %s latency %s", pt.Pool, q.name, units.Time(q.get(pt))), marker(q.shape, xs[i], ys[i], 3.5, "mk")))
		}
		e := group("", g...)
		e.Class = q.cls
		p.add(e)
		last := len(pts) - 1
		p.add(text(xs[last]-4, ys[last]-7, q.name, "end", "series-label"))
	}
	return p.fig
}

// switchesPanel draws the context switches per query, stacked: what each
// query made the server and the client do.
func switchesPanel(s result.PoolServer, pts []result.PoolPoint, ax poolAxis, title string) Fig {
	p := ax.plot("context switches per query, stacked, against pool size: " + title)
	type part struct {
		name, cls string
		get       func(result.PoolPoint) float64
	}
	parts := []part{
		{"server voluntary", "st-sv", func(pt result.PoolPoint) float64 { return deref(pt.PerQuery.ServerVoluntary) }},
		{"server involuntary", "st-si", func(pt result.PoolPoint) float64 { return deref(pt.PerQuery.ServerInvoluntary) }},
		{"server auxiliary", "st-sa", func(pt result.PoolPoint) float64 { return deref(pt.PerQuery.ServerAux) }},
		{"client voluntary", "st-cv", func(pt result.PoolPoint) float64 { return pt.PerQuery.ClientVoluntary }},
		{"client involuntary", "st-ci", func(pt result.PoolPoint) float64 { return pt.PerQuery.ClientInvoluntary }},
	}
	hi := 0.0
	for _, pt := range pts {
		sum := 0.0
		for _, pa := range parts {
			sum += math.Max(pa.get(pt), 0)
		}
		hi = math.Max(hi, sum)
	}
	yt, _, yhi := linTicks(0, math.Max(hi, 0.1), 5, units.Short)
	p.y = scale{lo: 0, hi: yhi, from: p.bot, to: p.top}
	p.axes("switches per query", "pool size (connections, log)", "context switches per query", ax.ticks, yt)
	// Bars as wide as the closest two pool sizes allow (they are
	// log-spaced, often unevenly).
	xs := ax.xs(p)
	bw := 18.0
	for i := 1; i < len(pts); i++ {
		bw = math.Min(bw, 0.8*(xs[i]-xs[i-1]))
	}
	bw = math.Max(bw, 2)
	for i, pt := range pts {
		x := xs[i]
		base := 0.0
		for _, pa := range parts {
			val := pa.get(pt)
			if val <= 0 {
				continue
			}
			y0, y1 := p.y.pos(base), p.y.pos(base+val)
			r := rect(x-bw/2, y1, bw, y0-y1, "bar "+pa.cls)
			p.add(group(fmt.Sprintf("pool %d: %s %s switches per query", pt.Pool, pa.name, units.Fixed(val, 2)), r))
			base += val
		}
	}
	if !s.ProcessCounters {
		p.add(text(p.right-4, p.top+10, "server counters unavailable", "end", "legend-text"))
	}
	return p.fig
}

func deref(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// switchLegend names the stacked parts of the switches-per-query panels.
func switchLegend() []legendItem {
	var out []legendItem
	for _, p := range []struct{ cls, text string }{
		{"st-sv", "server voluntary"}, {"st-si", "server involuntary"}, {"st-sa", "server auxiliary tasks"},
		{"st-cv", "client voluntary"}, {"st-ci", "client involuntary"},
	} {
		out = append(out, legendItem{Class: p.cls, Text: p.text,
			Swatch: Fig{W: 12, H: 12, Class: "swatch", Elems: []Elem{rect(1, 1, 10, 10, "bar "+p.cls)}}})
	}
	return out
}
