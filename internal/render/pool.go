package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// PoolWorkers names a worker rule: a count, or as many as connections.
func PoolWorkers(w int) string {
	if w == 0 {
		return "workers = pool"
	}
	return fmt.Sprintf("%d workers", w)
}

// Pools prints the connection-pool curves, one table per series, with
// each curve's knee and fit, the published comparison and the verdicts.
// It is laid out for the style of w: on a narrow terminal the auxiliary
// switches, the hold time, the CPU per query, the utilisations and the
// wait leave, in that order, named under each table.
func Pools(w io.Writer, res *result.Pools) {
	st := styleOf(w)
	for _, sr := range res.Servers {
		for _, s := range sr.Series {
			prose(w, st, "\n%s — %s, %s, %s (server CPUs %v, client CPUs %v, GOMAXPROCS %d)\n", sr.Version, s.Client, s.Placement,
				PoolWorkers(s.Workers), s.ServerCPUs, s.ClientCPUs, s.GOMAXPROCS)
			poolTable(s).Write(w, st)
			if s.Knee != nil {
				prose(w, st, "%s; %s\n", poolKnee(s), s.Shape)
				if s.Note != "" {
					prose(w, st, "  note: %s\n", s.Note)
				}
			}
		}
		for _, c := range sr.Published {
			prose(w, st, "published (%s, %s, %s): %s\n", c.Client, c.Placement, PoolWorkers(c.Workers), c.Summary)
		}
	}
	prose(w, st, "\nSwitches per query: per-task /proc counters of the server's processes and getrusage of the client, idle baseline subtracted (docs/pool.md).\n")
	for _, v := range res.Verdicts {
		prose(w, st, "verdict: %s\n", v)
	}
	for _, x := range res.Warnings {
		prose(w, st, "warning: %s\n", x)
	}
}

// poolTable is one series' points: per pool size, throughput, latency,
// the pool's wait and hold, switches and CPU per query, utilisations and
// what flags the point.
func poolTable(s result.PoolSeries) *Table {
	num := func(p *float64, decimals int) string {
		if p == nil {
			return "-"
		}
		return units.Fixed(*p, decimals)
	}
	t := NewTable(Col{Head: "pool", Right: true}, Col{Head: "q/s", Right: true}, Col{Head: "p50 µs", Right: true}, Col{Head: "p99 µs", Right: true},
		Col{Head: "wait µs", Right: true, Fold: 7}, Col{Head: "held µs", Right: true, Fold: 2}, Col{Head: "srv vol/q", Right: true},
		Col{Head: "srv invol/q", Right: true}, Col{Head: "aux/q", Right: true, Fold: 1}, Col{Head: "client/q", Right: true},
		Col{Head: "srv CPU µs/q", Right: true, Fold: 4}, Col{Head: "client CPU µs/q", Right: true, Fold: 3}, Col{Head: "srv%", Right: true, Fold: 6},
		Col{Head: "client%", Right: true, Fold: 5}, Col{Head: "flags", Wrap: true})
	t.Indent = 2
	for _, p := range s.Points {
		var flags []string
		if p.ClientBound {
			flags = append(flags, "client-bound")
		}
		if p.ForeignUtil > 0.1 {
			flags = append(flags, "busy "+units.Percent(p.ForeignUtil*100, 0))
		}
		for _, win := range p.Windows {
			if !win.Conns.Stable {
				flags = append(flags, "reconnected")
				break
			}
		}
		var srvCPU *float64
		if v := p.PerQuery.ServerCPUNs; v != nil {
			x := *v / 1e3
			srvCPU = &x
		}
		t.Row(fmt.Sprint(p.Pool), units.Fixed(p.QPS.Median, 0),
			units.Fixed(p.LatencyNs.P50.Median/1e3, 0), units.Fixed(p.LatencyNs.P99.Median/1e3, 0), units.Fixed(p.PoolWaitNs/1e3, 0), units.Fixed(p.HeldNs/1e3, 0),
			num(p.PerQuery.ServerVoluntary, 2), num(p.PerQuery.ServerInvoluntary, 2), num(p.PerQuery.ServerAux, 3),
			units.Fixed(p.PerQuery.ClientVoluntary+p.PerQuery.ClientInvoluntary, 2), num(srvCPU, 1),
			units.Fixed(p.PerQuery.ClientCPUNs/1e3, 1), units.Fixed(p.ServerUtil*100, 0), units.Fixed(p.ClientUtil*100, 0), strings.Join(flags, ", "))
	}
	return t
}

// poolKnee is a series' knee with its interval, the peak, Kneedle's knee
// and the USL fit.
func poolKnee(s result.PoolSeries) string {
	u := s.Uncertainty
	line := fmt.Sprintf("knee: N95 = %d", s.Knee.N95)
	if u != nil && u.N95 != nil {
		line += fmt.Sprintf(" [%d, %d]", u.N95[0], u.N95[1])
	}
	line += fmt.Sprintf(", peak %s q/s at pool %d", units.Fixed(s.Knee.PeakX, 0), s.Knee.PeakN)
	switch {
	case s.Knee.Kneedle != nil:
		line += fmt.Sprintf(", Kneedle %d", *s.Knee.Kneedle)
	case u != nil && u.Resamples > 0:
		line += ", no Kneedle knee"
	}
	if s.USL != nil && s.USL.Error == "" {
		nstar := "-"
		if s.USL.NStar != nil {
			nstar = units.Fixed(*s.USL.NStar, 0)
		}
		line += fmt.Sprintf("; USL λ=%s α=%s%s β=%s%s N*=%s R²=%s", units.Fixed(s.USL.Lambda, 0), units.Digits(s.USL.Alpha, 3), pair(u, true),
			units.Digits(s.USL.Beta, 3), pair(u, false), nstar, units.Fixed(s.USL.R2, 2))
	}
	return line
}

// pair is a USL parameter's bootstrap interval (alpha or beta), or "".
func pair(u *result.PoolShapeUncertainty, alpha bool) string {
	if u == nil {
		return ""
	}
	iv := u.Beta
	if alpha {
		iv = u.Alpha
	}
	if iv == nil {
		return ""
	}
	return " [" + units.Digits(iv[0], 3) + ", " + units.Digits(iv[1], 3) + "]"
}
