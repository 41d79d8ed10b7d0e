package render

// attach.go: ctxbench attach's terminal view: one screen per target — the
// share lost to switching and the share of wall time waiting, each with
// its interval; the rate by kind; the cost per switch against the ladder;
// the biggest phase — then the attach's own cost.

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// kindLabels name the kinds of switch as the view shows them.
var kindLabels = map[string]string{
	"voluntary":       "away: blocked",
	"involuntary":     "away: preempted",
	"to_idle":         "away: to idle",
	"woken_same_cpu":  "in: woken, same CPU",
	"woken_cross_cpu": "in: woken, other CPU",
	"resumed":         "in: after preemption",
	"new":             "in: first run",
	"unknown":         "in: not seen woken",
	"from_idle":       "in: from idle",
	"migrated":        "in: migrated",
}

// Attach prints ctxbench attach's document.
func Attach(w io.Writer, doc *result.Document) {
	st := styleOf(w)
	a := doc.Attach
	if a == nil {
		prose(w, st, "no attach in this document\n")
		return
	}
	set := "light probes: a switch's path from __schedule's entry to the return to user space"
	if a.Probes == "full" {
		set = "full probes: a switch's path from the syscall's entry to the return to user space"
	}
	prose(w, st, "ctxbench attach — %s\n", doc.Environment.HostLine())
	prose(w, st, "attached %s of %s (%s windows of %s; %s)%s\n", units.Time(a.Seconds*1e9), units.Time(a.DurationSeconds*1e9),
		fmt.Sprint(windowsOf(a)), units.Time(a.WindowSeconds*1e9), set, endedText(a))
	for i := range a.Targets {
		attachTarget(w, st, a, &a.Targets[i])
	}
	if c := a.Check; c != nil && len(a.Targets) == 1 {
		attachCheck(w, st, c, &a.Targets[0])
	}
	attachOverhead(w, st, a)
	for _, n := range a.Notes {
		prose(w, st, "note: %s\n", n)
	}
}

func windowsOf(a *result.Attach) int {
	n := 0
	for _, t := range a.Targets {
		n = max(n, len(t.Windows))
	}
	return n
}

func endedText(a *result.Attach) string {
	if a.Ended == "targets exited" {
		return "; it ended when its targets exited"
	}
	return ""
}

// figureText is a figure over windows: the whole run's value (with its
// unit, unit), then the windows' median with its interval and level.
func figureText(f result.AttachFigure, format func(float64) string, unit string) string {
	if f.Windows < 2 {
		return format(f.Value) + unit
	}
	return fmt.Sprintf("%s%s (window median %s [%s, %s]%s)", format(f.Value), unit, format(f.Median), format(f.Low), format(f.High), atLevel(f.Confidence))
}

// share is a fraction as a percentage, with the decimals its size needs.
func share(x float64) string {
	a := x
	if a < 0 {
		a = -a
	}
	switch {
	case x == 0:
		return "0%"
	case a < 0.001:
		return units.Percent(100*x, 3)
	case a < 0.1:
		return units.Percent(100*x, 2)
	}
	return units.Percent(100*x, 1)
}

