package render

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/units"
)

// CompareRowUnit picks one unit for a whole row, from its first figure, so the
// cells of a row read against each other without converting.
func CompareRowUnit(r *compare.Row) units.Unit {
	for _, c := range r.Cells {
		if c.Present {
			return units.TimeUnit(c.Summary.Median)
		}
	}
	return units.TimeUnit(0)
}

// CompareRows are a table's rows, then its geomean row where it has one.
func CompareRows(t *compare.Table) []*compare.Row {
	if t.Geomean == nil {
		return t.Rows
	}
	return append(slices.Clone(t.Rows), t.Geomean)
}

// formatCell renders "median ±CI%" in unit u ("± ∞" without an interval),
// the level where it is not 95%.
func formatCell(c compare.Cell, u units.Unit, geo bool, stated float64) string {
	if !c.Present {
		return "—"
	}
	v := units.In(c.Summary.Median, u) + " " + u.Name
	if geo {
		return v
	}
	if math.IsNaN(compare.CIPercent(c.Summary)) {
		return v + " ± ∞"
	}
	// ±a% where both sides round alike, else −a/+b%: never a ± that
	// hides one side.
	return v + " " + SpanPercent(c.Summary.Median, c.Summary.CILow, c.Summary.CIHigh) + LevelMarkVs(c.Summary.Confidence, stated)
}

// CompareDelta renders a change with its interval: "+7.1% [+3.0%, +11.4%]
// n=10", or "≈ [−2.0%, +3.1%] n=10" when the interval contains no change;
// n counts blocks (or samples, for files that did not record blocks, with
// a footnote).
func CompareDelta(d compare.Delta) string {
	if !d.Present {
		return ""
	}
	if !d.Tested {
		return units.SignedPercent(100*d.Change, 2)
	}
	n := strconv.Itoa(d.N1)
	if d.N1 != d.N2 {
		n += "+" + strconv.Itoa(d.N2)
	}
	ch := MarkUnresolved.Symbol
	if d.Significant {
		ch = units.SignedPercent(100*d.Change, 1)
	}
	if d.HostAdjusted {
		ch += MarkHost.Symbol
	}
	if d.Hi == d.Lo && d.Lo == 0 && d.Confidence == 0 {
		return fmt.Sprintf("%s (no interval) n=%s", ch, n)
	}
	return fmt.Sprintf("%s [%s, %s] n=%s", ch, units.SignedPercent(100*d.Lo, 1), units.SignedPercent(100*d.Hi, 1), n)
}

// CompareHostAdjusted says a comparison tested any change on host-adjusted
// figures (its views then explain MarkHost).
func CompareHostAdjusted(c *compare.Comparison) bool {
	for _, t := range c.Tables {
		if t.HostAdjusted > 0 {
			return true
		}
	}
	return false
}

var superscripts = []rune("⁰¹²³⁴⁵⁶⁷⁸⁹")

// Footnotes renders footnote numbers as superscripts.
func Footnotes(notes []int) string {
	var b strings.Builder
	for i, n := range notes {
		if i > 0 {
			b.WriteString("˒")
		}
		for _, d := range strconv.Itoa(n) {
			b.WriteRune(superscripts[d-'0'])
		}
	}
	return b.String()
}

func WithFootnotes(s string, notes []int) string {
	if len(notes) == 0 {
		return s
	}
	return s + " " + Footnotes(notes)
}

// CompareHeader names the cells of a column: the input's label and, when rows are
// matched by name only and the column holds one placement, that placement.
func CompareHeader(c *compare.Comparison, i int) string {
	if p := cmpColumnPlacement(c, i); p != "" {
		return c.Inputs[i].Label + " (" + p + ")"
	}
	return c.Inputs[i].Label
}

// cmpColumnPlacement is the one placement of column i when rows are matched by
// name only, or "" (placements matched, or mixed in the column).
func cmpColumnPlacement(c *compare.Comparison, i int) string {
	if !c.IgnorePlacement {
		return ""
	}
	p := ""
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			if cell := r.Cells[i]; cell.Present {
				if p != "" && p != cell.Placement {
					return ""
				}
				p = cell.Placement
			}
		}
	}
	return p
}

// CompareCell renders a cell; with rows matched by name only and a column of
// mixed placements, the cell says its placement.
func CompareCell(c *compare.Comparison, i int, cell compare.Cell, u units.Unit, geo bool) string {
	s := formatCell(cell, u, geo, cellLevel(c))
	if c.IgnorePlacement && cell.Present && cell.Placement != "" && cmpColumnPlacement(c, i) == "" {
		s += " [" + cell.Placement + "]"
	}
	return WithFootnotes(s, cell.Notes)
}

// cellLevel is the level the comparison's cells state: the one most of
// them have.
func cellLevel(c *compare.Comparison) float64 {
	var cs []float64
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for _, cell := range r.Cells {
				if cell.Present {
					cs = append(cs, cell.Summary.Confidence)
				}
			}
		}
	}
	return StatedLevel(cs...)
}

