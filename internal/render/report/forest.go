package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// A forest is a table whose every row carries a small chart on one shared
// axis (a forest plot): the figures can be read as numbers and compared as
// shapes at once, and the table prints.

const (
	forestW = 400 // chart column width, pixels
	forestH = 22  // row chart height
)

type forestRow struct {
	Name      string
	Parts     []string // the label's parts, without the host
	Label     string   // the parts not shared with the block (block sets it)
	Placement string
	PClass    string
	Run       *runView
	Fig       Fig
	Median    string
	CI        string
	Repro     string // the reproducibility interval (ladder rows); "—" where not learned
	Multiple  string // the multiple of the run's baseline (ladder rows)
	Spread    string
	N         int
	Switches  string
	SwClass   string
	Cycles    string
	Notes     []int
	Claim     string
	Claims    []string // memory: each claim, beside the row
	Extra     []string // memory: per-kind figures
	Flagged   bool
	// Noise holds the figure's noise warnings (high variation, wide
	// spread): shown as "~" with the text as a tooltip, not as notes, so
	// that the notes keep what changes a figure's meaning.
	Noise string
}

type forestGroup struct {
	Title  string
	Sub    string
	Blocks []forestBlock
}

// forestBlock is one benchmark: its name and the part of its label all its
// rows share, then one row per placement and run with the rest.
type forestBlock struct {
	Name   string
	Common string
	Rows   []forestRow
}

type forest struct {
	ID        string
	Axis      Fig
	AxisTitle string
	Groups    []forestGroup
	Notes     []string
	MultiRun  bool
	Noisy     int    // rows with noise warnings
	Level     string // the level of the intervals, as the column states it
	XHead     string // the × column's head
}

// noteSet numbers footnotes, one number per distinct text.
type noteSet struct {
	list  []string
	index map[string]int
}

func (n *noteSet) add(s string) int {
	if n.index == nil {
		n.index = map[string]int{}
	}
	if i, ok := n.index[s]; ok {
		return i
	}
	n.list = append(n.list, s)
	n.index[s] = len(n.list)
	return len(n.list)
}

// placementClass is a placement's colour class and marker shape. Each
// level of the topology has a pair of its own (three colours, two
// triangles), so rows at two levels are told apart in grey and in colour;
// anything else is p-other.
func placementClass(p string) (class, shape string) {
	switch p {
	case "same-cpu":
		return "p-same", "circle"
	case "cross-cpu":
		return "p-cross", "diamond"
	case "unpinned":
		return "p-unpinned", "square"
	}
	if l, ok := levelMarks[p]; ok {
		return l.class, l.shape
	}
	return "p-other", "triangle"
}

// levelMarks are the topology levels' marks (model.Levels, nearest first).
var levelMarks = map[string]struct{ class, shape string }{
	"smt-sibling":   {"p-l1", "triangle"},
	"same-llc":      {"p-l1", "down"},
	"other-llc":     {"p-l2", "triangle"},
	"other-node":    {"p-l2", "down"},
	"other-package": {"p-l3", "triangle"},
	"p-to-e":        {"p-l3", "down"},
}

// isLevel: p is a level of the topology (it has a mark of its own).
func isLevel(p string) bool {
	_, ok := levelMarks[p]
	return ok
}

func kindClass(k string) (class, shape string) {
	switch k {
	case "goroutine", "coroutine", "floor":
		return "k-goroutine", "circle"
	case "thread":
		return "k-thread", "diamond"
	case "process":
		return "k-process", "square"
	case "container":
		return "k-container", "triangle"
	case "vm":
		return "k-vm", "triangle"
	}
	return "k-runtime", "circle"
}

var rungTitles = map[string]string{
	"floor":     "floor — a bare register swap, no scheduler",
	"coroutine": "coroutines — user-space stack switches",
	"goroutine": "goroutines — the Go scheduler's handoff",
	"runtime":   "other runtimes' tasks",
	"thread":    "OS threads — one address space",
	"process":   "processes — an address-space switch",
	"container": "processes in other containers",
	"vm":        "virtual machines",
	"reference": "reference rows — costs that are not switches",
}

