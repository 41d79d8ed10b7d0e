package report

// attach.go: the report's "In place" section (ctxbench attach): per
// target, the share lost and the run-queue wait with their intervals, the
// rate by kind, a switch's path stacked by phase, the windows over time,
// the what-if; then --check's comparison and the attach's own cost.

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

type attachRun struct {
	Run      *runView
	Summary  string
	Targets  []attachTargetView
	Check    []string
	Overhead string
	Notes    []string
}

type attachTargetView struct {
	Name     string
	Headline []string
	Kinds    []attachKindRow
	Bar      Fig
	Phases   []explainPhaseView
	Windows  *Fig
	WhatIf   []string
}

type attachKindRow struct {
	Kind, PerS, Share, Ns, P50, P99 string
}

// attachKindNames read a kind as the report names it.
var attachKindNames = map[string]string{
	"voluntary": "away: blocked", "involuntary": "away: preempted", "to_idle": "away: to idle",
	"woken_same_cpu": "in: woken from the same CPU", "woken_cross_cpu": "in: woken from another CPU",
	"resumed": "in: after a preemption", "new": "in: first run", "unknown": "in: not seen woken",
	"from_idle": "in: from idle", "migrated": "in: on another CPU than before",
}

func attachViews(runs []*runView) []attachRun {
	var out []attachRun
	for _, rv := range runs {
		a := rv.Doc.Attach
		if a == nil {
			continue
		}
		set := "light probes (a switch's path from __schedule's entry to the return to user space)"
		if a.Probes == "full" {
			set = "full probes (a switch's path from the syscall's entry to the return to user space)"
		}
		v := attachRun{Run: rv, Summary: fmt.Sprintf("attached %s of %s, in windows of %s; %s", units.Time(a.Seconds*1e9),
			units.Time(a.DurationSeconds*1e9), units.Time(a.WindowSeconds*1e9), set), Notes: a.Notes}
		for i := range a.Targets {
			v.Targets = append(v.Targets, attachTargetOf(&a.Targets[i]))
		}
		if c := a.Check; c != nil && len(a.Targets) == 1 {
			t := &a.Targets[0]
			v.Check = []string{
				fmt.Sprintf("the known workload: %s pipe hops/s stated, %s made while attached, on CPU %d; its switches counted %s of its own /proc counters'",
					units.Count(c.HopsPerS), units.Count(c.AchievedPerS), c.CPU, shareText(t.Proc.Agreement)),
				fmt.Sprintf("the ladder's thread/pipe same-cpu hop in the same sitting: %s untraced, %s traced by these probes, its switches' direct cost %s (%d rounds, interleaved)",
					ivText(c.LadderOneWayNs), ivText(c.LadderTracedNs), ivText(c.LadderNsPerSwitch), c.Rounds),
				fmt.Sprintf("the workload's direct cost per switch, %s, is %s of the ladder's traced hop and %s of its switches' direct cost",
					units.Time(t.NsPerSwitch.Value), shareText(c.RatioToTracedHop), shareText(c.RatioToLadderSwitch)),
				fmt.Sprintf("the attach took %s [%s, %s] of its throughput (%s, rounds paired)", shareText(c.ThroughputCost.Median),
					shareText(c.ThroughputCost.Low), shareText(c.ThroughputCost.High), levelText(c.ThroughputCost.Confidence)),
			}
		}
		if o := a.Overhead; o.StatsOn {
			v.Overhead = fmt.Sprintf("The attach's own cost: its programs ran %s per switch of the targets, %s per run, %s of a CPU (%s). %s",
				units.Time(o.NsPerSwitch), units.Time(o.NsPerRun), figText(o.CPUShare, shareText), levelText(o.CPUShare.Confidence), o.Method)
		} else {
			v.Overhead = "The attach's own cost: not known (the kernel kept no BPF run-time statistics)."
		}
		if !a.Indirect.Available {
			v.Notes = append(v.Notes, "indirect cost: not given — "+a.Indirect.Reason)
		}
		out = append(out, v)
	}
	return out
}

func shareText(x float64) string {
	switch a := max(x, -x); {
	case a < 0.001 && x != 0:
		return units.Percent(100*x, 3)
	case a < 0.1:
		return units.Percent(100*x, 2)
	}
	return units.Percent(100*x, 1)
}

func levelText(c float64) string {
	if c <= 0 {
		return "no interval"
	}
	return units.Digits(100*c, 3) + "%"
}

func figText(f result.AttachFigure, format func(float64) string) string {
	if f.Windows < 2 {
		return format(f.Value)
	}
	return fmt.Sprintf("%s (window median %s [%s, %s])", format(f.Value), format(f.Median), format(f.Low), format(f.High))
}

func ivText(i result.Interval) string {
	if i.Rounds < 2 {
		return units.Time(i.Median)
	}
	return fmt.Sprintf("%s [%s, %s]", units.Time(i.Median), units.Time(i.Low), units.Time(i.High))
}

