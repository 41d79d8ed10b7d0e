package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// ringView is the ring section of one run: cost per hop against the number
// of contexts (one panel per working set), against the working set (one
// panel per ring size, with the cache sizes marked), and the table.
type ringView struct {
	Run     *runView
	ByN     []Fig
	ByWS    []Fig
	Kinds   []legendItem
	Rows    []ringRow
	Groups  []ringGroup // Rows by kind and placement
	Notes   []string
	HasHot  bool // some point has lmbench's cached-baseline net
	Noisy   int
	Skipped string // why some panels are absent
}

type legendItem struct {
	Class, Shape, Text string
	Swatch             Fig
}

// ringGroup is the points of one kind and placement, under the label of
// the first (each row carries its own as a tooltip).
type ringGroup struct {
	Kind, Placement, Label string
	Rows                   []ringRow
}

type ringRow struct {
	Kind, Placement, Tasks, WS string
	Fits, NetHot               string
	Raw, RawCI, Overhead, Net  string
	NetClass                   string
	Switches, Hops, HopsClass  string
	SwClass                    string
	Cycles                     string
	Label                      string
	Notes                      []int
	Noise                      string
}

const (
	panelW = 350
	panelH = 240
)

func ringViews(runs []*runView) []ringView {
	var out []ringView
	for _, rv := range runs {
		if len(rv.Doc.Rings) == 0 {
			continue
		}
		out = append(out, buildRing(rv))
	}
	return out
}

func buildRing(rv *runView) ringView {
	sw := newRingSweep(rv.Doc)
	v := ringView{Run: rv}
	for _, k := range sw.kinds {
		cls, shape := kindClass(k)
		v.Kinds = append(v.Kinds, legendItem{Class: cls, Shape: shape, Text: k, Swatch: swatch(cls, shape)})
	}
	v.ByN = sw.panelsByN()
	v.ByWS, v.Skipped = sw.panelsByWS()
	var notes noteSet
	for _, r := range sw.rings {
		row := ringTableRow(r, &notes)
		v.HasHot = v.HasHot || r.NetHotNS != nil
		if row.Noise != "" {
			v.Noisy++
		}
		v.Rows = append(v.Rows, row)
	}
	v.Notes = notes.list
	v.Groups = groupRingRows(v.Rows)
	return v
}

// ringSweep is what a run's rings swept — kinds, placements, ring sizes
// and working sets — with the one y axis of every panel of the run (so
// panels compare by eye) and the caches worth marking.
type ringSweep struct {
	rings             []result.Ring
	kinds, placements []string // in the order first seen
	ns                []int    // ring sizes, ascending
	wss               []int64  // working sets, ascending
	ylo, yhi          float64
	caches            []cacheMark
}

func newRingSweep(d *result.Document) ringSweep {
	sw := ringSweep{rings: d.Rings, caches: cacheMarks(d.Environment)}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range sw.rings {
		if !slices.Contains(sw.kinds, r.Kind) {
			sw.kinds = append(sw.kinds, r.Kind)
		}
		if !slices.Contains(sw.placements, r.Placement) {
			sw.placements = append(sw.placements, r.Placement)
		}
		if !slices.Contains(sw.ns, r.Tasks) {
			sw.ns = append(sw.ns, r.Tasks)
		}
		if !slices.Contains(sw.wss, r.WorkingSetB) {
			sw.wss = append(sw.wss, r.WorkingSetB)
		}
		for _, x := range []float64{r.RawNS.Median, r.OverheadNS.Median, r.NetNS} {
			if x > 0 {
				lo, hi = math.Min(lo, x), math.Max(hi, x)
			}
		}
	}
	slices.Sort(sw.ns)
	slices.Sort(sw.wss)
	if math.IsInf(lo, 0) {
		lo, hi = 1, 10
	}
	sw.ylo, sw.yhi = logDomain(lo, hi, 10)
	return sw
}

// find is the point of a kind, placement, ring size and working set, or nil.
func (sw ringSweep) find(kind, pl string, n int, ws int64) *result.Ring {
	for i := range sw.rings {
		r := &sw.rings[i]
		if r.Kind == kind && r.Placement == pl && r.Tasks == n && r.WorkingSetB == ws {
			return r
		}
	}
	return nil
}