// axisFig draws a forest's shared axis: tick labels above tick marks.
func axisFig(x scale, ticks []tick) Fig {
	f := Fig{W: forestW, H: 22, Class: "axis-fig", Label: "axis"}
	for _, t := range ticks {
		p := x.pos(t.V)
		if t.Label != "" {
			f.Elems = append(f.Elems, text(p, 12, t.Label, "middle", "tick"))
		}
		h := 4.0
		if t.Major {
			h = 7
		}
		f.Elems = append(f.Elems, line(p, 22-h, p, 22, "axis"))
	}
	return f
}

// gridFig is a forest row's chart with the axis's grid drawn: a line at
// every tick, fainter at the minor ones.
func gridFig(x scale, ticks []tick, title string) Fig {
	f := Fig{W: forestW, H: forestH, Class: "row-fig", Label: title}
	for _, t := range ticks {
		cls := "grid minor"
		if t.Major {
			cls = "grid"
		}
		p := x.pos(t.V)
		f.Elems = append(f.Elems, line(p, 0, p, forestH, cls))
	}
	return f
}

// rowFig draws one forest row: grid, p10–p90 whisker, CI bar, median.
func rowFig(x scale, ticks []tick, s stats.Summary, class, shape string, hollow bool, title string) Fig {
	f := gridFig(x, ticks, title)
	// The median's mark sits above its interval, not on it: an interval
	// narrower than the mark stays visible.
	bar, mark := forestH/2.0+3, forestH/2.0-4
	var g []Elem
	if s.P90 > 0 && s.P10 > 0 {
		a, b := x.clampPos(s.P10), x.clampPos(s.P90)
		g = append(g, line(a, bar, b, bar, "wh"), line(a, bar-3, a, bar+3, "wh"), line(b, bar-3, b, bar+3, "wh"))
	}
	if s.CILow > 0 && s.CIHigh > 0 && s.Confidence > 0 {
		a, b := x.clampPos(s.CILow), x.clampPos(s.CIHigh)
		g = append(g, rect(a, bar-3, math.Max(b-a, 2), 6, "ci"))
	}
	mcls := "mk"
	if hollow {
		mcls = "mk hollow"
	}
	if s.Median > 0 {
		m := x.clampPos(s.Median)
		g = append(g, line(m, mark, m, bar+3, "stem"), marker(shape, m, mark, 3.8, mcls))
	}
	e := group(title, g...)
	e.Class = class
	f.Elems = append(f.Elems, e)
	return f
}

// summaryTitle is the tooltip of a figure: its label, then its numbers.
func summaryTitle(label string, s stats.Summary, unit string) string {
	ci := "no interval (too few samples)"
	if s.Confidence > 0 {
		ci = fmt.Sprintf("%s CI %s – %s", units.Percent(100*s.Confidence, 0), units.Time(s.CILow), units.Time(s.CIHigh))
	}
	return fmt.Sprintf("%s\nmedian %s %s · %s · p10–p90 %s – %s · n=%d",
		label, units.Time(s.Median), unit, ci, units.Time(s.P10), units.Time(s.P90), s.N)
}

// ciAt is ciText against the level the column states.
func ciAt(s stats.Summary, stated float64) string {
	if math.IsNaN(compare.CIPercent(s)) {
		return "—"
	}
	m := ""
	if render.LevelText(s.Confidence) != render.LevelText(stated) {
		m = " @" + render.LevelText(s.Confidence)
	}
	return render.SpanPercent(s.Median, s.CILow, s.CIHigh) + m
}

func ciText(s stats.Summary) string {
	if math.IsNaN(compare.CIPercent(s)) {
		return "—"
	}
	return render.SpanPercent(s.Median, s.CILow, s.CIHigh) + render.LevelMark(s.Confidence)
}

func spreadText(s stats.Summary) string {
	if s.N == 0 {
		return "—"
	}
	return fmtRange(s.P10, s.P90)
}

// fmtRange renders lo–hi with one unit when both take the same one.
func fmtRange(lo, hi float64) string {
	a, b := units.Time(lo), units.Time(hi)
	ua, ub := a[strings.LastIndexByte(a, ' ')+1:], b[strings.LastIndexByte(b, ' ')+1:]
	if ua == ub {
		return a[:len(a)-len(ua)-1] + "–" + b
	}
	return a + " – " + b
}

// labelSep separates the parts of a label (what, how, where, settings, host).
const labelSep = " — "

// textParts splits a free-text label (a creation or memory measurement's,
// written by its mechanism) into parts, without the host (" — on HOST" at
// its end): the Runs table shows each run's host once.
func textParts(label string) []string { return strings.Split(trimHost(label), labelSep) }

