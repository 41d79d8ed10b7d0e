package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Hierarchy prints the published hierarchy with what this machine measured
// beside each row, and the creation and memory claims (the document's
// Derived.Hierarchy and Claims). Published and measured figures sit in
// columns named for where they come from; a published multiple is written
// with the same × as a measured one, never as the source's "x", so the two
// read alike and differ only by their column.
func Hierarchy(w io.Writer, d *result.Document) {
	if d.Derived == nil || len(d.Derived.Hierarchy) == 0 {
		return
	}
	st := styleOf(w)
	b := Baseline(d)
	mstated := MultipleLevel(d.Results)
	ms := MarkSet{}
	fmt.Fprintln(w, "\nthe published hierarchy, measured here (one-way per switch)")
	t := NewTable(Col{Head: "ABSTRACTION", Wrap: true, Min: 14}, Col{Head: "PUBLISHED", Right: true}, Col{Head: "PUBLISHED ×", Right: true},
		Col{Head: "MEASURED", Right: true}, Col{Head: "MEASURED ×", Right: true}, Col{Head: "SWITCHES/HOP", Fold: 2}, Col{Head: "FROM", Wrap: true, Min: 14, Fold: 1})
	var notes []string
	for _, h := range d.Derived.Hierarchy {
		from := h.Name + " " + h.Placement
		pub := publishedMultiple(h.PublishedMultiple)
		if h.MedianNS == nil {
			t.Row(h.Abstraction, h.Published, pub, "not measured", "—", "—", from)
			continue
		}
		x := "—"
		if r := findResult(d, h.Name, h.Placement); r != nil {
			x = Multiple(*r, b, mstated, ms) // the figure the ladder shows
		} else if h.Multiple != nil {
			x = units.Multiple(*h.Multiple)
		}
		sw := "—"
		if h.SwitchesPerHop != nil {
			sw = units.Fixed(*h.SwitchesPerHop, 2) + " " + ms.Use(switchMark(h.Verified))
		}
		t.Row(h.Abstraction, h.Published, pub, units.Time(*h.MedianNS), x, sw, from)
		if h.Note != "" {
			notes = append(notes, "the VM row is "+h.Note)
		}
	}
	t.Write(w, st)
	ms.Only(t.Printed())
	fmt.Fprintf(w, "PUBLISHED, PUBLISHED ×: the source's figures, its multiples of its own baseline; MEASURED, MEASURED ×: this machine's, × of %s as in the ladder above.\n", baselineName(b))
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	ms.Write(w)
	if len(d.Derived.Claims) > 0 {
		// PUBLISHED last: it carries what differs where a claim is not like
		// for like, and wraps inside its column.
		fmt.Fprintln(w)
		t := NewTable(Col{Head: "CLAIM"}, Col{Head: "MEASURED", Wrap: true, Min: 20}, Col{Head: "PUBLISHED", Wrap: true, Min: 24})
		for _, c := range d.Derived.Claims {
			t.Row(c.Name, c.Measured, PlainClaim(c.Published))
		}
		t.Write(w, st)
	}
}

// publishedMultiple writes a published multiple with ×, as measured ones
// are ("1.4x" → "1.4×", "9-28x" → "9–28×").
func publishedMultiple(s string) string {
	s = strings.ReplaceAll(s, "x", "×")
	return s
}

// baselineName names the baseline row ("—" without one).
func baselineName(b *result.BaselineRef) string {
	if b == nil {
		return "—"
	}
	return b.Name + " " + b.Placement
}

// findResult is the document's row of a benchmark at a placement, or nil.
func findResult(d *result.Document, name, placement string) *result.Result {
	for i := range d.Results {
		if d.Results[i].Name == name && d.Results[i].Placement == placement {
			return &d.Results[i]
		}
	}
	return nil
}
