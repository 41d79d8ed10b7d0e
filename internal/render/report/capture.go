package report

import (
	"fmt"
	"math"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// captureView is a cell's captured slow hops: the slowest drawn as CPU
// lanes on one time axis beside a typical hop on the same axis, coloured
// by cause; the slowest hops one row each; the slow hops against the
// typical ones by cause and by part.
type captureView struct {
	Summary, Cost string
	Figs          []captureFig
	Legend        []causeSwatch
	Hops          []capturedRow
	Causes        []captureRow
	Parts         []captureRow
	Notes         []string
}

type captureFig struct {
	Caption string
	Fig     Fig
}

type causeSwatch struct{ Class, Name string }

type capturedRow struct{ NS, Excess, CPUs, Main string }

type captureRow struct{ Class, Name, Slow, Typical, Delta, Share string }

func causeClass(c result.Cause) string { return "c-" + string(c) }

// captureOf builds the view of c (nil without one).
func captureOf(c *result.Capture) *captureView {
	if c == nil {
		return nil
	}
	n := c.Counts
	v := &captureView{Notes: c.Notes}
	v.Summary = fmt.Sprintf("hops captured in the kernel above %s: %s of %s hops past it, %s copied out%s, %s kept, %s not kept; a hop on the kernel's clock p50 %s, p99 %s, p99.9 %s (%s, %d blocks)",
		c.Threshold, units.Count(float64(n.Past)), units.Count(float64(n.Hops)), units.Count(float64(n.Copied)), render.LostWords(n.Lost, ", %s lost (the buffer full)"),
		units.Count(float64(n.Kept)), units.Count(float64(n.NotKept)), units.Time(c.HopNS.P50), units.Time(c.HopNS.P99), units.Time(c.HopNS.P99_9), c.Method, c.Blocks)
	if k := c.Cost; k != nil {
		v.Cost = fmt.Sprintf("the capture's own cost: %s [%s, %s] at %s on the hop (capture on against off, both traced, %d rounds paired); the figures beside it come from the cells without it",
			units.Change(k.Change), units.Change(k.Low), units.Change(k.High), units.Digits(100*k.Confidence, 3)+"%", k.Rounds)
	} else {
		v.Cost = "the capture's own cost: not measured (fewer than two rounds paired)"
	}
	scale := 0.0
	if len(c.Slowest) > 0 {
		scale = c.Slowest[0].Ns
	}
	for _, t := range c.Typical {
		scale = math.Max(scale, t.Ns)
	}
	seen := map[result.Cause]bool{}
	if len(c.Slowest) > 0 && scale > 0 {
		h := c.Slowest[0]
		v.Figs = append(v.Figs, captureFig{Caption: fmt.Sprintf("the slowest hop, %s (%s beyond a typical one): %s", units.Time(h.Ns), units.SignedTime(h.ExcessNs), mainText(h)),
			Fig: lanesFig("the slowest captured hop as CPU lanes on one time axis", h, scale, seen)})
	}
	if len(c.Typical) > 0 && scale > 0 {
		h := c.Typical[0]
		v.Figs = append(v.Figs, captureFig{Caption: fmt.Sprintf("a typical hop, %s, on the same axis", units.Time(h.Ns)),
			Fig: lanesFig("a typical hop as CPU lanes on the same time axis", h, scale, seen)})
		if h.Ns > 0 && h.Ns < scale/4 {
			v.Figs = append(v.Figs, captureFig{Caption: "the same typical hop on its own axis, for its parts",
				Fig: lanesFig("a typical hop as CPU lanes on its own time axis", h, h.Ns, seen)})
		}
	}
	for _, cause := range result.Causes() {
		if seen[cause] {
			v.Legend = append(v.Legend, causeSwatch{causeClass(cause), render.CauseWords(cause)})
		}
	}
	for _, h := range c.Slowest {
		cpus := fmt.Sprint(h.WakeeCPU)
		if h.WakerCPU != h.WakeeCPU {
			cpus = fmt.Sprintf("%d→%d", h.WakerCPU, h.WakeeCPU)
		}
		v.Hops = append(v.Hops, capturedRow{NS: units.Time(h.Ns), Excess: units.SignedTime(h.ExcessNs), CPUs: cpus, Main: mainText(h)})
	}
	row := func(class, name string, slow, typ float64, d result.Difference, share float64) captureRow {
		delta := units.SignedTime(d.NS)
		if d.Blocks >= 2 {
			delta += fmt.Sprintf(" [%s, %s]", units.SignedTime(d.Low), units.SignedTime(d.High))
			if !d.Resolved() {
				delta += " " + render.MarkUnresolved.Symbol
			}
		}
		return captureRow{Class: class, Name: name, Slow: units.Time(slow), Typical: units.Time(typ), Delta: delta, Share: units.Percent(100*share, 0)}
	}
	for _, cc := range c.Causes {
		name := render.CauseWords(cc.Cause)
		for _, t := range cc.Tasks {
			name += " · " + t.String()
		}
		v.Causes = append(v.Causes, row(causeClass(cc.Cause), name, cc.SlowNS, cc.TypicalNS, cc.Delta, cc.Share))
	}
	for i, p := range c.Phases {
		if i == 8 {
			break
		}
		v.Parts = append(v.Parts, row(causeClass(p.Cause), p.Name, p.SlowNS, p.TypicalNS, p.Delta, p.Share))
	}
	return v
}

func mainText(h result.CapturedHop) string {
	m := h.Main
	if m == nil {
		return ""
	}
	name := m.Name
	if m.Task != nil {
		name = "another task ran: " + m.Task.String()
	}
	return fmt.Sprintf("%s, %s (%s of the excess)", name, units.SignedTime(m.Ns), units.Percent(100*m.Share, 0))
}

// Lanes of a captured hop: one per CPU it crossed, the waker's above.
const (
	capLabelW = 96.0
	capW      = 700.0
	capLaneH  = 20.0
	capGap    = 6.0
	capAxisH  = 16.0
)

// lanesFig draws hop h's pieces on its CPUs' lanes, time on an axis from 0
// to scale ns, coloured by cause; seen collects the causes drawn.
func lanesFig(label string, h result.CapturedHop, scale float64, seen map[result.Cause]bool) Fig {
	cpus := []int{h.WakerCPU}
	if h.WakeeCPU != h.WakerCPU {
		cpus = append(cpus, h.WakeeCPU)
	}
	laneOf := map[int]int{}
	for i, c := range cpus {
		laneOf[c] = i
	}
	var elems []Elem
	for i, c := range cpus {
		name := fmt.Sprintf("CPU %d", c)
		switch {
		case len(cpus) == 1:
		case c == h.WakerCPU:
			name += " waker"
		default:
			name += " woken"
		}
		y := float64(i)*(capLaneH+capGap) + capLaneH/2 + 4
		elems = append(elems, text(0, y, name, "start", "lane"))
	}
	x := func(ns float64) float64 { return capLabelW + capW*ns/scale }
	for _, p := range h.Pieces {
		if p.Phase < 0 || p.Phase >= len(h.Phases) {
			continue
		}
		ph := h.Phases[p.Phase]
		lane, ok := laneOf[p.CPU]
		if !ok {
			continue
		}
		seen[ph.Cause] = true
		name := ph.Name
		if ph.Task != nil {
			name = "another task ran: " + ph.Task.String()
		}
		title := fmt.Sprintf("CPU %d, at %s: %s, %s (%s)", p.CPU, units.Time(p.AtNs), name, units.Time(p.Ns), render.CauseWords(ph.Cause))
		elems = append(elems, group(title, rect(x(p.AtNs), float64(lane)*(capLaneH+capGap), math.Max(capW*p.Ns/scale, 0.3), capLaneH, causeClass(ph.Cause))))
	}
	axisY := float64(len(cpus))*(capLaneH+capGap) + 2
	elems = append(elems, line(capLabelW, axisY, capLabelW+capW, axisY, "axis"))
	for _, f := range []float64{0, 0.5, 1} {
		anchor := "middle"
		switch f {
		case 0:
			anchor = "start"
		case 1:
			anchor = "end"
		}
		elems = append(elems, line(x(f*scale), axisY, x(f*scale), axisY+3, "axis"), text(x(f*scale), axisY+capAxisH-2, units.Time(f*scale), anchor, "lane"))
	}
	end := x(h.Ns)
	elems = append(elems, group("the hop's end: "+units.Time(h.Ns), line(end, 0, end, axisY, "hopmark")))
	return Fig{W: int(capLabelW+capW) + 2, H: int(axisY + capAxisH + 2), Label: label, Class: "phasebar lanes", Elems: elems}
}
