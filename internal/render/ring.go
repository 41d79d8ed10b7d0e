package render

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Rings shows each kind and placement as a table of points and, when
// the sweep has several sizes and working sets, a matrix of raw cost per
// hop in which the points past the last-level cache are marked.
func Rings(w io.Writer, d *result.Document, st Style) {
	prose(w, st, "\nctxbench ring — %s\n", d.Environment.HostLine())
	if d.Settings.DryRun {
		prose(w, st, "DRY RUN: synthetic figures; nothing was measured\n")
	}
	prose(w, st, "one hop = one context hands the token to the next (a round of N contexts is N hops); figures are medians per hop; every interval is where this sitting's median lies (it covers this sitting only), at the level it states\n")
	type group struct{ kind, placement string }
	var order []group
	byGroup := map[group][]result.Ring{}
	for _, r := range d.Rings {
		g := group{r.Kind, r.Placement}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], r)
	}
	ms := MarkSet{}
	for _, g := range order {
		rs := byGroup[g]
		prose(w, st, "\n%s: %s\n", st.Paint("1", fmt.Sprintf("ring of %s, %s", plural(g.kind), g.placement)), ringWhere(rs[0]))
		tw := NewTable(Col{Head: "N", Right: true}, Col{Head: "working set", Right: true}, Col{Head: "footprint", Right: true, Fold: 2},
			Col{Head: "fits in", Right: true, Fold: 4}, Col{Head: "raw/hop", Right: true}, Col{Head: "overhead", Right: true},
			Col{Head: "net", Right: true}, Col{Head: "net/raw", Right: true, Fold: 3}, Col{Head: "net/switch", Right: true, Fold: 5},
			Col{Head: TicksName(d.Environment.CPU.TSC) + " ticks", Right: true, Fold: 1}, Col{Head: "switches/hop", Right: true}, Col{Head: "verified", Right: true})
		lo, hi := math.Inf(1), 0.0
		for _, r := range rs {
			foot, in := "-", "-"
			if r.WorkingSetB > 0 {
				foot, in = result.SizeLabel(r.FootprintB), r.FitsIn
				if in == "memory" {
					in = "> LLC"
				}
			}
			cyc := "-"
			if r.RawCycles != nil {
				cyc = units.Fixed(r.RawCycles.Median, 0)
			}
			sw := "-"
			switch {
			case r.SwitchesPerHop != nil:
				sw = units.Fixed(*r.SwitchesPerHop, 2)
			case r.OSSwitchesPerHop != nil:
				sw = "(OS " + units.Fixed(*r.OSSwitchesPerHop, 3) + ")"
			}
			ver := "yes"
			if !r.Verified {
				ver = "NO" // a word, not a colour: it reads the same in a pipe or a file
			}
			net := units.Time(r.NetNS)
			switch {
			case r.NetNS <= 0:
				net += " (<=0)"
			case r.NetInterval.Holds(0):
				net = ms.Use(MarkUnresolved) + net // its interval holds 0
			}
			ratio := "-"
			if r.RawNS.Median > 0 {
				ratio = units.Percent(100*r.NetNS/r.RawNS.Median, 0)
			}
			perSwitch := "-"
			if r.NetNSPerSwitch != nil {
				perSwitch = units.Time(*r.NetNSPerSwitch)
				lo, hi = math.Min(lo, *r.SwitchesPerHop), math.Max(hi, *r.SwitchesPerHop)
			}
			tw.Row(strconv.Itoa(r.Tasks), result.SizeLabel(r.WorkingSetB), foot, in,
				units.Time(r.RawNS.Median), units.Time(r.OverheadNS.Median), net, ratio, perSwitch, cyc, sw, ver)
		}
		tw.Write(w, st)
		if hi > 0 && hi/lo > 1+SwitchSpread {
			prose(w, st, "switches per hop range from %s to %s across these points: compare them per counted switch (net/switch), not per hop\n", units.Fixed(lo, 2), units.Fixed(hi, 2))
		}
		printRingMatrix(w, rs, st)
		printRingNotes(w, st, rs)
	}
	for _, f := range d.Failures {
		prose(w, st, "failed: %s: %s\n", f.Name, f.Error)
	}
	for _, s := range d.Skipped {
		prose(w, st, "skipped: %s: %s\n", s.Name, s.Error)
	}
	prose(w, st, "\noverhead = the token passed through the same N pipes/channels and the same N working sets by one context, no switch; net = raw - overhead (never clamped), its interval taken block by block. Load average %s at start, steal %s during the run.\n",
		units.Fixed(d.Environment.Load.Load1, 2), units.Percent(d.Environment.Steal.Percent, 1))
	ms.Write(w)
	Warnings(w, d, st)
}