func attachTargetOf(t *result.AttachTarget) attachTargetView {
	v := attachTargetView{Name: t.Name}
	if t.ExitedAfterSeconds != nil {
		v.Headline = append(v.Headline, fmt.Sprintf("It exited after %s: what follows is what was seen before.", units.Time(*t.ExitedAfterSeconds*1e9)))
	}
	if t.Switches == 0 {
		v.Headline = append(v.Headline, "No switch seen.")
		return v
	}
	v.Headline = append(v.Headline,
		fmt.Sprintf("Share of its CPU time lost to switching: %s (%s over %d windows) — the direct cost, %s per switch × %s switches/s, over its CPU time (%s CPUs busy on average).",
			figText(t.ShareLost, shareText), levelText(t.ShareLost.Confidence), t.ShareLost.Windows, units.Time(t.NsPerSwitch.Value),
			units.Count(t.SwitchesPerS.Value), units.Sig(t.CPUPerS)),
		fmt.Sprintf("Run-queue wait: %s of wall time, summed over its tasks (%s).", figText(t.RunQueue.ShareOfWall, shareText), levelText(t.RunQueue.ShareOfWall.Confidence)),
		fmt.Sprintf("Switches: %s/s (%s); its own /proc counters say %s/s: counted here %s of theirs.",
			figText(t.SwitchesPerS, units.Count), levelText(t.SwitchesPerS.Confidence), units.Count(t.Proc.SwitchesPerS), shareText(t.Proc.Agreement)))
	for _, k := range t.Kinds {
		if k.PerS < 0.5 {
			continue
		}
		name := attachKindNames[k.Kind]
		if name == "" {
			name = k.Kind
		}
		v.Kinds = append(v.Kinds, attachKindRow{Kind: name, PerS: units.Count(k.PerS), Share: shareText(k.Share),
			Ns: optNs(k.NsPerSwitch), P50: optNs(k.P50), P99: optNs(k.P99)})
	}
	color := map[string]string{}
	classOf := func(name string) string {
		cls, ok := color[name]
		if !ok {
			cls = fmt.Sprintf("ph%d", len(color)%phaseClasses)
			color[name] = cls
		}
		return cls
	}
	var phases []result.ExplainPhase
	total := 0.0
	for _, p := range t.Phases {
		phases = append(phases, result.ExplainPhase{Name: p.Name, What: p.What, NsPerHop: p.Ns, PerHop: p.PerSwitch})
		total += p.Ns
		v.Phases = append(v.Phases, explainPhaseView{Class: classOf(p.Name), Name: p.Name, NS: units.Time(p.Ns),
			Share: units.Percent(100*p.Share, 0), What: p.What})
	}
	if total > 0 {
		v.Bar = hopFig("a switch's path of "+t.Name+", stacked in time order", phases,
			func(p result.ExplainPhase) (float64, bool) { return p.NsPerHop, false }, classOf, total, total,
			"the direct cost per switch: "+units.Time(t.NsPerSwitch.Value))
	}
	v.Windows = windowsFig(t)
	if wi := t.WhatIf; wi != nil {
		for _, l := range wi.Ladder {
			n := fmt.Sprintf("%d sittings", l.Sittings)
			if l.Sittings == 1 {
				n = "1 sitting"
			}
			v.WhatIf = append(v.WhatIf, fmt.Sprintf("this machine's ladder: %s %s %s untraced (%s, the latest %s)", l.Name, l.Placement, units.Time(l.OneWayNs), n, l.At))
		}
		if wi.ShareAtLadder != nil {
			v.WhatIf = append(v.WhatIf, fmt.Sprintf("at the ladder's bare hops this switch rate would cost %s of its CPU time (measured: %s)", shareText(*wi.ShareAtLadder), shareText(t.ShareLost.Value)))
		}
		for _, y := range wi.Why {
			v.WhatIf = append(v.WhatIf, "why dearer: "+y)
		}
		if wi.Note != "" {
			v.WhatIf = append(v.WhatIf, wi.Note)
		}
		if p := wi.Pool; p != nil {
			var pts []string
			for _, q := range p.Points {
				s := fmt.Sprintf("pool %d: %s switches per query", q.Pool, units.Sig(q.SwitchesPerQuery))
				if q.ShareLost != nil {
					s += ", " + shareText(*q.ShareLost) + " of the server's CPU"
				}
				pts = append(pts, s)
			}
			v.WhatIf = append(v.WhatIf, fmt.Sprintf("the pool curve of %s (%s, %s) at this cost per switch: %s", p.File, p.Server, p.Series, strings.Join(pts, "; ")))
		}
	}
	return v
}

func optNs(v *float64) string {
	if v == nil {
		return "—"
	}
	return units.Time(*v)
}

// windowsFig draws the share lost in each window over time, with the
// whole run's figure as a line.
func windowsFig(t *result.AttachTarget) *Fig {
	var xs, ys []float64
	hi := 0.0
	for _, w := range t.Windows {
		if w.ShareLost == nil {
			continue
		}
		xs = append(xs, w.StartSeconds+w.Seconds/2)
		ys = append(ys, *w.ShareLost)
		hi = max(hi, *w.ShareLost)
	}
	if len(xs) < 2 || hi <= 0 {
		return nil
	}
	end := 0.0
	for _, w := range t.Windows {
		end = max(end, w.StartSeconds+w.Seconds)
	}
	p := newPlot(520, 200, "the share of CPU time lost to switching in each window of "+t.Name)
	xt, x0, x1 := linTicks(0, end, 5, func(v float64) string { return units.Sig(v) + " s" })
	yt, y0, y1 := linTicks(0, hi*1.1, 4, func(v float64) string { return shareText(v) })
	p.x = scale{lo: x0, hi: x1, from: p.left, to: p.right}
	p.y = scale{lo: y0, hi: y1, from: p.bot, to: p.top}
	p.axes("share lost, window by window", "time", "share lost", xt, yt)
	var px, py []float64
	var g []Elem
	for i := range xs {
		px, py = append(px, p.x.pos(xs[i])), append(py, p.y.pos(ys[i]))
		g = append(g, group(fmt.Sprintf("%s s: %s", units.Sig(xs[i]), shareText(ys[i])), marker("circle", px[i], py[i], 3.5, "mk")))
	}
	e := group("", append(polyline(px, py, "ln net"), g...)...)
	e.Class = "pc50"
	p.add(e)
	y := p.y.pos(t.ShareLost.Value)
	p.add(group("the whole run: "+shareText(t.ShareLost.Value), line(p.left, y, p.right, y, "hopmark")))
	return &p.fig
}
