package compare

// sets.go: two sets of files compared with the sitting as the unit.

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// CompareSets compares two sets of result files — several sittings before
// a change and several after it (an upgrade, two builds), each file one
// sitting — row by row, the sittings as the unit (stats.SetChange): each
// side's figure is the geometric mean of its sittings' medians (with the
// t interval of that mean), the change their ratio, tested against the two
// sets' own scatter pooled with the spread the machine has learned
// (the prior spread with the most degrees of freedom any file carries),
// on host-adjusted figures where every file of both sets has them. The
// comparison has two columns, labelled by the sets.
func CompareSets(before, after []Input, o Options) (*Comparison, error) {
	if len(before) == 0 || len(after) == 0 {
		return nil, errors.New("a set comparison needs at least one file on each side")
	}
	o, err := o.withAlpha()
	if err != nil {
		return nil, err
	}
	sides := [][]Input{before, after}
	c := &Comparison{Inputs: []Input{setInput(before, "before"), setInput(after, "after")}, Alpha: o.Alpha, IgnorePlacement: o.IgnorePlacement, Sets: sides}
	machine := sameMachines(append(append([]Input{}, before...), after...))
	for _, src := range sources {
		if t := setTable(src, sides, o, machine); t != nil {
			c.Tables = append(c.Tables, t)
		}
	}
	c.Shared, c.EnvDiffs = envDiff(c.Inputs)
	for side, set := range sides {
		if !sameFingerprint(set) {
			c.Hints = append(c.Hints, fmt.Sprintf("the %s set's files do not share one fingerprint (%s): its sittings are not repetitions of one set-up", []string{"before", "after"}[side], strings.Join(buildParts(set), ", ")))
		}
		c.Synthetic = append(c.Synthetic, dryRuns(set)...)
	}
	c.Hints = append(c.Hints, setHints(c, machine)...)
	return c, nil
}

// setInput is a set as one column: labelled by its side and size, its
// path the files' labels, its document the first file's.
func setInput(set []Input, what string) Input {
	names := make([]string, len(set))
	for i, in := range set {
		names[i] = in.Label
	}
	return Input{Label: fmt.Sprintf("%s (%d)", what, len(set)), Path: strings.Join(names, ","), Doc: set[0].Doc}
}