// panelsByN draws cost per hop against the number of contexts, one panel
// per placement and working set, with the ring size from which the
// working sets no longer fit in each cache; none for a single ring size.
func (sw ringSweep) panelsByN() []Fig {
	if len(sw.ns) < 2 {
		return nil
	}
	var out []Fig
	xlo, xhi := logDomain(float64(sw.ns[0]), float64(sw.ns[len(sw.ns)-1]), 10)
	for _, pl := range sw.placements {
		for _, ws := range sw.wss {
			p := newPlot(panelW, panelH, fmt.Sprintf("ring cost per hop against the number of %s contexts, %s working set each, %s", joinKinds(sw.kinds), units.ShortBytes(float64(ws)), pl))
			p.x = scale{log: true, lo: xlo, hi: xhi, from: p.left + 4, to: p.right - 4}
			p.y = scale{log: true, lo: sw.ylo, hi: sw.yhi, from: p.bot, to: p.top}
			p.axes(fmt.Sprintf("%s · %s per context", pl, units.ShortBytes(float64(ws))), "contexts in the ring (log)", "ns per hop (log)",
				logTicks(xlo, xhi, units.ShortCount), logTicks(sw.ylo, sw.yhi, units.ShortTime))
			if ws > 0 {
				for _, c := range sw.caches {
					n := float64(c.size) / float64(ws)
					if n > xlo && n < xhi {
						cacheLine(p, p.x.pos(n), c.name, fmt.Sprintf("N × %s = %s (%s): from here the ring's working sets no longer fit in %s", units.ShortBytes(float64(ws)), c.name, units.ShortBytes(float64(c.size)), c.name))
					}
				}
			}
			for _, k := range sw.kinds {
				var pts []*result.Ring
				for _, n := range sw.ns {
					pts = append(pts, sw.find(k, pl, n, ws))
				}
				drawRingSeries(p, k, pts, func(r *result.Ring) float64 { return float64(r.Tasks) })
			}
			out = append(out, p.fig)
		}
	}
	return out
}

// panelsByWS draws cost per hop against the working set per context, one
// panel per placement and ring size (at most four sizes: skipped says so),
// with the cache sizes marked and a zero working set in a slot of its own
// left of the log axis; none for a single working set.
func (sw ringSweep) panelsByWS() (figs []Fig, skipped string) {
	if len(sw.wss) < 2 {
		return nil, ""
	}
	pos := []int64{}
	for _, ws := range sw.wss {
		if ws > 0 {
			pos = append(pos, ws)
		}
	}
	hasZero := sw.wss[0] == 0
	var xlo, xhi float64 = 1024, 4096
	if len(pos) > 0 {
		xlo, xhi = logDomain(float64(pos[0]), float64(pos[len(pos)-1]), 2)
	}
	chosen := pickNs(sw.ns, 4)
	if len(chosen) < len(sw.ns) {
		skipped = fmt.Sprintf("working-set panels are drawn for %d of the %d ring sizes; the table has them all", len(chosen), len(sw.ns))
	}
	for _, pl := range sw.placements {
		for _, n := range chosen {
			p := newPlot(panelW, panelH, fmt.Sprintf("ring cost per hop against the working set per context, %d contexts, %s", n, pl))
			from := p.left + 4
			zeroX := math.NaN()
			if hasZero {
				zeroX = p.left + 10
				from = p.left + 48
			}
			p.x = scale{log: true, lo: xlo, hi: xhi, from: from, to: p.right - 4}
			p.y = scale{log: true, lo: sw.ylo, hi: sw.yhi, from: p.bot, to: p.top}
			xt := log2Ticks(xlo, xhi, units.ShortBytes, 5)
			p.axes(fmt.Sprintf("%s · %d contexts", pl, n), "working set per context (log)", "ns per hop (log)", xt, logTicks(sw.ylo, sw.yhi, units.ShortTime))
			if hasZero {
				p.add(text(zeroX, p.bot+14, "0", "middle", "tick"), line(zeroX, p.top, zeroX, p.bot, "grid"))
				// An axis break between the zero slot and the log axis.
				b := (zeroX + from) / 2
				p.add(line(b-3, p.bot+4, b+1, p.bot-4, "axis"), line(b+1, p.bot+4, b+5, p.bot-4, "axis"))
			}
			for _, c := range sw.caches {
				w := float64(c.size) / float64(n)
				if w > xlo && w < xhi {
					cacheLine(p, p.x.pos(w), c.name, fmt.Sprintf("%d × working set = %s (%s): right of this line the ring's working sets no longer fit in %s", n, c.name, units.ShortBytes(float64(c.size)), c.name))
				}
			}
			for _, k := range sw.kinds {
				var pts []*result.Ring
				for _, ws := range sw.wss {
					pts = append(pts, sw.find(k, pl, n, ws))
				}
				drawRingSeries(p, k, pts, func(r *result.Ring) float64 {
					if r.WorkingSetB == 0 {
						return math.NaN()
					}
					return float64(r.WorkingSetB)
				}, zeroX)
			}
			figs = append(figs, p.fig)
		}
	}
	return figs, skipped
}

