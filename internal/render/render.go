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
	return fmt.Sprintf("%.2f %s", *r.SwitchesPerHop, mark)
}

func multiple(r result.Result) string {
	if r.Multiple == nil {
		return "—"
	}
	s := units.Multiple(*r.Multiple)
	if *r.Multiple != 1 && r.MultipleInterval.Holds(1) {
		s += " ~" // its interval holds 1×: not resolved from the baseline here
	}
	return s
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
	s := fmt.Sprintf("±%.0f%%", 100*max(hi-median, median-lo)/median)
	if confidence < 0.95-1e-9 {
		s += fmt.Sprintf(" @%.0f%%", 100*confidence) // fewer blocks than a 95% interval needs: its level where it is
	}
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
