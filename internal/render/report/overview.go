package report

// overview.go: the picture the report opens on. Every row of the ladder,
// grouped by rung, on one logarithmic axis of time per hop: the median as
// a mark pinned above its interval, placements told apart by colour and
// shape, each mark named beside it (so a printed or pasted report tells
// its dots apart without hovering), and for the rungs the published
// hierarchy names, its range as a shaded band labelled "published", so the
// hierarchy and this machine's figures are read against each other at a
// glance. Axes at the top and the bottom; the SVG scales to the page's
// width. A phone gets a narrow drawing of its own, each row's name on a
// line above its mark, so its text is not scaled down to nothing.

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

// ovGeom is the geometry of one drawing of the overview.
type ovGeom struct {
	class   string
	w       float64 // the drawing's own width; it scales to the page
	from    float64 // where the axis starts (after the rung labels' column)
	row     float64 // height per row of the ladder
	bandPad float64 // padding of a rung's band
	head    float64 // a band's own line for its rung's name (stacked only)
	axis    float64 // height of each axis
	// stacked: each row's name on a line of its own above its mark, and
	// the rung's name on its band's first line; else the rung's name in a
	// column on the left and each row's name beside its mark.
	stacked bool
}

var (
	ovWide   = ovGeom{class: "overview", w: 960, from: 160, row: 13, bandPad: 8, axis: 24}
	ovNarrow = ovGeom{class: "overview overview-narrow", w: 420, from: 14, row: 30, bandPad: 6, head: 20, axis: 44, stacked: true}
)

type overview struct {
	// Fig is the drawing for a page of a laptop's width and for print;
	// Narrow the one a phone shows instead.
	Fig, Narrow Fig
	Runs        int
	Rows        int
	HasPub      bool
}

// ovItem is one row of the ladder as the overview draws it.
type ovItem struct {
	run *runView
	r   result.Result
}

// ovPub is a published range drawn over a rung's band.
type ovPub struct {
	lo, hi float64
	text   string
}

// ovData is what both drawings draw: the rows by rung, the published
// ranges by rung, and the axis's domain.
type ovData struct {
	runs   int
	byRung map[string][]ovItem
	rungs  []string
	pubs   map[string][]ovPub
	lo, hi float64
}

func buildOverview(runs []*runView) *overview {
	d := overviewData(runs)
	if d == nil {
		return nil
	}
	o := &overview{Runs: len(runs), HasPub: len(d.pubs) > 0, Fig: d.draw(ovWide), Narrow: d.draw(ovNarrow)}
	for _, r := range d.rungs {
		o.Rows += len(d.byRung[r])
	}
	return o
}

