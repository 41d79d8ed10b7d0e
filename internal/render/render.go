// Package render turns result documents into what people read: the
// terminal tables of every command, CSV, Markdown and the Go benchmark
// format (which benchstat reads), and compare's formats; the HTML report is
// its subpackage. Renderers only render: every figure they show, derived
// ones included, is in the document (or, for compare, in the comparison);
// they import no measuring code, only result, units, stats and compare.
package render

import (
	"fmt"
	"slices"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Style controls terminal output.
type Style struct {
	Color bool
}

// Paint colours text with an ANSI SGR code when the style has colour.
func (s Style) Paint(code, text string) string {
	if !s.Color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// baseline is the document's baseline row, or nil.
func baseline(d *result.Document) *result.BaselineRef {
	if d.Derived == nil {
		return nil
	}
	return d.Derived.Baseline
}

func switchesCell(r result.Result) string {
	if r.SwitchesPerHop == nil {
		return "—"
	}
	mark := "✓"
	if !r.Verification.Verified {
		mark = "✗"
	}
	return units.Fixed(*r.SwitchesPerHop, 2) + " " + mark
}

// multiple renders a row's multiple of the baseline row b. Where the
// multiple was taken round by round it shows that figure, the median of the
// per-round ratios, because its interval (multiple_interval) belongs to it:
// the ratio of the two medians can fall outside that interval. The level is
// given where it is not 95%; ≈ marks an interval that holds 1× (the row is
// not resolved from the baseline here). A row whose blocks could not be
// paired has no interval and shows the ratio of the medians.
func multiple(r result.Result, b *result.BaselineRef) string {
	if r.Multiple == nil {
		return "—"
	}
	iv := r.MultipleInterval
	if iv == nil {
		return units.Multiple(*r.Multiple)
	}
	s := units.Multiple(iv.Median)
	if iv.Holds(1) && !isBaseline(r, b) {
		s = "≈" + s // its own mark: "~" means noisy in the ±CI column
	}
	s += LevelMark(iv.Confidence)
	return s
}

// isBaseline says r is the baseline row itself (its multiple is 1 by
// definition, not a finding).
func isBaseline(r result.Result, b *result.BaselineRef) bool {
	return b != nil && r.Name == b.Name && r.Placement == b.Placement
}

// multipleLegend explains the × column: what the baseline is, which figure
// the column shows, and its marks.
func multipleLegend(rs []result.Result, b *result.BaselineRef, head, name string) string {
	s := fmt.Sprintf("%s: multiple of %s, %s; taken round by round (the blocks of both rows ran in the same rounds): the median of the per-round ratios, whose interval is in the JSON (multiple_interval), @N%% its level where not 95%%; ≈ where that interval holds 1× (not resolved from the baseline here)", head, name, b.Why)
	for _, r := range rs {
		if r.Multiple != nil && r.MultipleInterval == nil {
			s += "; rows whose blocks could not be paired by round show the ratio of the two medians, without an interval"
			break
		}
	}
	return s + "."
}

// rangeIn renders "p10–p90" in the unit of the median beside it.
func rangeIn(lo, hi, ref float64) string {
	u := units.TimeUnit(ref)
	return units.In(lo, u) + "–" + units.In(hi, u)
}

// ciPercent is the half-width of the interval of the median as a percentage
// of it ("—" without an interval).
func ciPercent(median, lo, hi, confidence float64) string {
	if median <= 0 || confidence <= 0 {
		return "—"
	}
	s := "±" + units.Percent(100*max(hi-median, median-lo)/median, 0)
	s += LevelMark(confidence)
	return s
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

// LevelMark is how every surface states an interval's level where it is
// below 95% (too few blocks or rounds for one): " @75%", with a decimal
// where rounding would read as 95%; "" at 95% or more, and for no interval
// (confidence 0), whose cell says so itself.
func LevelMark(confidence float64) string {
	if !(confidence > 0) || confidence >= 0.95-1e-9 {
		return ""
	}
	if pct := units.Fixed(100*confidence, 0); pct != "95" {
		return " @" + pct + "%"
	}
	return " @" + units.Percent(100*confidence, 1)
}
