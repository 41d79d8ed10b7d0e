package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// loadView is the load section of one run: per series, latency against
// the achieved utilisation — the wake-up in one panel, the request latency
// corrected (solid) and uncorrected (dashed) in another — one curve per
// percentile with its interval as a whisker, and the levels' table.
type loadView struct {
	Run    *runView
	Series []loadSeriesView
	Notes  []string
}

type loadSeriesView struct {
	Title, Label string
	Panels       []Fig
	Rows         []loadRow
	Knee         string
	Reference    string
	// Captures are the levels' captured slow wake-ups (--capture-above).
	Captures []levelCapture
}

type levelCapture struct {
	Level   string
	Capture *captureView
}

// loadRow is one level in the levels' table. Each percentile is its value
// with its interval under it (a cell of value and interval side by side
// made the table wider than a laptop's page).
type loadRow struct {
	Level, Util, Rate, Status         string
	WakeP50, WakeP99, ReqP99, ReqP99U pctCell
	ReqP999, ReqP999U, Lag            pctCell
	Notes                             []int
}

// pctCell is a percentile as a cell: its value, and its interval ("" where
// not asked for or not measured).
type pctCell struct{ Value, Interval string }

// The percentiles drawn, and the class that colours each.
var loadCurves = []struct{ name, class string }{{"p50", "pc50"}, {"p90", "pc90"}, {"p99", "pc99"}, {"p99_9", "pc999"}}

func loadViews(runs []*runView) []loadView {
	var out []loadView
	for _, rv := range runs {
		if len(rv.Doc.Loads) == 0 {
			continue
		}
		var notes noteSet
		v := loadView{Run: rv}
		for _, s := range rv.Doc.Loads {
			sv := loadSeriesView{Title: fmt.Sprintf("%s · %s · %d contexts · %s of work · %s arrivals", s.Name, s.Placement, s.Contexts, units.Time(s.WorkNS), s.Arrivals), Label: s.Label}
			sv.Panels = append(sv.Panels,
				loadPanel(s, "wake-up (post → running)", func(l *result.LoadLevel) (*result.LoadLatency, *result.LoadLatency) { return &l.Wakeup, nil }),
				loadPanel(s, "request: corrected (solid) and uncorrected (dashed)", func(l *result.LoadLevel) (*result.LoadLatency, *result.LoadLatency) {
					return &l.Corrected, &l.Uncorrected
				}))
			for _, l := range s.Levels {
				r := loadRow{Level: l.LevelName(), Util: units.Percent(100*l.AchievedUtilization, 1), Rate: units.Rate(l.AchievedRate), Status: l.Status,
					Lag: pctOf(l.GeneratorLag.P99, false)}
				if l.Reported() {
					r.WakeP50, r.WakeP99 = pctOf(l.Wakeup.P50, true), pctOf(l.Wakeup.P99, true)
					r.ReqP99, r.ReqP99U = pctOf(l.Corrected.P99, true), pctOf(l.Uncorrected.P99, false)
					r.ReqP999, r.ReqP999U = pctOf(l.Corrected.P99_9, true), pctOf(l.Uncorrected.P99_9, false)
				} else {
					r.Status = "behind: " + l.StatusReason
				}
				for _, f := range l.Flags {
					r.Notes = append(r.Notes, notes.add(fmt.Sprintf("%s %s %s: %s", s.Name, s.Placement, l.LevelName(), f.Message)))
				}
				sv.Rows = append(sv.Rows, r)
				if c := captureOf(l.Capture); c != nil {
					sv.Captures = append(sv.Captures, levelCapture{Level: l.LevelName(), Capture: c})
				}
			}
			for _, f := range s.Flags {
				notes.add(fmt.Sprintf("%s %s: %s", s.Name, s.Placement, f.Message))
			}
			if k := s.Knee; k != nil {
				switch {
				case k.Utilization != nil && k.Low != nil && k.High != nil:
					sv.Knee = fmt.Sprintf("The tail departs (corrected p99 at %s× the lightest level's %s) at %s utilisation, 95%% interval %s–%s.", units.Sig(k.Factor), units.Time(k.BaseNS),
						units.Percent(100**k.Utilization, 0), units.Percent(100**k.Low, 0), units.Percent(100**k.High, 0))
				case k.Utilization != nil:
					sv.Knee = fmt.Sprintf("The tail departs (corrected p99 at %s× the lightest level's %s) at %s utilisation. %s", units.Sig(k.Factor), units.Time(k.BaseNS),
						units.Percent(100**k.Utilization, 0), k.Note)
				default:
					sv.Knee = "Knee: " + k.Note + "."
				}
			}
			if r := s.Reference; r != nil {
				sv.Reference = fmt.Sprintf("Beside it, the ladder's %s %s hop in the same sitting: %s; the wake-up p50 at %s utilisation is %s, %s× that.", r.Name, r.Placement,
					units.Time(r.HopNS), units.Percent(100*r.Utilization, 1), units.Time(r.WakeupP50NS), units.Sig(r.Ratio))
			}
			v.Series = append(v.Series, sv)
		}
		v.Notes = notes.list
		out = append(out, v)
	}
	return out
}