func trimHost(label string) string {
	if i := strings.LastIndex(label, labelSep+"on "); i >= 0 {
		return label[:i]
	}
	return label
}

// block groups rows of one benchmark and splits their labels into the
// parts all of them share and the rest.
func block(name string, rows []forestRow) forestBlock {
	b := forestBlock{Name: name, Rows: rows}
	if len(rows) == 0 {
		return b
	}
	if len(rows) == 1 && len(rows[0].Parts) <= 1 {
		// One row, one part (creation and memory labels): the whole label
		// heads the block.
		b.Common, b.Rows[0].Label = strings.Join(rows[0].Parts, labelSep), ""
		return b
	}
	common := rows[0].Parts
	for _, r := range rows[1:] {
		n := 0
		for n < len(common) && n < len(r.Parts) && common[n] == r.Parts[n] {
			n++
		}
		common = common[:n]
	}
	// Keep at least one part per row when a row's label is all prefix.
	for _, r := range rows {
		if len(r.Parts) == len(common) && len(common) > 0 {
			common = common[:len(common)-1]
		}
	}
	b.Common = strings.Join(common, labelSep)
	for i := range b.Rows {
		b.Rows[i].Label = strings.Join(b.Rows[i].Parts[len(common):], labelSep)
	}
	return b
}

// summaryDomain is the value range of a set of summaries (p10 to p90 and
// the intervals), for a shared log axis.
func summaryDomain(ss []stats.Summary) (float64, float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		for _, v := range []float64{s.P10, s.P90, s.CILow, s.CIHigh, s.Median} {
			if v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 0) {
		return 1, 10
	}
	return lo, hi
}

// forestAxis is a forest's shared log axis over [lo, hi].
func forestAxis(lo, hi float64) scale {
	return scale{log: true, lo: lo, hi: hi, from: 8, to: forestW - 8}
}

// newForest is a forest on axis x with its ticks, of several runs when
// more than one has rows in it (has).
func newForest(id, axisTitle string, x scale, ticks []tick, runs []*runView, has func(*result.Document) bool) *forest {
	return &forest{ID: id, Axis: axisFig(x, ticks), AxisTitle: axisTitle, MultiRun: runsWith(runs, has) > 1}
}

// itemForest is a forest of one group with a block per named item (a
// creation or memory figure): in the order of the first run (then what
// later runs add), each row followed by the same row of the other runs.
func itemForest[T any](runs []*runView, id, axisTitle string, x scale, ticks []tick,
	items func(*result.Document) []T, name func(T) string, row func(*runView, T, scale, []tick, *noteSet) forestRow) *forest {
	f := newForest(id, axisTitle, x, ticks, runs, func(d *result.Document) bool { return len(items(d)) > 0 })
	var notes noteSet
	g := forestGroup{}
	for _, n := range namesInOrder(runs, items, name) {
		var rows []forestRow
		for _, rv := range runs {
			for _, it := range items(rv.Doc) {
				if name(it) == n {
					rows = append(rows, row(rv, it, x, ticks, &notes))
				}
			}
		}
		g.Blocks = append(g.Blocks, block(n, rows))
	}
	f.Groups = []forestGroup{g}
	f.Notes = notes.list
	return f
}

