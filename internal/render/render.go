// Package render turns result documents into what people read in a
// terminal: every command's view, laid out by the one table engine
// (internal/render/layout) for the terminal's width; and how a figure reads
// on every surface — its interval and level, its multiple, its marks from
// the one table of marks — which the export formats (internal/render/formats)
// and the HTML report (internal/render/report) take from here. Renderers
// only render: every figure they show, derived ones included, is in the
// document (or, for compare, in the comparison); they import no measuring
// code, only result, units, stats and compare.
package render

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Baseline is the document's baseline row, or nil.
func Baseline(d *result.Document) *result.BaselineRef {
	if d.Derived == nil {
		return nil
	}
	return d.Derived.Baseline
}

// SwitchesCell is a row's counted switches per hop with its mark: ✓
// verified, ✗ flagged; "—" where no kernel switch is expected.
func SwitchesCell(r result.Result, ms MarkSet) string {
	if r.SwitchesPerHop == nil {
		return "—"
	}
	return units.Fixed(*r.SwitchesPerHop, 2) + " " + ms.Use(switchMark(r.Verification.Verified))
}

func switchMark(verified bool) Mark {
	if verified {
		return MarkVerified
	}
	return MarkFlagged
}

// Multiple renders a row's multiple of the baseline row b. Where the
// Multiple was taken round by round it shows that figure, the median of the
// per-round ratios, because its interval (multiple_interval) belongs to it:
// the ratio of the two medians can fall outside that interval. The level is
// given where it differs from stated; ≈ marks an interval that holds 1×
// (the row is not resolved from the baseline here). A row whose blocks
// could not be paired has no interval and shows the ratio of the medians.
func Multiple(r result.Result, b *result.BaselineRef, stated float64, ms MarkSet) string {
	if r.Multiple == nil {
		return "—"
	}
	iv := r.MultipleInterval
	if iv == nil {
		return units.Multiple(*r.Multiple)
	}
	s := units.Multiple(iv.Median)
	if iv.Holds(1) && !isBaseline(r, b) {
		s = ms.Use(MarkUnresolved) + s
	}
	if l := LevelMarkVs(iv.Confidence, stated); l != "" {
		ms.Use(MarkLevel)
		s += l
	}
	return s
}

// MultipleLevel is the level the × column states: its intervals' most
// common.
func MultipleLevel(rs []result.Result) float64 {
	var cs []float64
	for _, r := range rs {
		if r.MultipleInterval != nil {
			cs = append(cs, r.MultipleInterval.Confidence)
		}
	}
	return StatedLevel(cs...)
}

// baselineHead is the × column's head: × GOROUTINE for the published
// table's baseline, else × and the baseline's own name, so that a changed
// baseline is never read as the usual one.
func baselineHead(b *result.BaselineRef) string {
	if b == nil || isPublishedBaseline(b) {
		return "× GOROUTINE"
	}
	n := b.Name
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		n = n[i+1:]
	}
	return "× " + strings.ToUpper(n)
}

// isPublishedBaseline says b is the published hierarchy's 1x, the
// single-threaded goroutine handoff on one CPU.
func isPublishedBaseline(b *result.BaselineRef) bool {
	return b.Name == "goroutine/chan-gomaxprocs1" && b.Placement == "same-cpu"
}

// isBaseline says r is the baseline row itself (its multiple is 1 by
// definition, not a finding).
func isBaseline(r result.Result, b *result.BaselineRef) bool {
	return b != nil && r.Name == b.Name && r.Placement == b.Placement
}

