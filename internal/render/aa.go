package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// AA prints the A/A self-test: per cell, the sittings' medians and what
// they say of the intervals and of compare, then the verdict for the
// machine as a whole. It is laid out for the style of w.
func AA(w io.Writer, doc *result.Document) {
	a := doc.AA
	if a == nil {
		return
	}
	st := styleOf(w)
	prose(w, st, "ctxbench aa — %s\n", doc.Environment.HostLine())
	var total float64
	for _, s := range a.SittingSeconds {
		total += s
	}
	each := ""
	if total > 0 {
		each = fmt.Sprintf(", %s s each on average", units.Fixed(total/float64(len(a.SittingSeconds)), 0))
	}
	prose(w, st, "%d independent sittings of the same cells%s\n", a.Sittings, each)
	if doc.Settings.DryRun {
		prose(w, st, "DRY RUN: the figures below are synthetic, nothing was measured\n")
	}
	fmt.Fprintln(w)
	aaPrecision(w, a, st)
	if a.ReproPairs > 0 {
		aaRepro(w, a, st)
	} else if !doc.Settings.DryRun {
		prose(w, st, "reproducibility: not learned (the history is off, or could not be opened: see the line above); the intervals above cover one sitting each\n")
	}
	how := "against the two sittings' precision alone (nothing learned yet)"
	if a.ReproComparisons > 0 {
		how = "as compare decides it between two sittings of this machine"
	}
	prose(w, st, "resolvable: a change of about %s or more between one sitting and another is found in 80%% of such pairs here, %s; a smaller one needs more sittings (compare BEFORE... -- AFTER...), an interleaved A/B (ctxbench ab) or a quieter machine\n", units.Percent(100*a.Resolvable, 1), how)
	if len(a.Distinct) > 0 {
		prose(w, st, "\ndifferent cells told apart, sitting by sitting (their blocks paired by round):\n")
		t := NewTable(Col{Head: "CELL"}, Col{Head: "AGAINST"}, Col{Head: "CHANGE", Right: true}, Col{Head: "RESOLVED IN", Right: true})
		t.Indent = 2
		for _, d := range a.Distinct {
			t.Row(d.Other, d.Base, units.Change(d.Change), fmt.Sprintf("%d of %d sittings", d.Resolved, d.Sittings))
		}
		t.Write(w, st)
	}
	Missing(w, doc)
}

// aaPrecision is the cells' table, each sitting's median and what the
// precision intervals and compare made of them, and the totals. The
// share of variance between blocks leaves first on a narrow terminal,
// then the medians wrap inside their column.
func aaPrecision(w io.Writer, a *result.AA, st Style) {
	t := NewTable(Col{Head: "BENCHMARK"}, Col{Head: "PLACEMENT", Fold: 4}, Col{Head: "MEDIANS (one per sitting)", Wrap: true, Min: 16, NarrowAt: 2},
		Col{Head: "RUN-TO-RUN", Right: true}, Col{Head: "±CI", Right: true}, Col{Head: "BETWEEN BLOCKS", Right: true, Fold: 1},
		Col{Head: "COVERAGE", Right: true, Fold: 2}, Col{Head: "FALSE +", Right: true, Fold: 3}, Col{Head: "RESOLVABLE", Right: true})
	for _, c := range a.Cells {
		meds := make([]string, len(c.Medians))
		u := units.Scale(c.Medians...)
		for i, m := range c.Medians {
			meds[i] = units.In(m, u)
		}
		t.Row(c.Name, c.Placement, strings.Join(meds, " ")+" "+u.Name, units.Percent(100*c.RunToRun, 1), "±"+units.Percent(100*c.HalfWidth, 1),
			units.Percent(100*c.BetweenBlocks, 0), fmt.Sprintf("%d/%d", round(c.Coverage*float64(c.Pairs)), c.Pairs),
			fmt.Sprintf("%d/%d", c.FalsePositives, c.Comparisons), "±"+units.Percent(100*c.Resolvable, 1))
	}
	t.Write(w, st)
	for _, c := range a.Cells {
		if c.Contended > 0 {
			prose(w, st, "%s %s: %d sitting(s) left out, flagged contended (other work took the measured CPU)\n", c.Name, c.Placement, c.Contended)
		}
	}
	fmt.Fprintln(w)
	prose(w, st, "precision coverage: another sitting's median fell inside a sitting's 95%% precision interval (±CI) in %s of %d pairs (honest intervals of equal width: about 83%%; that interval covers its own sitting only)\n", units.Percent(100*a.Coverage, 0), a.Pairs)
	prose(w, st, "precision false positives: tested against the two sittings' precision alone, %d of %d adjacent identical sittings were called different (%s; at α=%s about %s is expected)\n",
		a.FalsePositives, a.Comparisons, units.Percent(100*a.FalseRate, 0), units.Digits(a.Alpha, -1), units.Percent(100*a.Alpha, 0))
}

// aaRepro is the reproducibility intervals' table (each learned from the
// history up to its sitting) and their totals.
func aaRepro(w io.Writer, a *result.AA, st Style) {
	fmt.Fprintln(w)
	prose(w, st, "reproducibility (each sitting's interval learned from the machine's history up to and including it, checked against the sittings after it):\n")
	t := NewTable(Col{Head: "BENCHMARK"}, Col{Head: "PLACEMENT", Fold: 1}, Col{Head: "BETWEEN-SITTING CV", Right: true}, Col{Head: "±REPRO", Right: true},
		Col{Head: "COVERAGE", Right: true}, Col{Head: "FALSE +", Right: true})
	t.Indent = 2
	for _, c := range a.Cells {
		if c.ReproPairs == 0 {
			continue
		}
		t.Row(c.Name, c.Placement, units.Percent(100*c.BetweenCV, 1), "±"+units.Percent(100*c.ReproHalfWidth, 1),
			fmt.Sprintf("%d/%d", round(c.ReproCoverage*float64(c.ReproPairs)), c.ReproPairs), fmt.Sprintf("%d/%d", c.ReproFalsePositives, c.ReproComparisons))
	}
	t.Write(w, st)
	prose(w, st, "repro coverage: a later sitting's median fell inside a sitting's 95%% reproducibility interval (±REPRO) in %s of %d pairs (about 95%% is honest; the first sittings of a new machine are wide on purpose)\n", units.Percent(100*a.ReproCoverage, 0), a.ReproPairs)
	prose(w, st, "repro false positives: compare, testing against reproducibility learned before the later sitting, called %d of %d adjacent identical sittings different (α=%s)\n", a.ReproFalsePositives, a.ReproComparisons, units.Digits(a.Alpha, -1))
}

func round(x float64) int { return int(x + 0.5) }