func attachTarget(w io.Writer, st Style, a *result.Attach, t *result.AttachTarget) {
	prose(w, st, "\n%s: %s, %s busy on average\n", t.Name, processes(t), units.Sig(t.CPUPerS)+" CPUs")
	if t.ExitedAfterSeconds != nil {
		prose(w, st, "  it exited after %s: what follows is what was seen before\n", units.Time(*t.ExitedAfterSeconds*1e9))
	}
	if t.Switches == 0 {
		prose(w, st, "  no switch seen\n")
		return
	}
	prose(w, st, "  share lost to switching: %s of its CPU time (the direct cost: %s per switch × %s switches/s, over its CPU time)\n",
		figureText(t.ShareLost, share, ""), units.Time(t.NsPerSwitch.Value), units.Count(t.SwitchesPerS.Value))
	prose(w, st, "  indirect cost: %s\n", indirectText(a.Indirect))
	if rq := t.RunQueue.ShareOfWall; rq.Value >= 1 {
		prose(w, st, "  run-queue wait: %s of its tasks waiting on average (their waits summed over wall time)%s\n",
			figureText(rq, units.Sig, ""), waitsText(t.RunQueue.Kinds))
	} else {
		prose(w, st, "  run-queue wait: %s of wall time, summed over its tasks%s\n", figureText(rq, share, ""), waitsText(t.RunQueue.Kinds))
	}
	prose(w, st, "  switches: %s (its own /proc counters: %s/s; counted here %s of theirs)\n",
		figureText(t.SwitchesPerS, units.Count, "/s"), units.Count(t.Proc.SwitchesPerS), share(t.Proc.Agreement))
	attachKinds(w, st, t)
	if p := t.Preemptions; p.PerS > 0 {
		prose(w, st, "  preempted by: %s\n", preemptersText(p))
	}
	prose(w, st, "  cost per switch: %s traced%s\n", figureText(t.NsPerSwitch, units.Time, ""), percentilesText(t.Percentiles))
	if big := biggest(t.Phases); big != nil {
		prose(w, st, "  biggest phase: %s, %s per switch (%s of the path)\n", big.Name, units.Time(big.Ns), share(big.Share))
	}
	whatIfText(w, st, t)
}

func processes(t *result.AttachTarget) string {
	if t.Kind == "all" {
		return "every task"
	}
	p, th := "processes", "threads"
	if t.Processes == 1 {
		p = "process"
	}
	if t.Threads == 1 {
		th = "thread"
	}
	return fmt.Sprintf("%d %s, %d %s", t.Processes, p, t.Threads, th)
}

func indirectText(in result.AttachIndirect) string {
	if in.Available && in.Share != nil {
		return share(*in.Share) + " (" + in.Method + ")"
	}
	return "not given — " + in.Reason
}