// overviewData gathers the rows with a median, the published ranges of
// the first run that holds the hierarchy, and the axis's domain over all
// of them (nil when no row has a median).
func overviewData(runs []*runView) *ovData {
	d := &ovData{runs: len(runs), byRung: map[string][]ovItem{}, pubs: map[string][]ovPub{}}
	var all []float64
	for _, rv := range runs {
		for _, r := range rv.Doc.Results {
			if r.OneWayNS.N == 0 || r.OneWayNS.Median <= 0 {
				continue
			}
			d.byRung[r.Rung] = append(d.byRung[r.Rung], ovItem{rv, r})
			all = append(all, r.OneWayNS.Median)
			if r.OneWayNS.Confidence > 0 {
				all = append(all, r.OneWayNS.CILow, r.OneWayNS.CIHigh)
			}
		}
	}
	if len(all) == 0 {
		return nil
	}
	for _, rv := range runs {
		if rv.Doc.Derived == nil || len(d.pubs) > 0 {
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
			d.pubs[rung] = append(d.pubs[rung], ovPub{lo, hi, fmt.Sprintf("published: %s — %s (%s)", h.Abstraction, h.Published, h.PublishedMultiple)})
			all = append(all, lo, hi)
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range all {
		if v > 0 {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	d.lo, d.hi = logDomain(lo, hi, 10)
	d.rungs = rungsInOrder(d.byRung)
	return d
}

// draw lays the overview out in geometry g.
func (d *ovData) draw(g ovGeom) Fig {
	x := scale{log: true, lo: d.lo, hi: d.hi, from: g.from, to: g.w - 14}
	ticks := logTicks(d.lo, d.hi, units.ShortTime)
	h := 2 * g.axis
	for _, r := range d.rungs {
		h += float64(len(d.byRung[r]))*g.row + 2*g.bandPad + g.head
	}
	f := Fig{W: int(g.w), H: int(math.Ceil(h)), Class: g.class,
		Label: "every row of the ladder: one-way time per hop on a log scale, grouped by rung, each mark named, with the published hierarchy's ranges"}
	top := g.axis
	f.Elems = append(f.Elems, ovAxis(x, ticks, top, true)...)
	title := 8.0 // the axis's title: beside its tick labels, or above them where the axis starts at the edge
	if g.stacked {
		title = 24
	}
	f.Elems = append(f.Elems, text(8, top-title, "per hop, log scale", "start", "atitle"))
	y := top
	for i, rung := range d.rungs {
		f.Elems = append(f.Elems, d.band(g, x, ticks, rung, i, y)...)
		y += float64(len(d.byRung[rung]))*g.row + 2*g.bandPad + g.head
	}
	f.Elems = append(f.Elems, ovAxis(x, ticks, y, false)...)
	f.Elems = append(f.Elems, text(8, y+14+title-8, "per hop, log scale", "start", "atitle"))
	return f
}

// ovAxis is an axis at y, its labels above it or below.
func ovAxis(x scale, ticks []tick, y float64, above bool) []Elem {
	var out []Elem
	for _, t := range ticks {
		p := x.pos(t.V)
		if t.Label != "" {
			ty := y - 8
			if !above {
				ty = y + 14
			}
			out = append(out, text(p, ty, t.Label, "middle", "tick"))
		}
		l := 3.0
		if t.Major {
			l = 6
		}
		if above {
			out = append(out, line(p, y-l, p, y, "axis"))
		} else {
			out = append(out, line(p, y, p, y+l, "axis"))
		}
	}
	return append(out, line(x.from, y, x.to, y, "axis"))
}

// band is one rung's band from y: its shading, grid, published ranges,
// name and rows.
func (d *ovData) band(g ovGeom, x scale, ticks []tick, rung string, i int, y float64) []Elem {
	items := d.byRung[rung]
	bh := float64(len(items))*g.row + 2*g.bandPad + g.head
	var out []Elem
	if i%2 == 0 {
		out = append(out, rect(0, y, g.w, bh, "band"))
	}
	for _, t := range ticks {
		if t.Major {
			out = append(out, line(x.pos(t.V), y+g.head, x.pos(t.V), y+bh, "grid"))
		}
	}
	for _, p := range d.pubs[rung] {
		a, b := x.clampPos(p.lo), x.clampPos(p.hi)
		out = append(out, group(p.text, rect(a-2, y+g.head+2, math.Max(b-a, 0)+4, bh-g.head-4, "pub")))
	}
	if len(d.pubs[rung]) > 0 {
		p := d.pubs[rung][0]
		if g.stacked {
			out = append(out, text(g.w-14, y+14, "published: "+units.ShortTime(p.lo)+"–"+units.ShortTime(p.hi), "end", "pub-label"))
		} else {
			out = append(out, text(x.clampPos(p.hi)+5, y+11, "published", "start", "pub-label"))
		}
	}
	title := rungTitles[rung]
	if title == "" {
		title = rung
	}
	name, _, _ := strings.Cut(title, " — ")
	if g.stacked {
		out = append(out, text(8, y+14, name, "start", "rung-label"))
	} else {
		out = append(out, text(8, y+bh/2+4, name, "start", "rung-label"))
	}
	for k, it := range items {
		out = append(out, d.mark(g, x, it, y+g.head+g.bandPad+float64(k)*g.row))
	}
	return out
}

// mark is one row: its interval, its median's mark, and its name — beside
// the mark (on the side with room), or on the line above it when stacked.
func (d *ovData) mark(g ovGeom, x scale, it ovItem, top float64) Elem {
	r, s := it.r, it.r.OneWayNS
	cy := top + g.row/2
	name := r.Name + " " + r.Placement
	if d.runs > 1 {
		name = it.run.Tag + " · " + name
	}
	if g.stacked {
		cy = top + g.row - 8
	}
	cls, shape := placementClass(r.Placement)
	var els []Elem
	lo, hi := x.clampPos(s.Median), x.clampPos(s.Median)
	if s.Confidence > 0 && s.CILow > 0 {
		lo, hi = x.clampPos(s.CILow), x.clampPos(s.CIHigh)
		els = append(els, rect(lo, cy-1.5, math.Max(hi-lo, 2), 3, "ci"))
	}
	mcls := "mk"
	if len(r.Flags) > 0 {
		mcls = "mk hollow"
	}
	m := x.clampPos(s.Median)
	els = append(els, marker(shape, m, cy, 3.6, mcls))
	switch {
	case g.stacked:
		els = append(els, text(8, top+11, name, "start", "row-label"))
	case hi+6+ovLabelWidth(name) <= x.to:
		els = append(els, text(math.Max(hi, m+4)+6, cy+3, name, "start", "row-label"))
	default:
		els = append(els, text(math.Min(lo, m-4)-6, cy+3, name, "end", "row-label"))
	}
	t := fmt.Sprintf("%s %s: %s", r.Name, r.Placement, units.Time(s.Median))
	if s.Confidence > 0 {
		t += fmt.Sprintf(" [%s – %s] (%s interval)", units.Time(s.CILow), units.Time(s.CIHigh), render.LevelText(s.Confidence))
	}
	if d.runs > 1 {
		t = it.run.Tag + " · " + t
	}
	e := group(t, els...)
	e.Class = cls
	return e
}

// ovLabelWidth is a generous estimate of a row label's width in the wide
// drawing (its font is 9.5 px: no glyph is wider than 6.2 px).
func ovLabelWidth(s string) float64 { return 6.2 * float64(len([]rune(s))) }

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