// ringTableRow is a point's row of the ring table, its flags and
// warnings numbered in notes (the noise warnings apart, as the row's "~").
func ringTableRow(r result.Ring, notes *noteSet) ringRow {
	row := ringRow{Kind: r.Kind, Placement: r.Placement, Tasks: fmt.Sprint(r.Tasks), WS: units.ShortBytes(float64(r.WorkingSetB)),
		Raw: units.Time(r.RawNS.Median), RawCI: ciText(r.RawNS), Overhead: units.Time(r.OverheadNS.Median), Net: units.Time(r.NetNS),
		Switches: "—", Cycles: "—", Label: strings.Join(r.Label.Parts(), labelSep), Fits: r.FitsIn, NetHot: "—"}
	if r.NetHotNS != nil {
		row.NetHot = units.Time(*r.NetHotNS)
	}
	// The footnotes for these two come with the point's flags
	// (net-nonpositive, hop-count), below; here only the cells' colour.
	if r.NetNS <= 0 {
		row.NetClass = "bad"
	}
	if iv := r.NetInterval; iv != nil {
		// The interval belongs to the net taken block by block: show
		// its median, not raw median − overhead median, which can lie
		// outside it.
		row.Net = fmt.Sprintf("%s [%s, %s]", units.Time(iv.Median), units.Time(iv.Low), units.Time(iv.High))
		row.Net += render.LevelMark(iv.Confidence)
		if iv.Holds(0) {
			row.Net += " not resolved here"
		}
	}
	if r.SwitchesPerHop != nil {
		row.Switches = units.Fixed(*r.SwitchesPerHop, 2)
		row.SwClass = "ok"
		for _, f := range r.Flags {
			if f.Code == "switch-count" {
				row.SwClass = "bad"
			}
		}
	}
	row.Hops = fmt.Sprintf("%s / %s", units.ShortCount(r.HopsCounted), units.ShortCount(r.HopsExpected))
	row.HopsClass = "ok"
	if r.HopsCounted != r.HopsExpected {
		row.HopsClass = "bad"
	}
	if r.CyclesPerHop != nil {
		row.Cycles = units.Sig(*r.CyclesPerHop)
	} else if r.RawCycles != nil {
		row.Cycles = units.Sig(r.RawCycles.Median) + " ref"
	}
	point := fmt.Sprintf("%s ring of %d, %s (%s)", r.Kind, r.Tasks, units.ShortBytes(float64(r.WorkingSetB)), r.Placement)
	for _, f := range r.Flags {
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s: flagged %s — %s", point, f.Code, f.Message)))
	}
	var noise []string
	for _, w := range r.Warnings {
		if isNoise(w) {
			noise = append(noise, w.Message)
			continue
		}
		row.Notes = append(row.Notes, notes.add(point+": "+w.Message))
	}
	row.Noise = strings.Join(noise, "\n")
	return row
}

// groupRingRows gathers consecutive rows of one kind and placement under
// the label of the first.
func groupRingRows(rows []ringRow) []ringGroup {
	var out []ringGroup
	for _, row := range rows {
		if n := len(out); n == 0 || out[n-1].Kind != row.Kind || out[n-1].Placement != row.Placement {
			out = append(out, ringGroup{Kind: row.Kind, Placement: row.Placement, Label: row.Label})
		}
		g := &out[len(out)-1]
		g.Rows = append(g.Rows, row)
	}
	return out
}

