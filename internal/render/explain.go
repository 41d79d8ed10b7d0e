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
		fmt.Fprintf(w, "  one-way (median): %s untraced, %s traced — the probes cost %s [%s, %s] (%d blocks each, interleaved)\n",
			units.Time(e.UntracedOneWayNS), units.Time(e.TracedOneWayNS), units.Change(e.ProbeCost), units.Change(e.ProbeCostLow), units.Change(e.ProbeCostHigh), e.Blocks)
		fmt.Fprintf(w, "  closure: the phases sum to %s of the traced hop (mean %s); %s of the kernel clock's %s per hop",
			units.Percent(100*e.Closure, 0), units.Time(e.TracedMeanNS), units.Percent(100*e.KernelClosure, 0), units.Time(e.KernelHopNS))
		if e.OtherNS > 0 {
			fmt.Fprintf(w, " (other tasks and idle took %s more)", units.Time(e.OtherNS))
		}
		fmt.Fprintln(w)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  PHASE\tNS/HOP\tSHARE\tPER HOP\tPROBES\t")
		for _, p := range e.Phases {
			share := 0.0
			if e.TracedMeanNS > 0 {
				share = p.NsPerHop / e.TracedMeanNS
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t\n", p.Name, units.Sig(p.NsPerHop), units.Percent(100*share, 0), units.Fixed(p.PerHop, 2), p.Probes)
		}
		fmt.Fprintf(tw, "  not attributed\t%s\t\t\t\t\n", units.Sig(e.UnattributedNS))
		tw.Flush()
		for _, wn := range r.Warnings {
			if wn.Code == "explain-closure" {
				fmt.Fprintf(w, "  ! %s\n", wn.Message)
			}
		}
		for _, n := range e.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		for _, g := range e.Gaps {
			if !gaps[g.Work] {
				gaps[g.Work] = true
				gapLines = append(gapLines, fmt.Sprintf("- %s: inside %q; needs %s", g.Work, g.Inside, g.Needs))
			}
		}
	}
	if doc.Derived != nil && doc.Derived.Explain != nil {
		explainSteps(w, doc.Derived.Explain)
	}
	if len(gapLines) > 0 {
		fmt.Fprintf(w, "\nwhat these probes cannot split here:\n%s\n", strings.Join(gapLines, "\n"))
	}
	Missing(w, doc)
}

// explainSteps prints where each ladder step comes from (the phases that
// changed most) and the published causes with their verdicts.
func explainSteps(w io.Writer, x *result.ExplainDerived) {
	for _, s := range x.Steps {
		resolved := "resolved"
		switch {
		case s.Confidence < 0.95-1e-9: // a verdict only from an interval at 95%
			resolved = "not enough rounds to tell: interval at " + units.Percent(100*s.Confidence, 0)
		case !s.Resolved:
			resolved = "not resolved here"
		}
		fmt.Fprintf(w, "\nstep %s: %s → %s, %s [%s, %s] untraced (%s); the traced phases change by %s ns per hop:\n",
			s.What, units.Time(s.FromNS), units.Time(s.ToNS), units.Change(s.Change), units.Change(s.ChangeLow), units.Change(s.ChangeHigh), resolved, units.Signed(s.TracedDeltaNS, 0))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for i, p := range s.Phases {
			if i == 6 {
				break
			}
			fmt.Fprintf(tw, "  %s ns\t%s\t(%s → %s)\t\n", units.Signed(p.DeltaNS, 0), p.Name, units.Sig(p.FromNS), units.Sig(p.ToNS))
		}
		tw.Flush()
	}
	if len(x.Claims) > 0 {
		fmt.Fprintln(w, "\nthe published causes, judged by the phases:")
		for _, c := range x.Claims {
			fmt.Fprintf(w, "  [%s] %s: %q — %s\n      %s\n", c.Rung, strings.ToUpper(c.Verdict), c.Claim, c.Phases, c.Evidence)
		}
		fmt.Fprintf(w, "  (claims from %s)\n", x.Claims[0].Source)
	}
}