// setTable is one source's table over the two sets: each row's sittings
// gathered per side, each side's cell (setCell) and the change between
// them; nil where no file has such figures.
func setTable(src source, sides [][]Input, o Options, machine bool) *Table {
	t := &Table{Title: src.title, Unit: src.unit}
	index := map[string]*Row{}
	cells := map[*Row][2][]Cell{}
	for side, set := range sides {
		for _, in := range set {
			for _, e := range src.entries(in.Doc) {
				row := t.rowOf(index, e, o, 2)
				cs := cells[row]
				cs[side] = append(cs[side], e.cell())
				cells[row] = cs
			}
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	for _, row := range t.Rows {
		cs := cells[row]
		for side := range 2 {
			row.Cells[side] = setCell(cs[side])
		}
		if len(cs[0]) == 0 || len(cs[1]) == 0 {
			continue
		}
		figs, adjusted := setFigures(sides, cs, machine)
		var bw stats.Between
		if machine {
			bw = priorOfSets(cs, adjusted)
		}
		d := deltaOf(stats.SetChange(figs[0], figs[1], bw, o.Alpha), adjusted, row.Cells[0], row.Cells[1])
		if adjusted {
			t.HostAdjusted++
		}
		if bw.OK {
			t.Reproducible++
		}
		row.Deltas[1] = d
	}
	if len(t.Rows) >= 2 {
		t.Geomean = geomean(t, 2, func(string) int { return 0 })
	}
	return t
}

// priorOfSets is the between-sitting spread a set comparison is tested
// against: the prior spread with the most degrees of freedom any of the
// sittings carries (of the adjusted figures where those are tested).
func priorOfSets(cs [2][]Cell, adjusted bool) stats.Between {
	var bw stats.Between
	for _, list := range cs {
		for _, cell := range list {
			r := cell.Repro
			if adjusted && cell.Adjusted != nil {
				r = cell.Adjusted.Reproducibility
			}
			if p := r.PriorBetween(); p.OK && p.DF > bw.DF {
				bw = p
			}
		}
	}
	return bw
}

// setCell is one side's cell of a set comparison: the geometric mean of
// its sittings' medians, with the 95% t interval of that mean (the range
// of one sitting's own interval when there is one), N the sittings.
func setCell(cs []Cell) Cell {
	if len(cs) == 0 {
		return Cell{}
	}
	var logs []float64
	for _, c := range cs {
		if c.Summary.Median > 0 {
			logs = append(logs, math.Log(c.Summary.Median))
		}
	}
	out := Cell{Present: true, Placement: cs[0].Placement, CPUs: cs[0].CPUs}
	if len(logs) == 0 {
		return out
	}
	m, sd := meanSD(logs)
	s := stats.Summary{Median: math.Exp(m), N: len(logs), Confidence: stats.Confidence, Blocks: len(logs)}
	if len(logs) == 1 {
		s.CILow, s.CIHigh, s.Confidence = cs[0].Summary.CILow, cs[0].Summary.CIHigh, cs[0].Summary.Confidence
	} else {
		half := stats.TQuantile(float64(len(logs)-1), 0.975) * sd / math.Sqrt(float64(len(logs)))
		s.CILow, s.CIHigh = math.Exp(m-half), math.Exp(m+half)
	}
	out.Summary = s
	return out
}

// setFigures are both sides' sittings as SetChange reads them: adjusted
// where every file of both sides probed the host and the files come from
// one machine (at one reference and slope: the newest file's), else as
// measured.
func setFigures(sides [][]Input, cs [2][]Cell, machine bool) ([2][]stats.SittingFigure, bool) {
	var out [2][]stats.SittingFigure
	var hs *result.HostState
	for _, set := range sides {
		for _, in := range set {
			if h := in.Doc.HostState; h != nil && h.Slope.Applied > 0 {
				hs = h
			}
		}
	}
	adjusted := machine && hs != nil
	for _, list := range cs {
		for _, c := range list {
			if c.Adjusted == nil {
				adjusted = false
			}
		}
	}
	for side, list := range cs {
		for _, c := range list {
			f := stats.FigureOf(c.Summary)
			if adjusted {
				a, ok := stats.Adjusted(f, stats.BlockMedians(c.Samples, c.Sizes), c.Probes, hs.ReferenceNS, hs.Slope.Applied)
				if !ok {
					return setFigures(sides, cs, false)
				}
				f = a
			}
			out[side] = append(out[side], f)
		}
	}
	return out, adjusted
}

func meanSD(v []float64) (m, sd float64) {
	for _, x := range v {
		m += x
	}
	m /= float64(len(v))
	if len(v) < 2 {
		return m, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return m, math.Sqrt(ss / float64(len(v)-1))
}

// setHints say what a set comparison rests on.
func setHints(c *Comparison, machine bool) []string {
	var h []string
	learned, adjusted, tests := 0, 0, 0
	for _, t := range c.Tables {
		learned += t.Reproducible
		adjusted += t.HostAdjusted
		for _, r := range t.Rows {
			if r.Deltas[1].Tested {
				tests++
			}
		}
	}
	switch {
	case !machine:
		h = append(h, "the sets come from different machines: each change is tested against the sets' own scatter only")
	case learned > 0:
		h = append(h, fmt.Sprintf("sittings are the unit: %d of %d changes tested against the sets' own scatter pooled with the spread this machine has learned", learned, tests))
	default:
		h = append(h, "sittings are the unit: the machine had not learned its spread, so each change is tested against the sets' own scatter only (wide with few files a side)")
	}
	if adjusted > 0 {
		h = append(h, fmt.Sprintf("%d of %d changes were tested on host-adjusted figures (docs/methodology.md, \"The host's state\")", adjusted, tests))
	}
	if r := c.Resolvable(); r > 0 {
		h = append(h, fmt.Sprintf("resolvable: a change of about %s or more is found in 80%% of set comparisons like this one", units.Percent(100*r, 1)))
	}
	return h
}
