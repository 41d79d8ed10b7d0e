package render

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Explain prints, per explained benchmark, its hop's phases in time order
// on the traced and the untraced scale, with the probes' cost and the
// closures, then the work the probes could not split. It is laid out for
// the style of w (a FitWriter's, else 100 columns).
func Explain(w io.Writer, doc *result.Document) {
	st := styleOf(w)
	prose(w, st, "ctxbench explain — %s\n", doc.Environment.HostLine())
	if doc.Settings.DryRun {
		prose(w, st, "DRY RUN: the figures below are synthetic, nothing was measured (and nothing was traced)\n")
	}
	gaps := map[string]bool{}
	var gapLines []string
	legend := false // the untrustworthy mark is explained once, under its first table
	for _, r := range doc.Results {
		e := r.Explain
		if e == nil {
			continue
		}
		prose(w, st, "\n%s %s — %s\n", r.Name, r.Placement, r.Label.What)
		explainHeader(w, e, st)
		if explainTable(w, e, st) && !legend {
			legend = true
			prose(w, st, "  %s %s\n", MarkUntrusted.Symbol, MarkUntrusted.Legend)
		}
		explainParallel(w, e, st)
		for _, wn := range r.Warnings {
			if wn.Code == "explain-closure" {
				prose(w, st, "  ! %s\n", wn.Message)
			}
		}
		for _, n := range e.Notes {
			prose(w, st, "  note: %s\n", n)
		}
		Capture(w, e.Capture, st)
		for _, g := range e.Gaps {
			if !gaps[g.Work] {
				gaps[g.Work] = true
				gapLines = append(gapLines, fmt.Sprintf("- %s: inside %q; needs %s", g.Work, g.Inside, g.Needs))
			}
		}
	}
	if doc.Derived != nil && doc.Derived.Explain != nil {
		explainSteps(w, doc.Derived.Explain, st)
	}
	if len(gapLines) > 0 {
		prose(w, st, "\nwhat these probes cannot split here:\n%s\n", strings.Join(gapLines, "\n"))
	}
	Missing(w, doc)
}

// untrustedMark follows a phase's untraced figure when the correction
// swamps it (result.ExplainPhase.UntracedUnreliable).
var untrustedMark = MarkUntrusted.Symbol

// lightProbes says what the light probe set leaves out.
const lightProbes = "the light set: syscalls, wakeup and switch only"

// explainHeader prints the one-way figures, the probes' cost per firing
// and the closure on each scale.
func explainHeader(w io.Writer, e *result.Explain, st Style) {
	prose(w, st, "  one-way (median): %s untraced, %s traced — the probes cost %s [%s, %s]%s (%d blocks each, interleaved)\n",
		units.Time(e.UntracedOneWayNS), units.Time(e.TracedOneWayNS), units.Change(e.ProbeCost), units.Change(e.ProbeCostLow), units.Change(e.ProbeCostHigh),
		atLevel(e.ProbeCostConfidence), e.Blocks)
	set := ""
	if e.Probes == "light" {
		set = " (" + lightProbes + ")"
	}
	if c := e.ProbeNsPerFiring; c != nil {
		prose(w, st, "  probes%s: %s ns per firing [%s, %s] (%s), %s firings per hop\n",
			set, units.Sig(c.Median), units.Sig(c.Low), units.Sig(c.High), level(c.Confidence), units.Sig(e.FiringsPerHop))
	} else if set != "" {
		prose(w, st, "  probes: %s\n", lightProbes)
	}
	closure := fmt.Sprintf("  closure: the phases sum to %s of the traced hop (mean %s)", units.Percent(100*e.Closure, 0), units.Time(e.TracedMeanNS))
	if e.UntracedClosure != nil {
		closure += fmt.Sprintf(", and on the untraced scale to %s of the untraced hop (mean %s)", units.Percent(100**e.UntracedClosure, 0), units.Time(e.UntracedMeanNS))
	}
	closure += fmt.Sprintf("; %s of the kernel clock's %s per hop", units.Percent(100*e.KernelClosure, 0), units.Time(e.KernelHopNS))
	if e.OtherNS > 0 {
		closure += fmt.Sprintf(" (other tasks and idle took %s more)", units.Time(e.OtherNS))
	}
	prose(w, st, "%s\n", closure)
}

// atLevel is " at 97.9%" for an interval's recorded level, "" where none
// was recorded (an older file).
func atLevel(c float64) string {
	if c <= 0 {
		return ""
	}
	return " at " + level(c)
}

// level is an interval's confidence; one that is not a whole percentage
// keeps a decimal, so 94.9% never reads as the 95% it falls short of.
func level(c float64) string { return units.Digits(100*c, 3) + "%" }

