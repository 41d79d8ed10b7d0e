package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// AA prints the A/A self-test: per cell, the sittings' medians and what
// they say of the intervals and of compare, then the verdict for the
// machine as a whole.
func AA(w io.Writer, doc *result.Document) {
	a := doc.AA
	if a == nil {
		return
	}
	fmt.Fprintf(w, "ctxbench aa — %s\n", doc.Environment.HostLine())
	var total float64
	for _, s := range a.SittingSeconds {
		total += s
	}
	fmt.Fprintf(w, "%d independent sittings of the same cells", a.Sittings)
	if total > 0 {
		fmt.Fprintf(w, ", %.0f s each on average", total/float64(len(a.SittingSeconds)))
	}
	fmt.Fprintln(w)
	if doc.Settings.DryRun {
		fmt.Fprintln(w, "DRY RUN: the figures below are synthetic, nothing was measured")
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "BENCHMARK\tPLACEMENT\tMEDIANS (one per sitting)\tRUN-TO-RUN\t±CI\tBETWEEN BLOCKS\tCOVERAGE\tFALSE +\tRESOLVABLE\t")
	for _, c := range a.Cells {
		meds := make([]string, len(c.Medians))
		u := units.Scale(c.Medians...)
		for i, m := range c.Medians {
			meds[i] = units.In(m, u)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%.1f%%\t±%.1f%%\t%.0f%%\t%d/%d\t%d/%d\t±%.1f%%\t\n", c.Name, c.Placement,
			strings.Join(meds, " "), u.Name, 100*c.RunToRun, 100*c.HalfWidth, 100*c.BetweenBlocks,
			round(c.Coverage*float64(c.Pairs)), c.Pairs, c.FalsePositives, c.Comparisons, 100*c.Resolvable)
	}
	tw.Flush()
	for _, c := range a.Cells {
		if c.Contended > 0 {
			fmt.Fprintf(w, "%s %s: %d sitting(s) left out, flagged contended (other work took the measured CPU)\n", c.Name, c.Placement, c.Contended)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "precision coverage: another sitting's median fell inside a sitting's 95%% precision interval (±CI) in %.0f%% of %d pairs (honest intervals of equal width: about 83%%; that interval covers its own sitting only)\n", 100*a.Coverage, a.Pairs)
	fmt.Fprintf(w, "precision false positives: tested against the two sittings' precision alone, %d of %d adjacent identical sittings were called different (%.0f%%; at α=%g about %.0f%% is expected)\n",
		a.FalsePositives, a.Comparisons, 100*a.FalseRate, a.Alpha, 100*a.Alpha)
	if a.ReproPairs > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "reproducibility (each sitting's interval learned from the machine's history up to and including it, checked against the sittings after it):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  BENCHMARK\tPLACEMENT\tBETWEEN-SITTING CV\t±REPRO\tCOVERAGE\tFALSE +\t")
		for _, c := range a.Cells {
			if c.ReproPairs == 0 {
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\t%.1f%%\t±%.1f%%\t%d/%d\t%d/%d\t\n", c.Name, c.Placement, 100*c.BetweenCV, 100*c.ReproHalfWidth,
				round(c.ReproCoverage*float64(c.ReproPairs)), c.ReproPairs, c.ReproFalsePositives, c.ReproComparisons)
		}
		tw.Flush()
		fmt.Fprintf(w, "repro coverage: a later sitting's median fell inside a sitting's 95%% reproducibility interval (±REPRO) in %.0f%% of %d pairs (about 95%% is honest; the first sittings of a new machine are wide on purpose)\n", 100*a.ReproCoverage, a.ReproPairs)
		fmt.Fprintf(w, "repro false positives: compare, testing against reproducibility learned before the later sitting, called %d of %d adjacent identical sittings different (α=%g)\n", a.ReproFalsePositives, a.ReproComparisons, a.Alpha)
	} else if !doc.Settings.DryRun {
		fmt.Fprintln(w, "reproducibility: not learned (the history is off, or could not be opened: see the line above); the intervals above cover one sitting each")
	}
	fmt.Fprintf(w, "resolvable: one sitting against another resolves a change of about ±%.1f%% here; a smaller one needs more blocks (--runs, --target-ci) or a quieter machine\n", 100*a.Resolvable)
	if len(a.Distinct) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "different cells told apart, sitting by sitting (their blocks paired by round):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, d := range a.Distinct {
			fmt.Fprintf(tw, "  %s vs %s\t%s\tresolved in %d of %d sittings\t\n", d.Other, d.Base, units.Change(d.Change), d.Resolved, d.Sittings)
		}
		tw.Flush()
	}
	Missing(w, doc)
}

func round(x float64) int { return int(x + 0.5) }