// ladderForest builds the switch ladder of every run: rows grouped by rung,
// then benchmark, placement and run, so the same benchmark on several
// machines sits on adjacent lines.
func ladderForest(runs []*runView) *forest {
	type key struct{ rung, name string }
	var keys []key
	seen := map[key]bool{}
	var all []stats.Summary
	for _, rv := range runs {
		for _, r := range rv.Doc.Results {
			k := key{r.Rung, r.Name}
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
			all = append(all, r.OneWayNS.Summary)
		}
	}
	if len(keys) == 0 {
		return nil
	}
	slices.SortStableFunc(keys, func(a, b key) int { return result.RungIndex(a.rung) - result.RungIndex(b.rung) })
	lo, hi := summaryDomain(all)
	lo, hi = logDomain(lo, hi, 10)
	x := forestAxis(lo, hi)
	ticks := logTicks(lo, hi, units.ShortTime)
	f := newForest("ladder", "one-way ns per hop (log scale)", x, ticks, runs, func(d *result.Document) bool { return len(d.Results) > 0 })
	var levels []float64
	for _, a := range all {
		levels = append(levels, a.Confidence)
	}
	stated := render.StatedLevel(levels...)
	f.Level = render.LevelText(stated)
	f.XHead = strings.ToLower(render.BaselineHead(runs[0].Doc))
	var notes noteSet
	var cur *forestGroup
	for _, k := range keys {
		if cur == nil || cur.Sub != k.rung {
			title := rungTitles[k.rung]
			if title == "" {
				title = k.rung
			}
			f.Groups = append(f.Groups, forestGroup{Title: title, Sub: k.rung})
			cur = &f.Groups[len(f.Groups)-1]
		}
		var rows []forestRow
		name := k.name // with the marks every table puts after it (§ stackless, ‡ a VM exit)
		for _, pl := range append(result.PlacementOrder(), otherPlacements(runs, k.name)...) {
			for _, rv := range runs {
				for _, r := range rv.Doc.Results {
					if r.Name != k.name || r.Placement != pl {
						continue
					}
					row := ladderRow(rv, r, x, ticks, &notes)
					row.CI = ciAt(r.OneWayNS.Summary, stated)
					rows = append(rows, row)
					name = render.MarkedName(r)
				}
			}
		}
		for _, r := range rows {
			if r.Noise != "" {
				f.Noisy++
			}
		}
		cur.Blocks = append(cur.Blocks, block(name, rows))
	}
	f.Notes = notes.list
	return f
}

func otherPlacements(runs []*runView, name string) []string {
	placementOrder := result.PlacementOrder()
	var out []string
	for _, rv := range runs {
		for _, r := range rv.Doc.Results {
			if r.Name == name && !slices.Contains(placementOrder, r.Placement) && !slices.Contains(out, r.Placement) {
				out = append(out, r.Placement)
			}
		}
	}
	return out
}

func ladderRow(rv *runView, r result.Result, x scale, ticks []tick, notes *noteSet) forestRow {
	cls, shape := placementClass(r.Placement)
	s := r.OneWayNS
	row := forestRow{Name: r.Name, Parts: r.Label.Parts(), Placement: r.Placement, PClass: cls, Run: rv,
		Median: units.Time(s.Median), CI: ciText(s.Summary), Repro: reproText(s), Spread: spreadText(s.Summary), N: s.N, Flagged: len(r.Flags) > 0,
		Multiple: render.MultipleCell(r, rv.Doc),
		Switches: "—", SwClass: "none", Cycles: "—"}
	if r.OneWayCycles != nil {
		row.Cycles = units.Sig(r.OneWayCycles.Median)
	}
	if r.SwitchesPerHop != nil {
		row.Switches = units.Fixed(*r.SwitchesPerHop, 2)
		if r.Verification.Verified {
			row.Switches += " ✓"
			row.SwClass = "ok"
		} else {
			row.Switches += " ✗"
			row.SwClass = "bad"
		}
	}
	for _, fl := range r.Flags {
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s %s (%s): flagged %s — %s", r.Name, r.Placement, rv.Tag, fl.Code, fl.Message)))
	}
	// Only the noise warnings are the "~ varied a lot"; every other warning
	// (warm-up dropped, target interval missed, ...) changes what the figure
	// means and is a note with its own words.
	var noise []string
	for _, w := range r.Warnings {
		if isNoise(w) {
			noise = append(noise, w.Message)
			continue
		}
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s %s (%s): %s", r.Name, r.Placement, rv.Tag, w.Message)))
	}
	if c := r.CrossCPU; c != nil && c.Consists != "" {
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s %s (%s): %s", r.Name, r.Placement, rv.Tag, c.Consists)))
	}
	row.Noise = strings.Join(noise, "\n")
	title := summaryTitle(r.Label.String(), s.Summary, "per hop")
	if r.Op != "" {
		title += "\none op: " + r.Op
	}
	row.Fig = rowFig(x, ticks, s.Summary, cls, shape, row.Flagged, title)
	return row
}

// reproText is the reproducibility interval of a ladder figure as
// percentages of it (−a/+b% where its sides differ), marked ′ where its
// between-sitting part was pooled from other cells (the legend says
// which); "—" where the machine has not learned it.
func reproText(f result.Figure) string {
	rp := f.Reproducibility
	if rp == nil || f.Median <= 0 {
		return "—"
	}
	s := render.SpanPercent(f.Median, rp.Low, rp.High) + render.LevelMark(rp.Confidence)
	if len(rp.PooledFrom) > 0 {
		s += render.MarkPooled.Symbol
	}
	return s
}

