package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Explain prints, per explained benchmark, its hop's phases in time order
// with the probes' cost and the closure, then the work the probes could
// not split.
func Explain(w io.Writer, doc *result.Document) {
	fmt.Fprintf(w, "ctxbench explain — %s\n", doc.Environment.HostLine())
	if doc.Settings.DryRun {
		fmt.Fprintln(w, "DRY RUN: the figures below are synthetic, nothing was measured (and nothing was traced)")
	}
	gaps := map[string]bool{}
	var gapLines []string
	for _, r := range doc.Results {
		e := r.Explain
		if e == nil {
			continue
		}
		fmt.Fprintf(w, "\n%s %s — %s\n", r.Name, r.Placement, r.Label.What)
		fmt.Fprintf(w, "  one-way: %s untraced, %s traced (probes %s [%s, %s], %d blocks each, interleaved)\n",
			units.Time(e.UntracedOneWayNS), units.Time(e.TracedOneWayNS), units.Change(e.ProbeCost), units.Change(e.ProbeCostLow), units.Change(e.ProbeCostHigh), e.Blocks)
		fmt.Fprintf(w, "  kernel clock: %s per hop of the benchmark's own tasks; the phases below explain %.0f%% of it", units.Time(e.KernelHopNS), 100*e.Closure)
		if e.OtherNS > 0 {
			fmt.Fprintf(w, " (other tasks and idle took %s more per hop)", units.Time(e.OtherNS))
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  PHASE\tNS/HOP\tSHARE\tPER HOP\tPROBES\t")
		for _, p := range e.Phases {
			share := 0.0
			if e.KernelHopNS > 0 {
				share = p.NS / e.KernelHopNS
			}
			fmt.Fprintf(tw, "  %s\t%s\t%.0f%%\t%.2f\t%s\t\n", p.Name, units.Sig(p.NS), 100*share, p.PerHop, p.Probes)
		}
		fmt.Fprintf(tw, "  not attributed\t%s\t\t\t\t\n", units.Sig(e.UnattributedNS))
		tw.Flush()
		for _, wn := range r.Warnings {
			if wn.Code == "explain-closure" {
				fmt.Fprintf(w, "  ! %s\n", wn.Message)
			}
		}
		for _, g := range e.Gaps {
			if !gaps[g.Work] {
				gaps[g.Work] = true
				gapLines = append(gapLines, fmt.Sprintf("- %s: inside %q; needs %s", g.Work, g.Inside, g.Needs))
			}
		}
	}
	if len(gapLines) > 0 {
		fmt.Fprintf(w, "\nwhat these probes cannot split here:\n%s\n", strings.Join(gapLines, "\n"))
	}
	Missing(w, doc)
}