// SwitchSpread is how far the switches per hop of a table's points may
// differ before the table says to compare them per switch.
const SwitchSpread = 0.05

// printRingNotes prints a group's flags and notes: one line per point when
// few points have them, else one line per kind of flag with the points
// listed, so a sweep of 45 points does not print 90 lines.
func printRingNotes(w io.Writer, st Style, rs []result.Ring) {
	type hit struct {
		r   result.Ring
		msg string
	}
	var codes []string
	byCode := map[string][]hit{}
	add := func(code string, r result.Ring, msg string) {
		if _, ok := byCode[code]; !ok {
			codes = append(codes, code)
		}
		byCode[code] = append(byCode[code], hit{r, msg})
	}
	for _, r := range rs {
		for _, f := range r.Flags {
			add("flag "+f.Code, r, f.Message)
		}
		for _, m := range r.Warnings {
			add("note "+m.Code, r, m.Message)
		}
	}
	point := func(r result.Ring) string { return fmt.Sprintf("N=%d ws=%s", r.Tasks, result.SizeLabel(r.WorkingSetB)) }
	for _, code := range codes {
		hits := byCode[code]
		label := st.Paint("33", code+":")
		if len(hits) <= 2 {
			for _, h := range hits {
				prose(w, st, "%s %s: %s\n", label, point(h.r), h.msg)
			}
			continue
		}
		var pts []string
		for i, h := range hits {
			if i == 12 {
				pts = append(pts, fmt.Sprintf("and %d more", len(hits)-i))
				break
			}
			pts = append(pts, point(h.r))
		}
		summary := hits[0].msg
		switch code {
		case "flag switch-count", "note switches-above-one":
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, h := range hits {
				if v := h.r.SwitchesPerHop; v != nil {
					lo, hi = math.Min(lo, *v), math.Max(hi, *v)
				}
			}
			_, why, _ := strings.Cut(hits[0].msg, ": ")
			summary = units.Fixed(lo, 2) + "–" + units.Fixed(hi, 2) + " switches per hop: " + why
		case "note noise-cv":
			worst := 0.0
			for _, h := range hits {
				worst = math.Max(worst, h.r.RawNS.CV)
			}
			summary = "coefficient of variation of the raw samples 10% or more, up to " + units.Percent(100*worst, 0) + ": the medians are robust, the means are not"
		}
		prose(w, st, "%s %d of %d points (%s): %s\n", label, len(hits), len(rs), strings.Join(pts, ", "), summary)
	}
}

func ringWhere(r result.Ring) string { return r.Label.Placement }

// printRingMatrix prints raw ns per hop with N down and the working set
// across; * marks a footprint beyond the last-level cache.
func printRingMatrix(w io.Writer, rs []result.Ring, st Style) {
	var ns []int
	var wss []int64
	cell := map[[2]int64]result.Ring{}
	var llc int64
	for _, r := range rs {
		if _, ok := cell[[2]int64{int64(r.Tasks), -1}]; !ok {
			cell[[2]int64{int64(r.Tasks), -1}] = r
			ns = append(ns, r.Tasks)
		}
		if _, ok := cell[[2]int64{-1, r.WorkingSetB}]; !ok {
			cell[[2]int64{-1, r.WorkingSetB}] = r
			wss = append(wss, r.WorkingSetB)
		}
		cell[[2]int64{int64(r.Tasks), r.WorkingSetB}] = r
		llc = max(llc, r.LLCBytes)
	}
	if len(ns) < 2 || len(wss) < 2 {
		return
	}
	note := ""
	if llc > 0 {
		note = fmt.Sprintf("; * = N x working set beyond the %s last-level cache", result.SizeLabel(llc))
	}
	prose(w, st, "raw per hop, N down, working set across%s\n", note)
	cols := []Col{{Head: "N", Right: true}}
	for _, ws := range wss {
		cols = append(cols, Col{Head: result.SizeLabel(ws), Right: true})
	}
	t := NewTable(cols...)
	t.Indent = 2
	for _, n := range ns {
		row := []string{strconv.Itoa(n)}
		for _, ws := range wss {
			r, ok := cell[[2]int64{int64(n), ws}]
			switch {
			case !ok:
				row = append(row, "-")
			case r.FitsIn == "memory":
				row = append(row, units.Time(r.RawNS.Median)+" *")
			default:
				row = append(row, units.Time(r.RawNS.Median)+"  ") // under the figures marked *
			}
		}
		t.Row(row...)
	}
	t.Write(w, st)
}

func plural(kind string) string {
	if base, ok := strings.CutSuffix(kind, "-mt"); ok {
		return plural(base) + " (multi-threaded)"
	}
	if strings.HasSuffix(kind, "s") {
		return kind + "es"
	}
	return kind + "s"
}
