package report

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// explainView is one explained benchmark of one run: its hop as a stacked
// bar of kernel phases, in time order, on a scale shared by the run's bars
// — traced, and beneath it on the untraced scale where the run has one. A
// hop across CPUs is drawn as two lanes, the waker's CPU above the wakee's.
type explainView struct {
	Run     *runView
	Name    string
	Summary string
	Bar     Fig
	// Untraced is the same hop on the untraced scale (nil without one).
	Untraced *Fig
	Captions [2]string // what Bar and Untraced show
	Phases   []explainPhaseView
	// Sides and HasUntraced say which columns the phase table has; Marked
	// that a phase carries the untrustworthy mark (its legend is shown).
	Sides, HasUntraced, Marked bool
	Warn                       []string
	// Capture is the row's captured slow hops (nil without).
	Capture *captureView
}

type explainPhaseView struct {
	Class, Name, CPU, NS, Untraced, Share, What string
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
		classOf := func(name string) string {
			cls, ok := color[name]
			if !ok {
				cls = fmt.Sprintf("ph%d", len(color)%phaseClasses)
				color[name] = cls
			}
			return cls
		}
		scale := 0.0
		for _, r := range rv.Doc.Results {
			if e := r.Explain; e != nil {
				scale = max(scale, e.TracedMeanNS, sum(e.Phases))
			}
		}
		for _, r := range rv.Doc.Results {
			if r.Explain == nil || scale <= 0 {
				continue
			}
			v := explainRow(r, classOf, scale)
			v.Run = rv
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

// explainRow is one explained result's summary, bars and phase table.
func explainRow(r result.Result, classOf func(string) string, scale float64) explainView {
	e := r.Explain
	v := explainView{Name: r.Name + " " + r.Placement, Summary: explainSummary(e)}
	traced := func(p result.ExplainPhase) (float64, bool) { return p.NsPerHop, false }
	v.Bar = hopFig("phases of a "+r.Name+" hop, traced, stacked in time order", e.Phases, traced, classOf, scale,
		e.TracedMeanNS, "the traced hop (user-space clock, mean): "+units.Time(e.TracedMeanNS))
	v.Captions[0] = "traced: the phases as the kernel's clock measured them; the tick is the traced hop"
	if e.UntracedClosure != nil {
		untraced := func(p result.ExplainPhase) (float64, bool) {
			if p.UntracedNs == nil {
				return 0, false
			}
			return *p.UntracedNs, p.UntracedUnreliable
		}
		f := hopFig("phases of a "+r.Name+" hop on the untraced scale, stacked in time order", e.Phases, untraced, classOf, scale,
			e.UntracedMeanNS, "the untraced hop (user-space clock, mean): "+units.Time(e.UntracedMeanNS))
		v.Untraced = &f
		v.Captions[1] = "untraced scale: each phase less its probe firings × " + units.Sig(e.ProbeNsPerFiring.Median) + " ns; the tick is the untraced hop"
	}
	for _, p := range e.Phases {
		share := 0.0
		if e.TracedMeanNS > 0 {
			share = p.NsPerHop / e.TracedMeanNS
		}
		pv := explainPhaseView{Class: classOf(p.Name), Name: p.Name, CPU: p.CPU, NS: units.Time(p.NsPerHop), Share: units.Percent(100*share, 0), What: p.What}
		if p.UntracedNs != nil {
			pv.Untraced = units.Time(*p.UntracedNs)
			v.HasUntraced = true
			if p.UntracedUnreliable {
				pv.Untraced += " " + untrustedMark
				v.Marked = true
			}
		}
		v.Sides = v.Sides || p.CPU != ""
		v.Phases = append(v.Phases, pv)
	}
	for _, wn := range r.Warnings {
		if wn.Code == "explain-closure" {
			v.Warn = append(v.Warn, wn.Message)
		}
	}
	v.Capture = captureOf(e.Capture)
	return v
}

// untrustedMark follows an untraced figure the correction swamps.
var untrustedMark = render.MarkUntrusted.Symbol

// explainSummary is the line under a row's name: both one-way figures,
// the probes' cost (relative, and per firing with its level) and the
// closure on each scale.
func explainSummary(e *result.Explain) string {
	s := fmt.Sprintf("%s per hop untraced, %s traced (the probes cost %s [%s, %s]",
		units.Time(e.UntracedOneWayNS), units.Time(e.TracedOneWayNS), units.Change(e.ProbeCost), units.Change(e.ProbeCostLow), units.Change(e.ProbeCostHigh))
	if e.ProbeCostConfidence > 0 {
		s += " at " + units.Digits(100*e.ProbeCostConfidence, 3) + "%"
	}
	if c := e.ProbeNsPerFiring; c != nil {
		s += fmt.Sprintf(": %s ns per firing [%s, %s] at %s, %s firings per hop",
			units.Sig(c.Median), units.Sig(c.Low), units.Sig(c.High), units.Digits(100*c.Confidence, 3)+"%", units.Sig(e.FiringsPerHop))
	}
	if e.Probes == "light" {
		s += "; the light probe set: syscalls, wakeup and switch only"
	}
	s += "); the phases sum to " + units.Percent(100*e.Closure, 0) + " of the traced hop"
	if e.UntracedClosure != nil {
		s += ", and on the untraced scale to " + units.Percent(100**e.UntracedClosure, 0) + " of the untraced hop"
	}
	return s
}

// Lanes of a hop across CPUs: the waker's CPU above, the wakee's below,
// the "between" phases (from an event on one CPU to one on the other)
// drawn as a band crossing from one lane to the other. Time runs left to
// right in the order of the phases.
const (
	barW, barH  = 720.0, 26.0
	laneH, gapH = 22.0, 20.0
	laneLabelW  = 64.0
)

// hopFig stacks the phases' values (value gives each one's ns and whether
// it is marked untrustworthy; a negative value is drawn empty) on scale,
// with a tick at hop.
func hopFig(label string, phases []result.ExplainPhase, value func(result.ExplainPhase) (float64, bool), classOf func(string) string,
	scale, hop float64, hopTitle string) Fig {
	lanes := false
	for _, p := range phases {
		lanes = lanes || p.CPU != ""
	}
	left, h := 0.0, barH
	var elems []Elem
	if lanes {
		left, h = laneLabelW, 2*laneH+gapH
		elems = append(elems, text(0, 2+laneH/2+4, "waker CPU", "start", "lane"), text(0, 2+laneH+gapH+laneH/2+4, "wakee CPU", "start", "lane"))
	}
	x := left
	for _, p := range phases {
		ns, marked := value(p)
		pw := barW * max(ns, 0) / scale
		cls := classOf(p.Name)
		if marked {
			cls += " unsure"
		}
		title := fmt.Sprintf("%s: %s per hop (%s per hop) — %s", p.Name, units.Time(ns), units.Fixed(p.PerHop, 2), p.What)
		if p.CPU != "" {
			title = p.CPU + ": " + title
		}
		if marked {
			title += " — " + untrustedMark + " " + render.MarkUntrusted.Legend
		}
		elems = append(elems, group(title, phaseShape(x, pw, p.CPU, lanes, cls)))
		x += pw
	}
	tx := left + barW*hop/scale
	elems = append(elems, group(hopTitle, line(tx, 0, tx, h+4, "hopmark")))
	return Fig{W: int(left+barW) + 2, H: int(h) + 6, Label: label, Class: "phasebar", Elems: elems}
}

// phaseShape is one phase's block: the whole bar on one CPU; on two, a
// rectangle in its side's lane, a band from the upper lane to the lower
// for the time between the CPUs, and the full height where no side is
// known.
func phaseShape(x, w float64, side string, lanes bool, cls string) Elem {
	if !lanes {
		return rect(x, 2, w, barH, cls)
	}
	top, bottom := 2.0, 2+laneH+gapH
	switch side {
	case "waker":
		return rect(x, top, w, laneH, cls)
	case "wakee":
		return rect(x, bottom, w, laneH, cls)
	case "between":
		return Elem{Tag: "path", Class: cls, D: fmt.Sprintf("M%s %sL%s %sL%s %sL%s %sZ",
			num(x), num(top), num(x+w), num(bottom), num(x+w), num(bottom+laneH), num(x), num(top+laneH))}
	}
	return rect(x, top, w, bottom+laneH-top, cls)
}

func sum(ps []result.ExplainPhase) float64 {
	s := 0.0
	for _, p := range ps {
		s += p.NsPerHop
	}
	return s
}
