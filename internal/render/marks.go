package render

// marks.go: the one table of marks. A mark is a symbol put beside a figure
// or a name that changes how it reads; each has one meaning on every
// surface (the terminal, Markdown, the report), and every view that shows a
// mark shows its legend, from this table. A test (marks_test.go) holds every
// renderer to it: a symbol of the table in a view without its legend, or a
// legend written anywhere but here, fails.
//
// To add a mark: add a Mark below (a symbol no other mark uses), put it in
// Marks, and where a renderer prints it, note it in the view's MarkSet so
// the view's legend explains it.

import (
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Mark is one symbol and its one meaning.
type Mark struct {
	Symbol string
	// Legend says what the symbol means, as every view prints it after the
	// symbol.
	Legend string
}

// The marks.
var (
	MarkNoisy = Mark{"~", "noisy: the row's samples varied a lot (CV ≥ 10% or p90 ≥ 2× p10; details in the JSON warnings): the median holds, the tails are noise; re-run with --thorough or quiet the machine"}

	MarkUnresolved = Mark{"≈", "not resolved: the figure's interval holds no change (1× for a multiple, 0 for a difference, 0% for a change), so the run cannot tell it apart from none"}

	MarkVerified = Mark{"✓", "verified: the context switches counted on both sides are within 5% of one per hop"}

	MarkFlagged = Mark{"✗", "flagged: the switches counted are not one per hop, or another check failed; the numbered note says why, and the figure is not a clean measurement of a switch"}

	MarkPooled = Mark{"′", "pooled: the cell has too few sittings of its own, so its between-sitting variation is pooled from the other cells of its placement that have three or more"}

	MarkExit = Mark{"‡", "per exit and re-entry of a VM (a world switch out of the guest and back), not per hop between two contexts"}

	MarkStackless = Mark{"§", "stackless: resumes a heap frame and switches no stack (C++20 coroutines, futures, promises, asyncio): a tier apart from stack switches, not cheaper than the floor's register swap"}

	MarkLevel = Mark{"@", "@N% after an interval: its level, where it differs from the level the view states (too few blocks or rounds for more)"}

	MarkNegative = Mark{"n/a*", "the difference came out negative: the counter moved by less than its noise (other activity on the machine outweighed these contexts), so it is not a figure"}

	MarkUntrusted = Mark{"†", "not trustworthy on the untraced scale: the probes' correction is larger than the phase, or less certain than what is left of it"}

	MarkHost = Mark{"ʰ", "host-adjusted: the change was tested with the host's speed taken out (both files timed the host probe around every block); the medians beside it are as measured"}
)

// Marks is every mark, in the order legends list them.
var Marks = []Mark{MarkNoisy, MarkUnresolved, MarkVerified, MarkFlagged, MarkPooled, MarkExit, MarkStackless,
	MarkLevel, MarkNegative, MarkUntrusted, MarkHost}

// MarkSet collects the marks a view printed, so that its legend explains
// them and no others.
type MarkSet map[string]bool

// Use notes that the view printed m and returns its symbol.
func (s MarkSet) Use(m Mark) string {
	if s != nil {
		s[m.Symbol] = true
	}
	return m.Symbol
}

// Only keeps the marks whose symbol is in text (what a table printed, so
// that a mark in a column left out is not explained).
func (s MarkSet) Only(text string) MarkSet {
	for k := range s {
		if !strings.Contains(text, k) {
			delete(s, k)
		}
	}
	return s
}

// Legends are the legend lines of the marks used, in the table's order:
// "~ noisy: …".
func (s MarkSet) Legends() []string {
	var out []string
	for _, m := range Marks {
		if s[m.Symbol] {
			out = append(out, m.Symbol+" "+m.Legend)
		}
	}
	return out
}

// Write prints the legends, one a line, under a blank line (nothing when no
// mark was used).
func (s MarkSet) Write(w io.Writer) {
	ls := s.Legends()
	if len(ls) == 0 {
		return
	}
	_, _ = io.WriteString(w, "\n"+strings.Join(ls, "\n")+"\n") // a terminal view: as fmt.Fprintln, no error to act on
}

// rowMarks are the marks of one row, put after its name, decided from the
// result's typed fields, never from its label's words.
func rowMarks(r result.Result) []Mark {
	var ms []Mark
	if isExit(r) {
		ms = append(ms, MarkExit)
	}
	if r.Label.Stackless {
		ms = append(ms, MarkStackless)
	}
	return ms
}

// MarkedName is a row's name followed by its marks ("runtime/node-promise §").
func MarkedName(r result.Result) string {
	s := r.Name
	for _, m := range rowMarks(r) {
		s += " " + m.Symbol
	}
	return s
}

// Name is MarkedName, noting the marks in the set.
func (s MarkSet) Name(r result.Result) string {
	for _, m := range rowMarks(r) {
		s.Use(m)
	}
	return MarkedName(r)
}

// MarkLegends are the legends of the row marks rs carry.
func MarkLegends(rs []result.Result) []string {
	s := MarkSet{}
	for _, r := range rs {
		s.Name(r)
	}
	return s.Legends()
}