// spawnForest is the creation ladder: nanoseconds to create one context,
// with the published or folklore claim beside each.
func spawnForest(runs []*runView) *forest {
	var all []stats.Summary
	for _, rv := range runs {
		for _, s := range rv.Doc.Spawn {
			all = append(all, s.PerCreateNS)
		}
	}
	if len(all) == 0 {
		return nil
	}
	lo, hi := summaryDomain(all)
	lo, hi = logDomain(lo, hi, 10)
	x := forestAxis(lo, hi)
	ticks := logTicks(lo, hi, units.ShortTime)
	return itemForest(runs, "spawn", "ns to create one context (log scale)", x, ticks,
		func(d *result.Document) []result.Spawn { return d.Spawn }, func(s result.Spawn) string { return s.Name }, spawnRow)
}

// spawnRow is a creation figure's row, with the claim beside it.
func spawnRow(rv *runView, s result.Spawn, x scale, ticks []tick, notes *noteSet) forestRow {
	cls, shape := kindClass(s.Kind)
	row := forestRow{Name: s.Name, Parts: textParts(s.Label), Placement: s.Kind,
		PClass: cls, Run: rv, Median: units.Time(s.PerCreateNS.Median), CI: ciText(s.PerCreateNS),
		Spread: spreadText(s.PerCreateNS), N: s.PerCreateNS.N, Claim: s.Claim}
	for _, n := range s.Notes {
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s (%s): %s", s.Name, rv.Tag, n)))
	}
	title := summaryTitle(s.Label, s.PerCreateNS, "per create")
	if s.Claim != "" {
		title += "\nclaim: " + s.Claim
	}
	row.Fig = rowFig(x, ticks, s.PerCreateNS, cls, shape, false, title)
	return row
}

