package report

// overview.go: the picture the report opens on. Every row of the ladder,
// grouped by rung, on one logarithmic axis of time per hop: the median as
// a mark pinned above its interval, placements told apart by colour and
// shape, and for the rungs the published hierarchy names, its range as a
// shaded band labelled "published", so the hierarchy and this machine's
// figures are read against each other at a glance. Axes at the top and
// the bottom; the SVG scales to the page's width.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

const (
	ovW      = 960 // the picture's own width; it scales to the page
	ovLabel  = 150 // the rung labels' column
	ovRow    = 11  // height per row of the ladder
	ovBandPd = 8   // padding of a rung's band
	ovAxis   = 24  // height of each axis
)

type overview struct {
	Fig    Fig
	Runs   int
	Rows   int
	HasPub bool
}

func buildOverview(runs []*runView) *overview {
	type item struct {
		run *runView
		r   result.Result
	}
	byRung := map[string][]item{}
	var all []float64
	for _, rv := range runs {
		for _, r := range rv.Doc.Results {
			if r.OneWayNS.N == 0 || r.OneWayNS.Median <= 0 {
				continue
			}
			byRung[r.Rung] = append(byRung[r.Rung], item{rv, r})
			all = append(all, r.OneWayNS.Median)
			if r.OneWayNS.Confidence > 0 {
				all = append(all, r.OneWayNS.CILow, r.OneWayNS.CIHigh)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	// The published hierarchy: a range per rung, from the first run that
	// holds it.
	type pub struct {
		lo, hi float64
		text   string
	}
	pubs := map[string][]pub{}
	for _, rv := range runs {
		if rv.Doc.Derived == nil || len(pubs) > 0 {
			continue
		}
		for _, h := range rv.Doc.Derived.Hierarchy {
			if h.PublishedLowNS == nil || h.PublishedHighNS == nil || !(*h.PublishedLowNS > 0) || *h.PublishedHighNS < *h.PublishedLowNS {
				continue // a file written before the numbers were recorded: no band, never one read off the text
			}
			lo, hi := *h.PublishedLowNS, *h.PublishedHighNS
			rung := rungOf(rv.Doc, h.Name)
			if rung == "" {
				continue
			}
			pubs[rung] = append(pubs[rung], pub{lo, hi, fmt.Sprintf("published: %s — %s (%s)", h.Abstraction, h.Published, h.PublishedMultiple)})
			all = append(all, lo, hi)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range all {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	lo, hi = logDomain(lo, hi, 10)
	x := scale{log: true, lo: lo, hi: hi, from: ovLabel + 10, to: ovW - 14}
	ticks := logTicks(lo, hi, units.ShortTime)
	rungs := rungsInOrder(byRung)
	h := 2 * ovAxis
	for _, r := range rungs {
		h += len(byRung[r])*ovRow + 2*ovBandPd
	}
	o := &overview{Runs: len(runs), HasPub: len(pubs) > 0}
	f := Fig{W: ovW, H: h, Class: "overview", Label: "every row of the ladder: one-way time per hop on a log scale, grouped by rung, with the published hierarchy's ranges"}
	axis := func(y float64, above bool) {
		for _, t := range ticks {
			p := x.pos(t.V)
			if t.Label != "" {
				ty := y - 8
				if !above {
					ty = y + 14
				}
				f.Elems = append(f.Elems, text(p, ty, t.Label, "middle", "tick"))
			}
			l := 3.0
			if t.Major {
				l = 6
			}
			if above {
				f.Elems = append(f.Elems, line(p, y-l, p, y, "axis"))
			} else {
				f.Elems = append(f.Elems, line(p, y, p, y+l, "axis"))
			}
		}
		f.Elems = append(f.Elems, line(x.from, y, x.to, y, "axis"))
	}
	top := float64(ovAxis)
	axis(top, true)
	f.Elems = append(f.Elems, text(8, top-8, "per hop, log scale", "start", "atitle"))
	y := top
	for i, rung := range rungs {
		items := byRung[rung]
		bh := float64(len(items)*ovRow + 2*ovBandPd)
		if i%2 == 0 {
			f.Elems = append(f.Elems, rect(0, y, ovW, bh, "band"))
		}
		for _, t := range ticks {
			if t.Major {
				f.Elems = append(f.Elems, line(x.pos(t.V), y, x.pos(t.V), y+bh, "grid"))
			}
		}
		for _, p := range pubs[rung] {
			a, b := x.clampPos(p.lo), x.clampPos(p.hi)
			g := group(p.text, rect(a-2, y+2, math.Max(b-a, 0)+4, bh-4, "pub"))
			f.Elems = append(f.Elems, g)
		}
		if len(pubs[rung]) > 0 {
			p := pubs[rung][0]
			f.Elems = append(f.Elems, text(x.clampPos(p.hi)+5, y+11, "published", "start", "pub-label"))
		}
		title := rungTitles[rung]
		if title == "" {
			title = rung
		}
		name, _, _ := strings.Cut(title, " — ")
		f.Elems = append(f.Elems, text(8, y+bh/2+4, name, "start", "rung-label"))
		for k, it := range items {
			r := it.r
			s := r.OneWayNS
			cy := y + ovBandPd + float64(k)*ovRow + ovRow/2.0
			cls, shape := placementClass(r.Placement)
			var g []Elem
			if s.Confidence > 0 && s.CILow > 0 {
				a, b := x.clampPos(s.CILow), x.clampPos(s.CIHigh)
				g = append(g, rect(a, cy-1.5, math.Max(b-a, 2), 3, "ci"))
			}
			m := x.clampPos(s.Median)
			mcls := "mk"
			if len(r.Flags) > 0 {
				mcls = "mk hollow"
			}
			g = append(g, marker(shape, m, cy, 3.6, mcls))
			t := fmt.Sprintf("%s %s: %s", r.Name, r.Placement, units.Time(s.Median))
			if s.Confidence > 0 {
				t += fmt.Sprintf(" [%s – %s] (%s interval)", units.Time(s.CILow), units.Time(s.CIHigh), render.LevelText(s.Confidence))
			}
			if len(runs) > 1 {
				t = it.run.Tag + " · " + t
			}
			e := group(t, g...)
			e.Class = cls
			f.Elems = append(f.Elems, e)
		}
		y += bh
	}
	axis(y, false)
	f.Elems = append(f.Elems, text(8, y+14, "per hop, log scale", "start", "atitle"))
	o.Fig = f
	for _, r := range rungs {
		o.Rows += len(byRung[r])
	}
	return o
}

// rungOf is the rung of the named row of d ("" if d has none).
func rungOf(d *result.Document, name string) string {
	for _, r := range d.Results {
		if r.Name == name {
			return r.Rung
		}
	}
	return ""
}

// rungsInOrder are the rungs that hold rows, in the vocabulary's order
// (result.RungOrder, cheapest first); a rung this build does not know
// comes last, by name.
func rungsInOrder[T any](byRung map[string]T) []string {
	rungs := make([]string, 0, len(byRung))
	for r := range byRung {
		rungs = append(rungs, r)
	}
	slices.SortFunc(rungs, func(a, b string) int {
		return cmp.Or(cmp.Compare(result.RungIndex(a), result.RungIndex(b)), cmp.Compare(a, b))
	})
	return rungs
}