// MultipleLegend explains the × column: what the baseline is (and that it
// is not the published one, where it is not), which figure the column
// shows, and its level.
func MultipleLegend(rs []result.Result, b *result.BaselineRef, head, name string) string {
	s := fmt.Sprintf("%s: multiple of %s, %s", head, name, b.Why)
	if !isPublishedBaseline(b) {
		s += "; NOT the published baseline (goroutine/chan-gomaxprocs1 same-cpu, which this run did not measure), so these multiples do not read against the published ones"
	}
	s += fmt.Sprintf("; taken round by round (the blocks of both rows ran in the same rounds): the median of the per-round ratios, with a %s interval (in the JSON, multiple_interval)", LevelText(MultipleLevel(rs)))
	for _, r := range rs {
		if r.Multiple != nil && r.MultipleInterval == nil {
			s += "; rows whose blocks could not be paired by round show the ratio of the two medians, without an interval"
			break
		}
	}
	return s + "."
}

// RangeIn renders "p10–p90" in the unit of the median beside it.
func RangeIn(lo, hi, ref float64) string {
	u := units.TimeUnit(ref)
	return units.In(lo, u) + "–" + units.In(hi, u)
}

// ciText is a median's interval as percentages of it: "±9%" where both
// sides round alike, else "−2/+40%" (an interval that is not symmetric is
// never shown as a ± that hides one side); its level where it differs from
// the level the view states. "—" without an interval.
func ciText(median, lo, hi, confidence, stated float64) string {
	if median <= 0 || confidence <= 0 {
		return "—"
	}
	return SpanPercent(median, lo, hi) + LevelMarkVs(confidence, stated)
}

// SpanPercent is "±9%" or "−2/+40%": the interval [lo, hi] around median,
// as every surface prints an interval in percent of its figure.
func SpanPercent(median, lo, hi float64) string {
	down := units.Fixed(max(100*(median-lo)/median, 0), 0)
	up := units.Fixed(max(100*(hi-median)/median, 0), 0)
	if down == up {
		return "±" + up + "%"
	}
	return "−" + down + "/+" + up + "%"
}

// Mitigations lists the CPU vulnerabilities the kernel mitigates or is
// exposed to ("Not affected" left out), sorted, as "name: state".
func Mitigations(e result.Environment) []string {
	var out []string
	for k, v := range e.Mitigations {
		if v != "Not affected" {
			out = append(out, k+": "+v)
		}
	}
	slices.Sort(out)
	return out
}

// LevelText is an interval's level as every surface prints it: "95%",
// "75%", and one decimal where a whole number would misread it ("97.9%").
func LevelText(confidence float64) string {
	p := 100 * confidence
	if math.Abs(p-math.Round(p)) < 0.05 {
		return units.Fixed(p, 0) + "%"
	}
	return units.Percent(p, 1)
}

// LevelMark is how every surface states an interval's level where it is not
// 95%: " @75%", " @97.9%"; "" at 95%, and for no interval (confidence 0),
// whose cell says so itself.
func LevelMark(confidence float64) string { return LevelMarkVs(confidence, 0.95) }

// LevelMarkVs marks a level that differs, as printed, from the level the
// view states.
func LevelMarkVs(confidence, stated float64) string {
	if !(confidence > 0) || LevelText(confidence) == LevelText(stated) {
		return ""
	}
	return " @" + LevelText(confidence)
}

// MultipleCell is a row's multiple of d's baseline as the ladder shows it
// (≈ where not resolved, @N% where its level is not the column's).
func MultipleCell(r result.Result, d *result.Document) string {
	return Multiple(r, Baseline(d), MultipleLevel(d.Results), nil)
}

// BaselineHead is the × column's head for d ("× GOROUTINE", or the
// baseline's own name where it is not the published one).
func BaselineHead(d *result.Document) string { return baselineHead(Baseline(d)) }

// StatedLevel is the level a view's heading states for its precision
// intervals: the one most of its rows have (ties: the higher); 0.95 when
// none has an interval.
func StatedLevel(cs ...float64) float64 {
	n := map[string]int{}
	best, bn := 0.95, 0
	for _, c := range cs {
		if !(c > 0) {
			continue
		}
		k := LevelText(c)
		n[k]++
		if n[k] > bn || (n[k] == bn && c > best) {
			best, bn = c, n[k]
		}
	}
	return best
}
