package render

import (
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// AB prints an interleaved A/B: the set-up commands, then per cell the two
// sides' medians and the change from A to B with its interval. It is laid
// out for the style of w.
func AB(w io.Writer, doc *result.Document) {
	ab := doc.AB
	if ab == nil {
		return
	}
	st := styleOf(w)
	prose(w, st, "ctxbench ab — %s\n", doc.Environment.HostLine())
	if doc.Settings.DryRun {
		prose(w, st, "DRY RUN: the figures below are synthetic, nothing was measured\n")
	}
	prose(w, st, "A: %s\n", ab.SetupA)
	prose(w, st, "B: %s\n", ab.SetupB)
	if ab.Cleanup != "" {
		prose(w, st, "clean-up: %s\n", ab.Cleanup)
	}
	fmt.Fprintln(w)
	ms := MarkSet{}
	t := NewTable(Col{Head: "BENCHMARK"}, Col{Head: "PLACEMENT", Fold: 2}, Col{Head: "A", Right: true}, Col{Head: "B", Right: true},
		Col{Head: "B vs A [interval]", Wrap: true, Min: 18, NarrowAt: 2}, Col{Head: "ROUNDS", Right: true, Fold: 1})
	for _, c := range ab.Changes {
		u := units.Scale(c.AMedian, c.BMedian)
		change := "no interval"
		if c.Confidence > 0 {
			mark := ""
			if !c.Resolved {
				mark = ms.Use(MarkUnresolved) + " "
			}
			change = fmt.Sprintf("%s%s [%s, %s] at %s", mark, units.Change(c.Change), units.Change(c.Low), units.Change(c.High), units.Percent(100*c.Confidence, 1))
		}
		t.Row(c.Name, c.Placement, units.In(c.AMedian, u)+" "+u.Name, units.In(c.BMedian, u)+" "+u.Name, change, fmt.Sprint(c.Rounds))
	}
	t.Write(w, st)
	fmt.Fprintln(w)
	prose(w, st, "B vs A: the change from A to B from the two sides' blocks paired by round (Hodges–Lehmann, signed-rank interval)\n")
	ms.Only(t.Printed()).Write(w)
	Missing(w, doc)
}