func pctText(p *result.Percentile, interval bool) string {
	c := pctOf(p, interval)
	if c.Interval == "" {
		return c.Value
	}
	return c.Value + " " + c.Interval
}

// pctOf is a percentile as a table cell: its value, and its interval where
// asked for and measured; "—" where the percentile was not measured.
func pctOf(p *result.Percentile, interval bool) pctCell {
	if p == nil {
		return pctCell{Value: "—"}
	}
	c := pctCell{Value: units.Time(p.NS)}
	if interval && p.CILow != nil && p.CIHigh != nil {
		c.Interval = "[" + units.ShortTime(*p.CILow) + ", " + units.ShortTime(*p.CIHigh) + "]"
	}
	return c
}

// loadPanel draws latency (log) against the achieved utilisation (linear,
// 0–100%), one curve per percentile, each point's interval a whisker;
// levels that did not keep their schedule are left out.
func loadPanel(s result.LoadSeries, title string, get func(l *result.LoadLevel) (*result.LoadLatency, *result.LoadLatency)) Fig {
	p := newPlot(2*panelW, panelH+40, fmt.Sprintf("%s %s: %s latency against utilisation, one curve per percentile", s.Name, s.Placement, title))
	lo, hi := math.Inf(1), 0.0
	for i := range s.Levels {
		l := &s.Levels[i]
		if !l.Reported() {
			continue
		}
		a, b := get(l)
		for _, lat := range []*result.LoadLatency{a, b} {
			if lat == nil {
				continue
			}
			for _, pc := range lat.Percentiles() {
				if pc.P != nil {
					lo, hi = math.Min(lo, pc.P.NS), math.Max(hi, pc.P.NS)
					if pc.P.CIHigh != nil {
						hi = math.Max(hi, *pc.P.CIHigh)
					}
				}
			}
		}
	}
	if math.IsInf(lo, 1) {
		lo, hi = 1e3, 1e6
	}
	ylo, yhi := logDomain(lo, hi, 10)
	p.x = scale{lo: 0, hi: 1, from: p.left + 4, to: p.right - 4}
	p.y = scale{log: true, lo: ylo, hi: yhi, from: p.bot, to: p.top}
	xt, _, _ := linTicks(0, 1, 5, func(v float64) string { return units.Percent(100*v, 0) })
	p.axes(title, "achieved utilisation of the contexts' CPUs", "latency (log)", xt, logTicks(ylo, yhi, units.ShortTime))
	for _, c := range loadCurves {
		for side, dashed := range []bool{false, true} {
			xs, ys := []float64{}, []float64{}
			var marks []Elem
			for i := range s.Levels {
				l := &s.Levels[i]
				if !l.Reported() {
					continue
				}
				a, b := get(l)
				lat := a
				if dashed {
					lat = b
				}
				if lat == nil {
					continue
				}
				var pc *result.Percentile
				for _, x := range lat.Percentiles() {
					if x.Name == c.name {
						pc = x.P
					}
				}
				if pc == nil {
					continue
				}
				x, y := p.x.pos(l.AchievedUtilization), p.y.pos(pc.NS)
				xs, ys = append(xs, x), append(ys, y)
				tip := fmt.Sprintf("%s %s at %s (%s achieved): %s %s", s.Name, l.LevelName(), units.Rate(l.AchievedRate), units.Percent(100*l.AchievedUtilization, 1), c.name, pctText(pc, true))
				if dashed {
					tip += " (uncorrected: from the post)"
				}
				var g []Elem
				if pc.CILow != nil && pc.CIHigh != nil {
					g = append(g, line(x, p.y.clampPos(*pc.CILow), x, p.y.clampPos(*pc.CIHigh), "wh"))
				}
				shape := "circle"
				if dashed {
					shape = "square"
				}
				g = append(g, marker(shape, x, y, 3, "mk"))
				marks = append(marks, group(tip, g...))
			}
			if len(xs) == 0 {
				continue
			}
			cls := "ln"
			if dashed {
				cls = "ln unc"
			}
			e := group("", append(polyline(xs, ys, cls), marks...)...)
			e.Class = c.class
			_ = side
			p.add(e)
		}
	}
	// the legend, in the panel
	for i, c := range loadCurves {
		x := p.left + 10 + float64(i)*70
		g := group("", line(x, p.top+8, x+18, p.top+8, "ln"), text(x+22, p.top+11, strings.ReplaceAll(c.name, "_", "."), "start", "tick"))
		g.Class = c.class
		p.add(g)
	}
	return p.fig
}
