package compare

// table.go: one table of a comparison: every input's figures matched into
// rows, each change against the base tested (decide.go), and the geometric
// mean that summarises the table.

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// rowOf is the table's row for entry e, made (n cells wide, in the order
// entries first come) when the table has none yet.
func (t *Table) rowOf(index map[string]*Row, e entry, o Options, n int) *Row {
	key := e.key(o)
	row := index[key]
	if row == nil {
		row = &Row{Name: e.name, Cells: make([]Cell, n), Deltas: make([]Delta, n)}
		if !o.IgnorePlacement {
			row.Placement = e.placement
		}
		index[key] = row
		t.Rows = append(t.Rows, row)
	}
	return row
}

// buildTable is one source's table over the inputs: its entries matched
// into rows, each change against the base tested, the geometric mean; nil
// where no input has such figures.
func buildTable(src source, inputs []Input, o Options, note func(string) int) (*Table, error) {
	t := &Table{Title: src.title, Unit: src.unit}
	found, err := t.fill(src, inputs, o, note)
	if err != nil || !found {
		return nil, err
	}
	t.testChanges(inputs, o.Alpha, note)
	if len(t.Rows) >= 2 {
		t.Geomean = geomean(t, len(inputs), note)
	}
	return t, nil
}

// fill matches every input's entries into the table's rows, one cell per
// input with its notes; found says some input had an entry. Two entries
// of one file in one row are refused.
func (t *Table) fill(src source, inputs []Input, o Options, note func(string) int) (found bool, err error) {
	index := map[string]*Row{}
	for i, in := range inputs {
		seen := map[string]string{}
		for _, e := range src.entries(in.Doc) {
			found = true
			key := e.key(o)
			if p, dup := seen[key]; dup && o.IgnorePlacement {
				return found, fmt.Errorf("%s has %s at two placements (%s and %s); --ignore-placement needs one per benchmark (run with --placement)", in.Path, e.name, p, e.placement)
			}
			seen[key] = e.placement
			row := t.rowOf(index, e, o, len(inputs))
			if row.Cells[i].Present {
				return found, fmt.Errorf("%s has %s %s twice", in.Path, e.name, e.placement)
			}
			row.Cells[i] = e.noted(note)
		}
	}
	return found, nil
}

// noted is the entry as a row's cell with its footnotes: the summary's
// warnings, too few samples, the entry's own notes.
func (e entry) noted(note func(string) int) Cell {
	cell := e.cell()
	for _, w := range e.summary.Warnings {
		cell.Notes = append(cell.Notes, note(w))
	}
	if n := len(e.samples); n > 0 && n < RecommendedSamples {
		cell.Notes = append(cell.Notes, note(fmt.Sprintf("fewer than %d samples: the interval is wide and the test weak; re-run with --runs 20 or more", RecommendedSamples)))
	}
	for _, s := range e.notes {
		cell.Notes = append(cell.Notes, note(s))
	}
	return cell
}

// testChanges decides every row's change of each input against the base
// (decide.go) and notes what limits a test.
func (t *Table) testChanges(inputs []Input, alpha float64, note func(string) int) {
	for _, row := range t.Rows {
		base := row.Cells[0]
		for i := 1; i < len(inputs); i++ {
			cur := row.Cells[i]
			if !base.Present || !cur.Present || len(base.Samples) == 0 || len(cur.Samples) == 0 {
				continue
			}
			ch, adjusted := change(inputs[0].Doc, inputs[i].Doc, base, cur, alpha)
			d := deltaOf(ch, adjusted, base, cur)
			d.Tested = true
			t.count(d)
			switch {
			case ch.Method == stats.UnitSittings:
			case !ch.OK:
				d.Notes = append(d.Notes, note(fmt.Sprintf("too few %s for an interval of the change (%d and %d)", ch.Method, ch.N1, ch.N2)))
			case ch.Method == stats.IntervalSamples:
				d.Notes = append(d.Notes, note("compared sample by sample: a file does not record its blocks (written before schema version 2, or one block); samples in one block are not independent, so this test calls too many changes"))
			case ch.Confidence < 1-alpha-1e-9:
				d.Notes = append(d.Notes, note(fmt.Sprintf("too few blocks for a %s interval of the change: it is stated at %s", units.Percent(100*(1-alpha), 0), units.Percent(100*ch.Confidence, 1))))
			}
			row.Deltas[i] = d
		}
	}
}

// deltaOf is a decided change as a row shows it; where the host-adjusted
// figures were tested, the measured change (the ratio of the cells'
// medians) is shown beside.
func deltaOf(ch stats.Change, adjusted bool, base, cur Cell) Delta {
	d := Delta{Present: true, Tested: ch.OK, P: ch.P, N1: ch.N1, N2: ch.N2, Unit: ch.Method,
		Significant: ch.Resolved, Change: ch.Ratio - 1, Lo: ch.Lo - 1, Hi: ch.Hi - 1,
		Confidence: ch.Confidence, Resolvable: ch.Resolvable, HostAdjusted: adjusted}
	if adjusted {
		d.MeasuredChange = cur.Summary.Median/base.Summary.Median - 1
	}
	return d
}

// count tallies a tested change: against reproducibility (one machine's
// learned spread) and on host-adjusted figures.
func (t *Table) count(d Delta) {
	if d.Unit == stats.UnitSittings {
		t.Reproducible++
	}
	if d.HostAdjusted {
		t.HostAdjusted++
	}
}

// geomean summarises a table: per input the geometric mean of its medians,
// and per input after the first the geometric mean of the ratios over the
// rows both have (so a missing row does not move the change).
func geomean(t *Table, n int, note func(string) int) *Row {
	g := &Row{Name: "geomean", Cells: make([]Cell, n), Deltas: make([]Delta, n)}
	for i := 0; i < n; i++ {
		var meds []float64
		for _, r := range t.Rows {
			if r.Cells[i].Present {
				meds = append(meds, r.Cells[i].Summary.Median)
			}
		}
		if len(meds) > 0 {
			g.Cells[i] = Cell{Present: true, Summary: stats.Summary{Median: stats.Geomean(meds), N: len(meds)}}
		}
		if i == 0 {
			continue
		}
		var ratios []float64
		for _, r := range t.Rows {
			if r.Cells[0].Present && r.Cells[i].Present && r.Cells[0].Summary.Median > 0 {
				ratios = append(ratios, r.Cells[i].Summary.Median/r.Cells[0].Summary.Median)
			}
		}
		if len(ratios) == 0 {
			continue
		}
		d := Delta{Present: true, Change: stats.Geomean(ratios) - 1}
		if len(ratios) != len(t.Rows) {
			d.Notes = append(d.Notes, note(fmt.Sprintf("benchmark sets differ: the geomean change is over the %d rows both files have", len(ratios))))
		}
		g.Deltas[i] = d
	}
	return g
}
