package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// AB prints an interleaved A/B: the set-up commands, then per cell the two
// sides' medians and the change from A to B with its interval.
func AB(w io.Writer, doc *result.Document) {
	ab := doc.AB
	if ab == nil {
		return
	}
	fmt.Fprintf(w, "ctxbench ab — %s\n", doc.Environment.HostLine())
	if doc.Settings.DryRun {
		fmt.Fprintln(w, "DRY RUN: the figures below are synthetic, nothing was measured")
	}
	fmt.Fprintf(w, "A: %s\nB: %s\n", ab.SetupA, ab.SetupB)
	if ab.Cleanup != "" {
		fmt.Fprintf(w, "clean-up: %s\n", ab.Cleanup)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BENCHMARK\tPLACEMENT\tA\tB\tB vs A [interval]\tROUNDS")
	for _, c := range ab.Changes {
		u := units.Scale(c.AMedian, c.BMedian)
		change := "no interval"
		if c.Confidence > 0 {
			mark := ""
			if !c.Resolved {
				mark = MarkUnresolved.Symbol + " "
			}
			change = fmt.Sprintf("%s%s [%s, %s] at %s", mark, units.Change(c.Change), units.Change(c.Low), units.Change(c.High), units.Percent(100*c.Confidence, 1))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s %s\t%s\t%d\n", c.Name, c.Placement, units.In(c.AMedian, u), u.Name, units.In(c.BMedian, u), u.Name, change, c.Rounds)
	}
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(w, "B vs A: the change from A to B from the two sides' blocks paired by round (Hodges–Lehmann, signed-rank interval)")
	fmt.Fprintln(w, MarkUnresolved.Symbol+" "+MarkUnresolved.Legend)
	Missing(w, doc)
}