// CompareOtherLevels says some cell's interval has a level other than the one
// the cells state (so it carries @N%).
func CompareOtherLevels(c *compare.Comparison) bool {
	stated := cellLevel(c)
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for _, cell := range r.Cells {
				if cell.Present && LevelMarkVs(cell.Summary.Confidence, stated) != "" {
					return true
				}
			}
		}
	}
	return false
}

// CompareUnshared says, for a table of several inputs none of whose rows is in
// two of them, where its rows are (listing them would compare nothing);
// "" otherwise.
func CompareUnshared(c *compare.Comparison, t *compare.Table) string {
	if len(c.Inputs) < 2 {
		return ""
	}
	for _, r := range t.Rows {
		n := 0
		for _, cell := range r.Cells {
			if cell.Present {
				n++
			}
		}
		if n > 1 {
			return ""
		}
	}
	var parts []string
	for i, in := range c.Inputs {
		n := 0
		for _, r := range t.Rows {
			if r.Cells[i].Present {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d in %s", n, in.Label))
		}
	}
	return fmt.Sprintf("%s: no row is in two files (%s); nothing to compare", t.Title, strings.Join(parts, ", "))
}

// CompareLegend says what a comparison's cells and changes are: per file, the
// median with the precision interval and changes on blocks; for sets of
// files, each set's geometric mean over its sittings and changes with the
// sittings as the unit.
func CompareLegend(c *compare.Comparison, cells, vs string) string {
	level := units.Digits(100*(1-c.Alpha), -1) + "%"
	if c.Sets != nil {
		return fmt.Sprintf("%s: each set's geometric mean of its sittings' medians ± the 95%% interval of that mean; %s: change [%s interval], sittings as the unit, n = sittings", cells, vs, level)
	}
	return fmt.Sprintf("%s: median and the %s interval of the median (blocks as the unit), ±a%% or −a/+b%% of it; %s: change [%s interval], Hodges–Lehmann on block medians, n = blocks", cells, LevelText(cellLevel(c)), vs, level)
}

// CompareText prints the comparison as benchstat does: the shared
// configuration, then one table per kind of figure, then footnotes and
// warnings.
func CompareText(w io.Writer, c *compare.Comparison) error {
	for _, s := range c.Shared {
		fmt.Fprintln(w, s)
	}
	fmt.Fprintf(w, "%s\n", CompareLegend(c, "cells", "vs base"))
	fmt.Fprintln(w, MarkUnresolved.Symbol+" "+MarkUnresolved.Legend)
	if CompareOtherLevels(c) {
		fmt.Fprintln(w, MarkLevel.Symbol+" "+MarkLevel.Legend)
	}
	if CompareHostAdjusted(c) {
		fmt.Fprintln(w, MarkHost.Symbol+" "+MarkHost.Legend)
	}
	for _, t := range c.Tables {
		fmt.Fprintln(w)
		if msg := CompareUnshared(c, t); msg != "" {
			fmt.Fprintln(w, msg)
			continue
		}
		writeTextTable(w, c, t)
	}
	writePhaseChanges(w, c)
	writeAttachChanges(w, c)
	if len(c.Notes) > 0 {
		fmt.Fprintln(w)
		for i, n := range c.Notes {
			fmt.Fprintf(w, "%s %s\n", Footnotes([]int{i + 1}), n)
		}
	}
	if len(c.EnvDiffs)+len(c.Hints)+len(c.Synthetic) > 0 {
		fmt.Fprintln(w)
	}
	for _, l := range c.Synthetic {
		fmt.Fprintf(w, "warning: %s is a dry run: its figures are synthetic, nothing was measured\n", l)
	}
	for _, d := range c.EnvDiffs {
		fmt.Fprintf(w, "warning: %s\n", d)
	}
	if len(c.EnvDiffs) > 0 && len(c.Inputs) > 1 {
		fmt.Fprintln(w, "         a change across different environments is not a change of ctxbench's figures alone")
	}
	for _, h := range c.Hints {
		fmt.Fprintf(w, "note: %s\n", h)
	}
	return nil
}

// writeTextTable prints a comparison table side by side, as benchstat
// does: the rows' names, then a group of columns per input headed by its
// label (its figure, and after the base its change). Where that is wider
// than the terminal it prints the long table instead.
func writeTextTable(w io.Writer, c *compare.Comparison, t *compare.Table) {
	st := styleOf(w)
	tb := sideBySide(c, t)
	if !st.Wide && tb.Width() > st.Columns() {
		writeLongTable(w, c, t, st)
		return
	}
	tb.Write(w, st)
}

// sideBySide is the side-by-side table of t: a group of the names (titled
// by the table), then a group per input.
func sideBySide(c *compare.Comparison, t *compare.Table) *Table {
	names := 1
	cols := []Col{{}}
	if !c.IgnorePlacement {
		names++
		cols = append(cols, Col{})
	}
	groups := []Group{{Head: t.Title, Cols: names}}
	for i := range c.Inputs {
		cols = append(cols, Col{Head: t.Unit})
		g := Group{Head: CompareHeader(c, i), Cols: 1}
		if i > 0 {
			cols = append(cols, Col{Head: "vs base"})
			g.Cols++
		}
		groups = append(groups, g)
	}
	tb := &Table{Cols: cols, Groups: groups}
	for _, r := range CompareRows(t) {
		geo := r == t.Geomean
		u := CompareRowUnit(r)
		cells := []string{r.Name}
		if !c.IgnorePlacement {
			cells = append(cells, r.Placement)
		}
		for i := range c.Inputs {
			cells = append(cells, CompareCell(c, i, r.Cells[i], u, geo))
			if i > 0 {
				cells = append(cells, WithFootnotes(CompareDelta(r.Deltas[i]), r.Deltas[i].Notes))
			}
		}
		tb.Row(cells...)
	}
	return tb
}

// writeLongTable is a comparison table too wide for the terminal side by
// side: one line per row and input, the inputs by their letter (named in
// one line above), each file after the base with its change.
func writeLongTable(w io.Writer, c *compare.Comparison, t *compare.Table, st Style) {
	var names []string
	for i := range c.Inputs {
		names = append(names, fmt.Sprintf("%s = %s", inputTag(i), CompareHeader(c, i)))
	}
	fmt.Fprintf(w, "%s (%s; %s)\n", t.Title, t.Unit, strings.Join(names, ", "))
	cols := []Col{{Head: "BENCHMARK", Wrap: true, Min: 16}}
	if !c.IgnorePlacement {
		cols = append(cols, Col{Head: "PLACEMENT"})
	}
	cols = append(cols, Col{Head: "FILE"}, Col{Head: "MEDIAN ± CI", Right: true}, Col{Head: "VS BASE", Wrap: true, Min: 18})
	tb := NewTable(cols...)
	for _, r := range CompareRows(t) {
		geo := r == t.Geomean
		u := CompareRowUnit(r)
		for i := range c.Inputs {
			name, pl := "", ""
			if i == 0 {
				name, pl = r.Name, r.Placement
				if geo {
					name = "geomean"
				}
			}
			cells := []string{name}
			if !c.IgnorePlacement {
				cells = append(cells, pl)
			}
			delta := ""
			if i > 0 {
				delta = WithFootnotes(CompareDelta(r.Deltas[i]), r.Deltas[i].Notes)
			}
			tb.Row(append(cells, inputTag(i), CompareCell(c, i, r.Cells[i], u, geo), delta)...)
		}
	}
	tb.Write(w, st)
}

// inputTag is the letter of the i-th input (A is the base).
func inputTag(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("R%d", i+1)
}

// writePhaseChanges prints, for every row both files explained, the change
// of each kernel phase per hop (ctxbench explain), largest first: a table
// whose phase names wrap in their column, and whose untraced columns leave
// first on a narrow terminal.
func writePhaseChanges(w io.Writer, c *compare.Comparison) {
	st := styleOf(w)
	for _, pc := range c.Phases {
		scale := ""
		if pc.Untraced {
			scale = "; beside it on the untraced scale, the probes' cost per firing taken out"
		}
		prose(w, st, "\nphases of %s %s, %s against %s (ns per hop on the kernel's clock, largest change first%s):\n", pc.Name, pc.Placement, pc.Input, c.Inputs[0].Label, scale)
		ps := slices.Clone(pc.Phases)
		slices.SortStableFunc(ps, func(a, b compare.PhaseDelta) int {
			return cmp.Compare(math.Abs(b.CurNS-b.BaseNS), math.Abs(a.CurNS-a.BaseNS))
		})
		const shown = 8
		cols := []Col{{Head: "CHANGE", Right: true}, {Head: "BASE → THIS", Right: true}}
		if pc.Untraced {
			cols = append(cols, Col{Head: "UNTRACED", Right: true, Fold: 2}, Col{Head: "BASE → THIS", Right: true, Fold: 1})
		}
		t := NewTable(append(cols, Col{Head: "PHASE", Wrap: true, Min: 20, NarrowAt: 3})...)
		t.Indent = 2
		for _, p := range ps[:min(shown, len(ps))] {
			name := p.Phase
			if p.CPU != "" {
				name = p.CPU + ": " + name
			}
			cells := []string{units.Signed(p.CurNS-p.BaseNS, 0), units.Sig(p.BaseNS) + " → " + units.Sig(p.CurNS)}
			if pc.Untraced {
				cells = append(cells, units.Signed(p.CurUntracedNS-p.BaseUntracedNS, 0), units.Sig(p.BaseUntracedNS)+" → "+units.Sig(p.CurUntracedNS))
			}
			t.Row(append(cells, name)...)
		}
		t.Write(w, st)
		if len(ps) > shown {
			prose(w, st, "  … %d more phases in the result files\n", len(ps)-shown)
		}
	}
}
