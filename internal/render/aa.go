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
		fmt.Fprintf(w, ", %s s each on average", units.Fixed(total/float64(len(a.SittingSeconds)), 0))
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
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t±%s\t%s\t%d/%d\t%d/%d\t±%s\t\n", c.Name, c.Placement,
			strings.Join(meds, " "), u.Name, units.Percent(100*c.RunToRun, 1), units.Percent(100*c.HalfWidth, 1), units.Percent(100*c.BetweenBlocks, 0),
			round(c.Coverage*float64(c.Pairs)), c.Pairs, c.FalsePositives, c.Comparisons, units.Percent(100*c.Resolvable, 1))
	}
	tw.Flush()
	for _, c := range a.Cells {
		if c.Contended > 0 {
			fmt.Fprintf(w, "%s %s: %d sitting(s) left out, flagged contended (other work took the measured CPU)\n", c.Name, c.Placement, c.Contended)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "precision coverage: another sitting's median fell inside a sitting's 95%% precision interval (±CI) in %s of %d pairs (honest intervals of equal width: about 83%%; that interval covers its own sitting only)\n", units.Percent(100*a.Coverage, 0), a.Pairs)
	fmt.Fprintf(w, "precision false positives: tested against the two sittings' precision alone, %d of %d adjacent identical sittings were called different (%s; at α=%s about %s is expected)\n",
		a.FalsePositives, a.Comparisons, units.Percent(100*a.FalseRate, 0), units.Digits(a.Alpha, -1), units.Percent(100*a.Alpha, 0))
	if a.ReproPairs > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "reproducibility (each sitting's interval learned from the machine's history up to and including it, checked against the sittings after it):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  BENCHMARK\tPLACEMENT\tBETWEEN-SITTING CV\t±REPRO\tCOVERAGE\tFALSE +\t")
		for _, c := range a.Cells {
			if c.ReproPairs == 0 {
				continue
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t±%s\t%d/%d\t%d/%d\t\n", c.Name, c.Placement, units.Percent(100*c.BetweenCV, 1), units.Percent(100*c.ReproHalfWidth, 1),
				round(c.ReproCoverage*float64(c.ReproPairs)), c.ReproPairs, c.ReproFalsePositives, c.ReproComparisons)
		}
		tw.Flush()
		fmt.Fprintf(w, "repro coverage: a later sitting's median fell inside a sitting's 95%% reproducibility interval (±REPRO) in %s of %d pairs (about 95%% is honest; the first sittings of a new machine are wide on purpose)\n", units.Percent(100*a.ReproCoverage, 0), a.ReproPairs)
		fmt.Fprintf(w, "repro false positives: compare, testing against reproducibility learned before the later sitting, called %d of %d adjacent identical sittings different (α=%s)\n", a.ReproFalsePositives, a.ReproComparisons, units.Digits(a.Alpha, -1))
	} else if !doc.Settings.DryRun {
		fmt.Fprintln(w, "reproducibility: not learned (the history is off, or could not be opened: see the line above); the intervals above cover one sitting each")
	}
	how := "against the two sittings' precision alone (nothing learned yet)"
	if a.ReproComparisons > 0 {
		how = "as compare decides it between two sittings of this machine"
	}
	fmt.Fprintf(w, "resolvable: a change of about %s or more between one sitting and another is found in 80%% of such pairs here, %s; a smaller one needs more sittings (compare BEFORE... -- AFTER...), an interleaved A/B (ctxbench ab) or a quieter machine\n", units.Percent(100*a.Resolvable, 1), how)
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