// memoryForest is the memory ladder: bytes each context costs to keep, as
// dots on a log axis (PSS filled, RSS hollow, kernel triangle, virtual
// grey square). Bars would be dishonest on a log axis.
func memoryForest(runs []*runView) *forest {
	lo, hi := math.Inf(1), math.Inf(-1)
	n := 0
	for _, rv := range runs {
		for _, m := range rv.Doc.Memory {
			n++
			vals := []float64{m.RSSBytes, m.PSSBytes, m.KernelBytes, m.VirtBytes, m.ChargedBytes, m.RuntimeBytes}
			for _, c := range m.Claims {
				vals = append(vals, c.BytesPerContext)
			}
			for _, v := range vals {
				if v > 0 {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
		}
	}
	if n == 0 {
		return nil
	}
	if math.IsInf(lo, 0) {
		lo, hi = 1024, 4096
	}
	lo, hi = logDomain(lo, hi, 2)
	x := forestAxis(lo, hi)
	ticks := log2Ticks(lo, hi, units.ShortBytes, 8)
	return itemForest(runs, "memory", "bytes per context (log scale)", x, ticks,
		func(d *result.Document) []result.Memory { return d.Memory }, func(m result.Memory) string { return m.Name }, memoryRow)
}

// memoryRow is a memory figure's row: the headline figure, the other
// kinds beside it, the claims, and the limit that held it short.
func memoryRow(rv *runView, m result.Memory, x scale, ticks []tick, notes *noteSet) forestRow {
	cls, _ := kindClass(m.Kind)
	row := forestRow{Name: m.Name, Parts: textParts(m.Label), Placement: m.Kind,
		PClass: cls, Run: rv, Median: bytesOrDash(memFigure(m)), Claims: claimList(m), N: m.Contexts,
		Extra: []string{bytesOrDash(m.ChargedBytes), bytesOrDash(m.RSSBytes), bytesOrDash(m.KernelBytes),
			units.ShortCount(float64(m.Contexts)) + " / " + units.ShortCount(float64(m.Requested))}}
	if m.Limit != "" {
		what := "limit"
		if m.Contexts < m.Requested {
			what = fmt.Sprintf("held %d of %d asked for, stopped by", m.Contexts, m.Requested)
		}
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s (%s): %s %s", m.Name, rv.Tag, what, m.Limit)))
	}
	if len(m.Limits) > 0 {
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s (%s): limits in force: %s", m.Name, rv.Tag, strings.Join(m.Limits, "; "))))
	}
	for _, s := range m.Notes {
		row.Notes = append(row.Notes, notes.add(fmt.Sprintf("%s (%s): %s", m.Name, rv.Tag, s)))
	}
	title := fmt.Sprintf("%s\nPSS %s · charged %s · RSS %s · kernel %s · virtual %s per context, %d contexts held",
		m.Label, bytesOrDash(m.PSSBytes), bytesOrDash(m.ChargedBytes), bytesOrDash(m.RSSBytes), bytesOrDash(m.KernelBytes), bytesOrDash(m.VirtBytes), m.Contexts)
	for _, c := range claimList(m) {
		title += "\n" + c
	}
	row.Fig = memoryFig(x, ticks, m, cls, title)
	return row
}

func memoryFig(x scale, ticks []tick, m result.Memory, cls, title string) Fig {
	f := gridFig(x, ticks, title)
	mid := forestH / 2.0
	var g []Elem
	if m.VirtBytes > 0 {
		g = append(g, marker("square", x.clampPos(m.VirtBytes), mid, 4, "mk virt"))
	}
	if m.KernelBytes > 0 {
		g = append(g, marker("triangle", x.clampPos(m.KernelBytes), mid, 4.5, "mk kern"))
	}
	if m.RSSBytes > 0 {
		g = append(g, marker("circle", x.clampPos(m.RSSBytes), mid, 5.5, "mk hollow"))
	}
	if m.ChargedBytes > 0 {
		g = append(g, marker("diamond", x.clampPos(m.ChargedBytes), mid, 4, "mk"))
	}
	if f := memFigure(m); f > 0 {
		g = append(g, marker("circle", x.clampPos(f), mid, 4, "mk"))
	}
	e := group(title, g...)
	e.Class = cls
	f.Elems = append(f.Elems, e)
	// A claim that names a size is drawn where it says, as a cross, so the
	// measured marks can be read against it — unless it is a size of
	// something else (a stack reservation beside PSS): nothing to read
	// against then.
	for _, c := range m.Claims {
		if c.BytesPerContext > 0 && c.Differs == "" {
			cx := x.clampPos(c.BytesPerContext)
			f.Elems = append(f.Elems, group(fmt.Sprintf("claim: %s — %s per context (%s)", c.Text, units.ShortBytes(c.BytesPerContext), c.Source),
				line(cx-4, mid-4, cx+4, mid+4, "claim-x"), line(cx-4, mid+4, cx+4, mid-4, "claim-x")))
		}
	}
	return f
}

// claimList is a memory row's claims, each with its source and the size
// it names: the structured claims when there are any (Claim then only
// repeats them), else the one-line Claim.
func claimList(m result.Memory) []string {
	if len(m.Claims) == 0 {
		if m.Claim == "" {
			return nil
		}
		return []string{"claim: " + m.Claim}
	}
	var out []string
	for _, c := range m.Claims {
		t := "claim: " + c.Text
		if c.BytesPerContext > 0 && c.Differs == "" {
			t += " — " + units.ShortBytes(c.BytesPerContext) + " per context (× on the chart)"
		}
		if c.Source != "" {
			t += " — " + c.Source
		}
		if c.Differs != "" {
			t += " — not like for like: " + c.Differs
		}
		out = append(out, t)
	}
	return out
}

func runsWith(runs []*runView, has func(*result.Document) bool) int {
	n := 0
	for _, rv := range runs {
		if has(rv.Doc) {
			n++
		}
	}
	return n
}

// bytesOrDash renders a byte figure; zero means not measured.
func bytesOrDash(b float64) string {
	if b <= 0 {
		return "—"
	}
	return units.ShortBytes(b)
}

// memFigure is a memory row's headline: PSS, or for another runtime's probe
// (which measures what its runtime counts, not the process) that count.
func memFigure(m result.Memory) float64 {
	if m.PSSBytes == 0 && m.RuntimeBytes > 0 {
		return m.RuntimeBytes
	}
	return m.PSSBytes
}

// namesInOrder lists the names of every run's items, each once, in the
// order first seen (the first run's order, then what later runs add).
func namesInOrder[T any](runs []*runView, items func(*result.Document) []T, name func(T) string) []string {
	var names []string
	for _, rv := range runs {
		for _, it := range items(rv.Doc) {
			if n := name(it); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	return names
}