func waitsText(ws []result.AttachWait) string {
	var parts []string
	for _, k := range ws {
		parts = append(parts, fmt.Sprintf("%s p50 %s, p99 %s", strings.ReplaceAll(k.Kind, "_", " "), units.Time(k.P50), units.Time(k.P99)))
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

func percentilesText(p *result.AttachPercentiles) string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("; one switch's path p50 %s, p90 %s, p99 %s", units.Time(p.P50), units.Time(p.P90), units.Time(p.P99))
}

func attachKinds(w io.Writer, st Style, t *result.AttachTarget) {
	tb := NewTable(Col{Head: "KIND"}, Col{Head: "PER S", Right: true}, Col{Head: "SHARE", Right: true},
		Col{Head: "NS/SWITCH", Right: true, Fold: 2}, Col{Head: "p50", Right: true, Fold: 1}, Col{Head: "p99", Right: true, Fold: 1})
	tb.Indent = 2
	for _, k := range t.Kinds {
		if k.PerS < 0.5 {
			continue // a kind seen a handful of times: in the JSON
		}
		label := kindLabels[k.Kind]
		if label == "" {
			label = k.Kind
		}
		tb.Row(label, units.Count(k.PerS), share(k.Share), optTime(k.NsPerSwitch), optTime(k.P50), optTime(k.P99))
	}
	tb.Write(w, st)
}

func optTime(v *float64) string {
	if v == nil {
		return "—"
	}
	return units.Time(*v)
}

func preemptersText(p result.AttachPreemptions) string {
	var parts []string
	if p.BySame > 0 {
		parts = append(parts, "its own tasks "+units.Rate(p.BySame))
	}
	if p.ByTarget > 0 {
		parts = append(parts, "another target "+units.Rate(p.ByTarget))
	}
	if p.ByKernelThread > 0 {
		parts = append(parts, "kernel threads "+units.Rate(p.ByKernelThread))
	}
	if p.ByOther > 0 {
		parts = append(parts, "other processes "+units.Rate(p.ByOther))
	}
	s := strings.Join(parts, ", ")
	var top []string
	for _, q := range p.Top {
		top = append(top, fmt.Sprintf("%s (pid %d) %s", q.Comm, q.Pid, share(q.Share)))
	}
	if len(top) > 0 {
		s += "; most: " + strings.Join(top, ", ")
	}
	return s
}

func biggest(ps []result.AttachPhase) *result.AttachPhase {
	var b *result.AttachPhase
	for i := range ps {
		if b == nil || ps[i].Ns > b.Ns {
			b = &ps[i]
		}
	}
	return b
}

func whatIfText(w io.Writer, st Style, t *result.AttachTarget) {
	wi := t.WhatIf
	if wi == nil {
		return
	}
	for _, l := range wi.Ladder {
		prose(w, st, "  the ladder here: %s %s %s untraced (%s, the latest %s)\n", l.Name, l.Placement, units.Time(l.OneWayNs), sittings(l.Sittings), l.At)
	}
	if wi.ShareAtLadder != nil {
		prose(w, st, "  what if: at the ladder's bare hops this switch rate would cost %s of its CPU time (measured: %s)\n",
			share(*wi.ShareAtLadder), share(t.ShareLost.Value))
	}
	for _, y := range wi.Why {
		prose(w, st, "  why dearer: %s\n", y)
	}
	if wi.Note != "" {
		prose(w, st, "  what if: %s\n", wi.Note)
	}
	if p := wi.Pool; p != nil && len(p.Points) > 0 {
		var pts []string
		for _, q := range p.Points {
			s := fmt.Sprintf("pool %d: %s switches/query", q.Pool, units.Sig(q.SwitchesPerQuery))
			if q.ShareLost != nil {
				s += ", " + share(*q.ShareLost)
			}
			pts = append(pts, s)
		}
		prose(w, st, "  the pool curve (%s, %s, %s) at its cost per switch: %s\n", p.File, p.Server, p.Series, strings.Join(pts, "; "))
	}
}

func sittings(n int) string {
	if n == 1 {
		return "1 sitting"
	}
	return fmt.Sprintf("%d sittings", n)
}

func attachCheck(w io.Writer, st Style, c *result.AttachCheck, t *result.AttachTarget) {
	prose(w, st, "\nthe check against ctxbench's known workload (CPU %d, %d rounds):\n", c.CPU, c.Rounds)
	prose(w, st, "  hops: %s/s stated, %s/s made while attached; switches counted %s of its /proc counters'\n",
		units.Count(c.HopsPerS), units.Count(c.AchievedPerS), share(t.Proc.Agreement))
	prose(w, st, "  the ladder's thread/pipe same-cpu hop here: %s untraced, %s traced by these probes, whose switches' direct cost read %s\n",
		intervalText(c.LadderOneWayNs), intervalText(c.LadderTracedNs), intervalText(c.LadderNsPerSwitch))
	prose(w, st, "  the workload's direct cost per switch, %s, is %s of the ladder's traced hop and %s of its switches' direct cost\n",
		units.Time(t.NsPerSwitch.Value), share(c.RatioToTracedHop), share(c.RatioToLadderSwitch))
	prose(w, st, "  the attach took %s [%s, %s]%s of its throughput (its work between hops: %s units/s without)\n",
		share(c.ThroughputCost.Median), share(c.ThroughputCost.Low), share(c.ThroughputCost.High), atLevel(c.ThroughputCost.Confidence), units.Count(c.WorkPerS))
}

func intervalText(i result.Interval) string {
	if i.Rounds < 2 {
		return units.Time(i.Median)
	}
	return fmt.Sprintf("%s [%s, %s]%s", units.Time(i.Median), units.Time(i.Low), units.Time(i.High), atLevel(i.Confidence))
}

func attachOverhead(w io.Writer, st Style, a *result.Attach) {
	o := a.Overhead
	if !o.StatsOn {
		prose(w, st, "\nthe attach's own cost: not known (the kernel kept no BPF run-time statistics)\n")
		return
	}
	prose(w, st, "\nthe attach's own cost: its programs ran %s per switch of the targets, %s per run, %s of a CPU%s (the kernel's BPF run-time statistics; the tracepoints' dispatch and the programs' effect on the caches of the work around them are not in them)\n",
		units.Time(o.NsPerSwitch), units.Time(o.NsPerRun), figureText(o.CPUShare, share, ""), missedText(o.Missed))
}

func missedText(n uint64) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; %d runs skipped (another BPF program was running on the CPU)", n)
}