func joinKinds(k []string) string {
	switch len(k) {
	case 0:
		return ""
	case 1:
		return k[0]
	}
	s := k[0]
	for i := 1; i < len(k)-1; i++ {
		s += ", " + k[i]
	}
	return s + " and " + k[len(k)-1]
}

// pickNs keeps at most max ring sizes, spread over the range.
func pickNs(ns []int, most int) []int {
	if len(ns) <= most {
		return ns
	}
	var out []int
	for i := 0; i < most; i++ {
		j := int(math.Round(float64(i) * float64(len(ns)-1) / float64(most-1)))
		if !slices.Contains(out, ns[j]) {
			out = append(out, ns[j])
		}
	}
	return out
}

type cacheMark struct {
	name string
	size int64
}

// cacheMarks are the data caches worth marking: L1d, L2, and the last
// level.
func cacheMarks(e result.Environment) []cacheMark {
	var out []cacheMark
	for _, c := range e.CPU.Caches {
		if c.Type == "Instruction" || c.SizeBytes <= 0 {
			continue
		}
		name := fmt.Sprintf("L%d", c.Level)
		if c.Level == 1 {
			name = "L1d"
		}
		out = append(out, cacheMark{name, c.SizeBytes})
	}
	return out
}

func cacheLine(p *plot, x float64, name, title string) {
	l := line(x, p.top, x, p.bot, "cache")
	t := text(x+3, p.top+9, name, "start", "cache-label")
	p.add(group(title, l, t))
}

// drawRingSeries draws one kind's raw (thin), overhead (dotted) and net
// (thick, with markers) lines. A net figure at or below zero cannot sit on
// a log axis: it is drawn as a down-pointing marker on the bottom edge.
func drawRingSeries(p *plot, kind string, pts []*result.Ring, xOf func(*result.Ring) float64, zeroSlot ...float64) {
	cls, shape := kindClass(kind)
	n := len(pts)
	xs := make([]float64, n)
	raw, over, net := make([]float64, n), make([]float64, n), make([]float64, n)
	found := false
	for i, r := range pts {
		xs[i], raw[i], over[i], net[i] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
		if r == nil {
			continue
		}
		found = true
		xv := xOf(r)
		if math.IsNaN(xv) && len(zeroSlot) > 0 && !math.IsNaN(zeroSlot[0]) {
			xs[i] = zeroSlot[0]
		} else {
			xs[i] = p.x.pos(xv)
		}
		raw[i] = p.y.pos(r.RawNS.Median)
		over[i] = p.y.pos(r.OverheadNS.Median)
		if r.NetNS > 0 {
			net[i] = p.y.pos(r.NetNS)
		}
	}
	if !found {
		return
	}
	var g []Elem
	g = append(g, polyline(xs, over, "ln over")...)
	g = append(g, polyline(xs, raw, "ln raw")...)
	g = append(g, polyline(xs, net, "ln net")...)
	for i, r := range pts {
		if r == nil || math.IsNaN(xs[i]) {
			continue
		}
		title := fmt.Sprintf("%s\n%s ring of %d, %s per context, %s\nraw %s per hop (%s) · overhead %s · net %s",
			r.Label, r.Kind, r.Tasks, units.ShortBytes(float64(r.WorkingSetB)), r.Placement,
			units.Time(r.RawNS.Median), ciText(r.RawNS), units.Time(r.OverheadNS.Median), units.Time(r.NetNS))
		if r.FitsIn != "" {
			title += "\nfootprint " + units.ShortBytes(float64(r.FootprintB)) + ": fits in " + r.FitsIn
		}
		if r.NetNS > 0 {
			g = append(g, group(title, marker(shape, xs[i], net[i], 3.5, "mk")))
		} else {
			g = append(g, group(title+"\nnet ≤ 0: drawn on the bottom edge", marker("down", xs[i], p.bot-5, 4, "mk hollow")))
		}
	}
	e := group("", g...)
	e.Class = cls
	p.add(e)
}

// swatch is a legend's small sample of a marker.
func swatch(cls, shape string) Fig {
	e := group("", marker(shape, 8, 8, 5, "mk"))
	e.Class = cls
	return Fig{W: 16, H: 16, Class: "swatch", Elems: []Elem{e}}
}

// isNoise tells the noise warnings (codes noise-*: the samples' spread)
// from the rest.
func isNoise(w result.Warning) bool { return strings.HasPrefix(w.Code, "noise-") }
