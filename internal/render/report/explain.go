package report

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// explainView is one explained benchmark of one run: its hop as a stacked
// bar of kernel phases, in time order, on a scale shared by the run's bars.
type explainView struct {
	Run     *runView
	Name    string
	Summary string
	Bar     Fig
	Phases  []explainPhaseView
	Warn    []string
}

type explainPhaseView struct {
	Class, Name, NS, Share, What string
}

// explainRun is one run's explained benchmarks, steps and judged claims.
type explainRun struct {
	Run    *runView
	Rows   []explainView
	Steps  []result.ExplainStep
	Claims []result.ExplainClaim
}

// phaseClasses colour the phases in turn (report.css .ph0 ... .ph7).
const phaseClasses = 8

func explainViews(runs []*runView) []explainRun {
	var out []explainRun
	for _, rv := range runs {
		er := explainRun{Run: rv}
		color := map[string]string{} // one colour per phase name across the run's bars
		scale := 0.0
		for _, r := range rv.Doc.Results {
			if e := r.Explain; e != nil {
				scale = max(scale, e.TracedMeanNS, sum(e.Phases))
			}
		}
		for _, r := range rv.Doc.Results {
			e := r.Explain
			if e == nil || scale <= 0 {
				continue
			}
			v := explainView{Run: rv, Name: r.Name + " " + r.Placement,
				Summary: fmt.Sprintf("%s per hop untraced, %s traced (the probes cost %s [%s, %s]); the phases sum to %s of the traced hop",
					units.Time(e.UntracedOneWayNS), units.Time(e.TracedOneWayNS), units.Change(e.ProbeCost), units.Change(e.ProbeCostLow), units.Change(e.ProbeCostHigh), units.Percent(100*e.Closure, 0))}
			const w, h = 720.0, 26.0
			x := 0.0
			var elems []Elem
			for _, p := range e.Phases {
				cls, ok := color[p.Name]
				if !ok {
					cls = fmt.Sprintf("ph%d", len(color)%phaseClasses)
					color[p.Name] = cls
				}
				share := 0.0
				if e.TracedMeanNS > 0 {
					share = p.NsPerHop / e.TracedMeanNS
				}
				pw := w * p.NsPerHop / scale
				elems = append(elems, group(fmt.Sprintf("%s: %s per hop (%s of the traced hop; %s per hop) — %s", p.Name, units.Time(p.NsPerHop), units.Percent(100*share, 0), units.Fixed(p.PerHop, 2), p.What),
					rect(x, 2, pw, h, cls)))
				x += pw
				v.Phases = append(v.Phases, explainPhaseView{Class: cls, Name: p.Name, NS: units.Time(p.NsPerHop), Share: units.Percent(100*share, 0), What: p.What})
			}
			// The traced hop on the user clock, as a mark the bar should reach.
			tx := w * e.TracedMeanNS / scale
			elems = append(elems, group("the traced hop (user-space clock, mean): "+units.Time(e.TracedMeanNS), line(tx, 0, tx, h+4, "hopmark")))
			v.Bar = Fig{W: int(w) + 2, H: int(h) + 6, Label: "phases of a " + r.Name + " hop, stacked in time order", Class: "phasebar", Elems: elems}
			for _, wn := range r.Warnings {
				if wn.Code == "explain-closure" {
					v.Warn = append(v.Warn, wn.Message)
				}
			}
			er.Rows = append(er.Rows, v)
		}
		if d := rv.Doc.Derived; d != nil && d.Explain != nil {
			er.Steps, er.Claims = d.Explain.Steps, d.Explain.Claims
		}
		if len(er.Rows) > 0 {
			out = append(out, er)
		}
	}
	return out
}

func sum(ps []result.ExplainPhase) float64 {
	s := 0.0
	for _, p := range ps {
		s += p.NsPerHop
	}
	return s
}