// explainTable prints the phases, in time order: the CPU side on a hop
// across CPUs, the traced ns, the untraced ns beside it where the run has
// that scale, and the firings the correction took out. Phase names and
// probes wrap inside their columns; on a narrow terminal the firings, then
// the probes, then the phases per hop give way. It says whether a phase
// carried the untrustworthy mark.
func explainTable(w io.Writer, e *result.Explain, st Style) (marked bool) {
	var sides, untraced bool
	for _, p := range e.Phases {
		sides = sides || p.CPU != ""
		untraced = untraced || p.UntracedNs != nil
	}
	cols := []Col{{Head: "PHASE", Wrap: true, Min: 20, NarrowAt: 2}}
	if sides {
		cols = append(cols, Col{Head: "CPU"})
	}
	cols = append(cols, Col{Head: "NS/HOP", Right: true})
	if untraced {
		cols = append(cols, Col{Head: "UNTRACED", Right: true})
	}
	cols = append(cols, Col{Head: "SHARE", Right: true}, Col{Head: "PER HOP", Right: true, Fold: 3})
	if untraced {
		cols = append(cols, Col{Head: "FIRINGS", Right: true, Fold: 2})
	}
	cols = append(cols, Col{Head: "PROBES", Fold: 1})
	t := NewTable(cols...)
	t.Indent = 2
	row := func(name, cpu, ns, un, share, per, fir, probes string) {
		cells := []string{name}
		if sides {
			cells = append(cells, cpu)
		}
		cells = append(cells, ns)
		if untraced {
			cells = append(cells, un)
		}
		cells = append(cells, share, per)
		if untraced {
			cells = append(cells, fir)
		}
		t.Row(append(cells, probes)...)
	}
	var rare []result.ExplainPhase
	for _, p := range e.Phases {
		share := 0.0
		if e.TracedMeanNS > 0 {
			share = p.NsPerHop / e.TracedMeanNS
		}
		if isRare(p, share) {
			rare = append(rare, p)
			continue
		}
		un := ""
		if p.UntracedNs != nil {
			un = units.Sig(*p.UntracedNs)
			if p.UntracedUnreliable {
				un += " " + untrustedMark
				marked = true
			}
		}
		row(p.Name, p.CPU, units.Sig(p.NsPerHop), un, units.Percent(100*share, 0), units.Fixed(p.PerHop, 2), units.Fixed(p.Firings, 2), p.Probes)
	}
	if len(rare) > 0 {
		var ns, per float64
		for _, p := range rare {
			ns += p.NsPerHop
			per += p.PerHop
		}
		row(fmt.Sprintf("rare paths (%d phases, each on under %s of hops; all in the JSON)", len(rare), units.Percent(100*rarePerHop, 0)),
			"", units.Sig(ns), "", "", units.Fixed(per, 2), "", "")
	}
	row("not attributed", "", units.Sig(e.UnattributedNS), "", "", "", "", "")
	t.Write(w, st)
	return marked
}

// rarePerHop and rareShare: a phase that occurs on fewer hops than this
// and holds less of the hop is one of the rare paths (a boundary that did
// not fire once, a path a hop took by chance). The table folds them into
// one line so the hop's own path reads at a glance; the JSON keeps each.
const (
	rarePerHop = 0.02
	rareShare  = 0.005
)

func isRare(p result.ExplainPhase, share float64) bool {
	return p.PerHop < rarePerHop && share < rareShare && p.Name != "interrupts"
}

// explainParallel prints, for a hop across CPUs, what the waker's CPU
// did while the hop went on on the other: measured, not part of the hop.
func explainParallel(w io.Writer, e *result.Explain, st Style) {
	if len(e.Parallel) == 0 {
		return
	}
	var sum float64
	for _, p := range e.Parallel {
		sum += p.NsPerHop
	}
	prose(w, st, "  meanwhile on the waker's CPU (in parallel with the hop, not part of it): %s per hop\n", units.Time(sum))
	t := NewTable(Col{Head: "PHASE", Wrap: true, Min: 20, NarrowAt: 2}, Col{Head: "NS/HOP", Right: true}, Col{Head: "PER HOP", Right: true, Fold: 2},
		Col{Head: "PROBES", Fold: 1})
	t.Indent = 4
	var rare float64
	n := 0
	for _, p := range e.Parallel {
		if isRare(p, p.NsPerHop/math.Max(e.TracedMeanNS, 1)) {
			rare += p.NsPerHop
			n++
			continue
		}
		t.Row(p.Name, units.Sig(p.NsPerHop), units.Fixed(p.PerHop, 2), p.Probes)
	}
	if n > 0 {
		t.Row(fmt.Sprintf("rare paths (%d)", n), units.Sig(rare))
	}
	t.Write(w, st)
}

// explainSteps prints where each ladder step comes from (the phases that
// changed most) and the published causes with their verdicts.
func explainSteps(w io.Writer, x *result.ExplainDerived, st Style) {
	for _, s := range x.Steps {
		resolved := "resolved"
		switch {
		case s.Confidence < 0.95-1e-9: // a verdict only from an interval at 95%
			resolved = "not enough rounds to tell: interval at " + units.Percent(100*s.Confidence, 0)
		case !s.Resolved:
			resolved = "not resolved here"
		}
		prose(w, st, "\nstep %s: %s → %s, %s [%s, %s] untraced (%s); the traced phases change by %s ns per hop:\n",
			s.What, units.Time(s.FromNS), units.Time(s.ToNS), units.Change(s.Change), units.Change(s.ChangeLow), units.Change(s.ChangeHigh), resolved, units.Signed(s.TracedDeltaNS, 0))
		t := NewTable(Col{Head: "CHANGE", Right: true}, Col{Head: "PHASE", Wrap: true, Min: 20}, Col{Head: "NS/HOP BEFORE → AFTER", Right: true})
		t.Indent = 2
		for _, p := range s.Phases[:min(len(s.Phases), 6)] {
			t.Row(units.Signed(p.DeltaNS, 0)+" ns", p.Name, units.Sig(p.FromNS)+" → "+units.Sig(p.ToNS))
		}
		t.Write(w, st)
	}
	if len(x.Claims) > 0 {
		prose(w, st, "\nthe published causes, judged by the phases:\n")
		for _, c := range x.Claims {
			what := c.Rung
			if c.Step != "" {
				what = c.Step
			}
			prose(w, st, "  [%s] %s: %q — %s\n", what, strings.ToUpper(c.Verdict), c.Claim, c.Phases)
			prose(w, st, "      %s\n", c.Evidence)
		}
		prose(w, st, "  (claims from %s)\n", x.Claims[0].Source)
	}
}
