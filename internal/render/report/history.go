package report

// history.go: the History section (ctxbench report --history). What
// ctxbench history prints as text, drawn: per machine fingerprint, one
// small trend chart per cell, with the steps found in it. The command line
// reads the store and chooses the cells (render.History); this draws them.

import (
	"fmt"
	"math"
	"time"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

const (
	trendW = 520
	trendH = 210
	// trendLabelGap is the fewest pixels between two dates under a trend's
	// axis (a date is about 60 pixels wide).
	trendLabelGap = 80
	trendDate     = "2006-01-02"
	trendTime     = "2006-01-02 15:04"
)

type historyView struct {
	Store    string
	Note     string // why there is no chart at all
	Machines []historyMachineView
}

type historyMachineView struct {
	Title string   // host, CPU and kernel
	Lines []string // the fingerprint, the build and the settings
	Runs  []string // the tags of the report's runs of this fingerprint
	Cells []trendView
}

// trendView is one cell's chart and the lines under it: its steps, or why
// it has none.
type trendView struct {
	Fig      Fig
	Captions []string
}

func buildHistory(h *render.History, runs []*runView) *historyView {
	if h == nil {
		return nil
	}
	v := &historyView{Store: h.Store}
	if len(h.Machines) == 0 {
		v.Note = "No cell of these files is recorded in " + h.Store + ": every measuring run records its figures there, and ctxbench history --import DIR records result files."
	}
	for i := range h.Machines {
		v.Machines = append(v.Machines, machineView(&h.Machines[i], runs))
	}
	return v
}

func machineView(m *render.HistoryMachine, runs []*runView) historyMachineView {
	lines := render.HistoryMachineLines(m)
	// The host line tells machines apart at a glance, so it is the title;
	// the others follow in the order ctxbench history prints them.
	v := historyMachineView{Title: lines[0]}
	if len(lines) > 1 {
		v.Title = lines[1]
		v.Lines = append([]string{lines[0]}, lines[2:]...)
	}
	// The sittings the report's own files recorded (a file's sitting is
	// keyed by its fingerprint and start time) are ringed: they tie the
	// trend to the rest of the report.
	own := map[int64]string{}
	for _, rv := range runs {
		if _, fp, _ := result.FingerprintOf(rv.Doc); fp == m.Fingerprint {
			v.Runs = append(v.Runs, rv.Tag)
			own[rv.Doc.StartedAt.UnixNano()] = rv.Tag
		}
	}
	for i := range m.Cells {
		v.Cells = append(v.Cells, trend(&m.Cells[i], own))
	}
	return v
}

// trend draws one cell's sittings. x is the sitting's rank, not its date:
// sittings come in bursts (several in an hour) and gaps (none for weeks),
// so on a time axis a burst's points and intervals would lie on top of each
// other while a gap took the width; and a step is found between
// neighbouring sittings (stats.Steps works on their order), whatever time
// lies between them. The dates are under the axis and in every tooltip.
func trend(c *render.HistoryCell, own map[int64]string) trendView {
	name := c.Name + " " + c.Placement + " CPUs " + c.CPUs
	p := newPlot(trendW, trendH, fmt.Sprintf("%s over %d sitting(s)", name, len(c.Points)))
	p.x = scale{lo: 0, hi: float64(max(len(c.Points)-1, 0)), from: p.left + 12, to: p.right - 12}
	lv := levels(c)
	lo, hi, yt := trendAxis(c.Points, lv)
	p.y = scale{log: true, lo: lo, hi: hi, from: p.bot, to: p.top}
	p.axes(name, "sittings in order, evenly spaced (dates UTC)", "ns per hop (log)", dateTicks(c.Points, p.x), yt)
	for _, l := range lv {
		y := p.y.pos(l.value)
		e := group(fmt.Sprintf("level of %d sitting(s): %s (geometric mean of their medians)", l.n, units.Time(l.value)),
			line(p.x.pos(float64(l.from)), y, p.x.pos(float64(l.to)), y, "kneedle"))
		e.Class = "level"
		p.add(e)
	}
	for _, s := range c.Steps {
		p.add(stepMarker(p, c.Points, s))
	}
	p.add(sittingMarks(p, c.Points, own))
	return trendView{Fig: p.fig, Captions: trendCaptions(c)}
}

// trendAxis is a trend's y domain and ticks. The axis is logarithmic, like
// every time axis of the report: a step is a ratio, and reads as the same
// height at any level. The domain holds the medians and levels, widened to
// at least ±5% about their middle, so that a flat series is drawn flat
// rather than blown up until its noise fills the panel. Intervals are left
// out of it (one wide interval would flatten every median) and clamped to
// it. Under a 4× range the ticks are round times, above it decades.
func trendAxis(ps []render.HistoryPoint, lv []level) (lo, hi float64, ticks []tick) {
	lo, hi = math.Inf(1), math.Inf(-1)
	widen := func(v float64) {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	for _, pt := range ps {
		widen(pt.Median)
	}
	for _, l := range lv {
		widen(l.value)
	}
	if math.IsInf(lo, 1) { // nothing to draw: an axis all the same
		return 1, 10, logTicks(1, 10, units.ShortTime)
	}
	mid := math.Sqrt(lo * hi)
	lo, hi = math.Min(lo/1.03, mid/1.05), math.Max(hi*1.03, mid*1.05)
	if hi/lo >= 4 {
		lo, hi = logDomain(lo, hi, 10)
		return lo, hi, logTicks(lo, hi, units.ShortTime)
	}
	all, start, end := linTicks(lo, hi, 4, units.ShortTime)
	if start > 0 { // a log axis has no zero
		lo = start
	}
	hi = end
	for _, t := range all {
		if t.V >= lo*0.9999 && t.V <= hi*1.0001 {
			ticks = append(ticks, t)
		}
	}
	return lo, hi, ticks
}

// dateTicks mark the first sitting of each date (UTC), left to right,
// where its label stays trendLabelGap pixels clear of the one before: a
// grid line is where a new day begins, and the labels never overlap.
func dateTicks(ps []render.HistoryPoint, x scale) []tick {
	var out []tick
	day, lastX := "", math.Inf(-1)
	for i, pt := range ps {
		d, at := pt.At.UTC().Format(trendDate), x.pos(float64(i))
		newDay := d != day
		day = d
		if newDay && at-lastX >= trendLabelGap {
			out = append(out, tick{V: float64(i), Label: d, Major: true})
			lastX = at
		}
	}
	return out
}

// level is one stretch between steps: its first and last sitting and its
// level, the geometric mean of its uncontended medians (the levels whose
// ratio stats.Steps reports as a step's change).
type level struct {
	from, to int
	value    float64
	n        int
}

func levels(c *render.HistoryCell) []level {
	if len(c.Steps) == 0 {
		return nil
	}
	var out []level
	start := 0
	for k := 0; k <= len(c.Steps); k++ {
		end := len(c.Points)
		if k < len(c.Steps) {
			end = firstAt(c.Points, c.Steps[k].At)
		}
		var meds []float64
		for _, pt := range c.Points[start:end] {
			if !pt.Contended && pt.Median > 0 && !math.IsInf(pt.Median, 0) {
				meds = append(meds, pt.Median)
			}
		}
		if len(meds) > 0 {
			out = append(out, level{from: start, to: end - 1, value: stats.Geomean(meds), n: len(meds)})
		}
		start = end
	}
	return out
}

// firstAt is the index of the first sitting at or after t (the points are
// oldest first).
func firstAt(ps []render.HistoryPoint, t time.Time) int {
	for i, pt := range ps {
		if !pt.At.Before(t) {
			return i
		}
	}
	return len(ps)
}

// stepMarker is a dashed line at the step's first sitting with its change
// above; the tooltip is the whole caption.
func stepMarker(p *plot, ps []render.HistoryPoint, s render.HistoryStep) Elem {
	x := p.x.pos(float64(min(firstAt(ps, s.At), max(len(ps)-1, 0))))
	lx, anchor := x+3, "start"
	if x > (p.left+p.right)/2 {
		lx, anchor = x-3, "end"
	}
	e := group(stepCaption(s), line(x, p.top, x, p.bot, "knee"), text(lx, p.top+9, units.Change(s.Change), anchor, "knee-label"))
	e.Class = "step"
	return e
}

// sittingMarks draws each sitting's median and interval; a contended
// sitting is hollow, a sitting of the report's own files ringed.
func sittingMarks(p *plot, ps []render.HistoryPoint, own map[int64]string) Elem {
	r := 3.5
	if n := len(ps); n > 1 && math.Abs(p.x.to-p.x.from)/float64(n-1) < 9 {
		r = 2.2 // many sittings: marks that do not cover each other
	}
	var g []Elem
	for i, pt := range ps {
		x, y := p.x.pos(float64(i)), p.y.pos(pt.Median)
		if math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		var parts []Elem
		if pt.Low != nil && pt.High != nil {
			parts = append(parts, line(x, p.y.clampPos(*pt.Low), x, p.y.clampPos(*pt.High), "wh"))
		}
		title := sittingTitle(pt)
		cls := "mk"
		if pt.Contended {
			cls = "mk hollow"
		}
		if tag, ok := own[pt.At.UnixNano()]; ok {
			parts = append(parts, marker("circle", x, y, r+3.5, "kneedle"))
			title += "\nthe sitting of run " + tag + " of this report"
		}
		e := group(title, append(parts, marker("circle", x, y, r, cls))...)
		e.Class = "sitting"
		g = append(g, e)
	}
	e := group("", g...)
	e.Class = "k-thread"
	return e
}

func sittingTitle(pt render.HistoryPoint) string {
	s := pt.At.UTC().Format(trendTime) + " UTC: " + units.Time(pt.Median)
	if pt.Low != nil && pt.High != nil {
		s += " [" + units.Time(*pt.Low) + ", " + units.Time(*pt.High) + "] at " + units.Percent(100*pt.Confidence, 0)
	} else {
		s += " (no interval recorded)"
	}
	s += fmt.Sprintf(", %d block(s)", pt.Blocks)
	if pt.Contended {
		s += "\ncontended (other work took the measured CPU): not searched for steps"
	}
	return s
}

// trendCaptions are the lines under a chart: each step, or why there is
// none, and how many sittings were left out of the search.
func trendCaptions(c *render.HistoryCell) []string {
	var out []string
	for _, s := range c.Steps {
		out = append(out, stepCaption(s))
	}
	switch {
	case len(c.Points) == 1:
		out = append(out, "one sitting: no trend yet")
	case !c.Searched:
		out = append(out, fmt.Sprintf("steps not searched: %d clean sitting(s); a step needs %d on each side", c.Clean(), stats.MinSegment))
	case len(c.Steps) == 0:
		out = append(out, fmt.Sprintf("no step in %d clean sittings", c.Clean()))
	}
	if k := len(c.Points) - c.Clean(); k > 0 {
		out = append(out, fmt.Sprintf("%d contended sitting(s), hollow: shown, not searched for steps", k))
	}
	return out
}

func stepCaption(s render.HistoryStep) string {
	return fmt.Sprintf("step at %s UTC: %s [%s, %s] at %s (%d sittings before, %d after)", s.At.UTC().Format(trendTime),
		units.Change(s.Change), units.Change(s.Low), units.Change(s.High), units.Percent(100*s.Confidence, 0), s.Before, s.After)
}
