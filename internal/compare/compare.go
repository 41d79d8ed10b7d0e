// Package compare puts result files side by side the way benchstat does:
// per benchmark and placement, the median of each file with its confidence
// interval, and for every file after the first (the base) the change of the
// median and whether it is significant.
//
// The unit of every comparison is the block (one worker process), not the
// sample: samples inside a block share its process and its stretch of host
// noise, and a test on samples calls identical runs different about half
// the time. A change is the Hodges–Lehmann ratio of the two files' block
// medians with the interval that inverts the Mann–Whitney test on blocks
// (internal/stats.CompareBlocks); no normality is assumed. A change whose
// interval contains no change prints as "≈" (not resolved): the data do not show a
// difference, which is not the same as showing there is none. Files written
// before blocks were recorded are compared sample by sample, and a note
// says that such a test is too eager. A geometric-mean row summarises each
// table, and everything a reader must know before trusting a row (too few
// samples, a flagged switch count, environments that differ) becomes a
// numbered footnote or a warning.
package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// RecommendedSamples is the sample count below which a row gets a footnote:
// benchstat's and google/benchmark's advice is 10 or more per side.
const RecommendedSamples = 10

// DefaultAlpha is the default significance level.
const DefaultAlpha = 0.05

// Input is one result file and its column label.
type Input struct {
	Label string
	Path  string
	Doc   *result.Document
}

// Options control the comparison.
type Options struct {
	// Alpha is the significance level of the U test (0 means DefaultAlpha).
	Alpha float64
	// IgnorePlacement matches rows by benchmark name alone, so that a
	// same-cpu file can be compared with a cross-cpu one. Each file must
	// then hold one placement per benchmark.
	IgnorePlacement bool
}

// Comparison is the outcome of Compare.
type Comparison struct {
	Inputs []Input
	Alpha  float64
	// IgnorePlacement is the option the rows were matched with.
	IgnorePlacement bool
	Tables          []*Table
	// Shared lists "key: value" lines of the environment every input has
	// in common; EnvDiffs one line per attribute in which they differ.
	Shared   []string
	EnvDiffs []string
	// Synthetic names the inputs that are dry runs.
	Synthetic []string
	// Notes are the footnotes; a row refers to Notes[i] as i+1.
	Notes []string
	// Hints are advice about the comparison as a whole.
	Hints []string
	// Sets, for a comparison of sets of files (CompareSets), are the files
	// of each side, before and after; nil otherwise.
	Sets [][]Input
	// Phases compares, phase by phase on the kernel's clock, the rows
	// that ctxbench explain split in the base and in another file.
	Phases []PhaseChange
}

// PhaseChange is one explained row of the base against one other file:
// every phase either has, in time order, with ns per hop on each side.
// Untraced says both files have the phases on the untraced scale too (the
// probes' cost per firing taken out, ctxbench explain): a change there is
// not the probes' cost changing with the firings.
type PhaseChange struct {
	Name, Placement, Input string
	Untraced               bool
	Phases                 []PhaseDelta
}

// PhaseDelta is one phase of a PhaseChange (0 ns where a side lacks it):
// on the traced scale, and on the untraced one where PhaseChange.Untraced.
// CPU is its side on a hop across CPUs (a name, the interrupts, can occur
// on each).
type PhaseDelta struct {
	Phase, CPU                    string
	BaseNS, CurNS                 float64
	BaseUntracedNS, CurUntracedNS float64
}

// Table is one kind of figure: the switch ladder, rings, creation.
type Table struct {
	Title string
	Unit  string // e.g. "ns/hop"
	Rows  []*Row
	// Geomean summarises the table (nil with fewer than two rows).
	Geomean *Row
	// Reproducible counts the changes tested against reproducibility (the
	// files share a fingerprint whose between-sitting spread was learned);
	// the rest were tested against within-sitting precision only.
	Reproducible int
	// HostAdjusted counts the changes tested on host-adjusted figures.
	HostAdjusted int
}

// Row is one benchmark (and placement) across the inputs.
type Row struct {
	Name      string
	Placement string // "" when rows are matched by name only
	Cells     []Cell // one per input
	// Deltas[i] compares input i with input 0; Deltas[0] is unused.
	Deltas []Delta
}

// Cell is one input's figure for a row.
type Cell struct {
	Present   bool
	Placement string
	Summary   stats.Summary
	Samples   []float64
	Sizes     []int // samples per block; nil when the file did not record blocks
	Notes     []int // 1-based footnote numbers
	Repro     *result.Reproducibility
	CPUs      string
	// Adjusted is the figure with the host's state taken out, Probes its
	// blocks' host probe readings (nil where the file has none).
	Adjusted *result.HostAdjusted
	Probes   []float64
}

// Delta is the change of a cell against the base's.
type Delta struct {
	Present bool
	// Significant: the interval [Lo, Hi] excludes no change.
	Significant bool
	// Change is the ratio new/base − 1 (0.1 = 10% slower: every figure
	// here is a time, lower is better): the Hodges–Lehmann estimate from
	// the block medians, or for a geomean row the geomean of the medians'
	// ratios. Lo and Hi bound it at Confidence (Tested rows only).
	Change, Lo, Hi float64
	Confidence     float64
	// Resolvable is the smallest change a comparison like this one finds
	// in 80% of repetitions (stats.Detectable, from the interval's
	// relative half-width).
	Resolvable float64
	P          float64 // two-sided p-value: Mann–Whitney on the units, or the t test against reproducibility
	N1, N2     int     // units compared: blocks, or samples (Unit)
	Unit       string  // "sittings" (tested against reproducibility), "blocks" or "samples"
	Notes      []int
	// Geomean deltas have no test.
	Tested bool
	// HostAdjusted says the change was tested on the host-adjusted figures
	// (both files probed the host; docs/methodology.md, "The host's
	// state"): Change, Lo and Hi are then of those, and MeasuredChange is
	// the ratio of the measured medians − 1, shown beside.
	HostAdjusted   bool
	MeasuredChange float64
}

// Regression is a slowdown whose whole interval lies above a threshold.
type Regression struct {
	Table, Name, Placement, Input string
	Change, Lo, Hi                float64
}

func (r Regression) String() string {
	name := r.Name
	if r.Placement != "" {
		name += " " + r.Placement
	}
	return fmt.Sprintf("%s %s %s [%s, %s] in %s", r.Table, name, units.SignedPercent(100*r.Change, 1), units.SignedPercent(100*r.Lo, 1), units.SignedPercent(100*r.Hi, 1), r.Input)
}

// entry is one figure of one input, before matching.
type entry struct {
	name, placement string
	samples         []float64
	sizes           []int // samples per block, in order; nil when unknown
	summary         stats.Summary
	notes           []string
	// repro is the figure's reproducibility (ladder rows whose machine had
	// learned it); nil elsewhere.
	repro *result.Reproducibility
	cpus  string // the CPUs the figure's sides were allowed (result.CellCPUs)
	// adjusted is the figure with the host's state taken out, and probes
	// its blocks' host probe readings (ladder rows of probed runs).
	adjusted *result.HostAdjusted
	probes   []float64
}

// key matches an entry to its row: by name and placement, or by name alone
// with IgnorePlacement.
func (e entry) key(o Options) string {
	if o.IgnorePlacement {
		return e.name
	}
	return e.name + "\x00" + e.placement
}

// cell is the entry as a row's cell (its notes are the caller's).
func (e entry) cell() Cell {
	return Cell{Present: true, Placement: e.placement, Summary: e.summary, Samples: e.samples, Sizes: e.sizes, Repro: e.repro,
		CPUs: e.cpus, Adjusted: e.adjusted, Probes: e.probes}
}

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

type source struct {
	title, unit string
	entries     func(d *result.Document) []entry
}

var sources = []source{
	{"switch ladder", "ns/hop", ladderEntries},
	{"rings (raw)", "ns/hop", ringEntries},
	{"creation", "ns/create", spawnEntries},
	{"load levels (percentiles)", "ns", loadEntries},
}

func ladderEntries(d *result.Document) []entry {
	var out []entry
	for _, r := range d.Results {
		e := entry{name: r.Name, placement: r.Placement, samples: r.Samples, sizes: result.BlockSizes(r.BlockInfo), summary: r.OneWayNS.Summary, repro: r.OneWayNS.Reproducibility, cpus: result.CellCPUs(&r),
			adjusted: r.HostAdjusted, probes: result.BlockProbes(r.BlockInfo)}
		for _, f := range r.Flags {
			e.notes = append(e.notes, fmt.Sprintf("%s %s flagged (%s): %s", r.Name, r.Placement, f.Code, f.Message))
		}
		out = append(out, e)
	}
	return out
}

func ringEntries(d *result.Document) []entry {
	var out []entry
	for _, r := range d.Rings {
		name := r.Point()
		e := entry{name: name, placement: r.Placement, samples: r.Samples, sizes: result.BlockSizes(r.BlockInfo), summary: r.RawNS}
		if e.summary.N != len(e.samples) {
			e.summary = stats.Summarize(e.samples)
		}
		for _, f := range r.Flags {
			e.notes = append(e.notes, fmt.Sprintf("%s %s flagged (%s): %s", name, r.Placement, f.Code, f.Message))
		}
		out = append(out, e)
	}
	return out
}

// loadEntries are ctxbench load's levels, matched level by level (a
// utilisation level by its target, a rate level by its rate): each level's
// wake-up p50, p99 and p99.9 and its corrected request p50, p99 and p99.9,
// each a row whose samples are the blocks' own percentiles (one per block:
// blocks are the unit, as everywhere), and whose figure and interval are
// the level's. A level that did not keep its schedule has no latency to
// compare and is left out with a note.
func loadEntries(d *result.Document) []entry {
	var out []entry
	for _, s := range d.Loads {
		for _, l := range s.Levels {
			lname := "load " + s.Kind + " " + l.LevelName()
			if !l.Reported() {
				out = append(out, entry{name: lname + " (behind)", placement: s.Placement, notes: []string{fmt.Sprintf("%s %s: %s; not compared", lname, s.Placement, l.StatusReason)}})
				continue
			}
			for _, m := range []struct {
				what string
				lat  *result.LoadLatency
			}{{"wake", &l.Wakeup}, {"request", &l.Corrected}} {
				for _, p := range m.lat.Percentiles() {
					if p.Name == "p90" || p.P == nil || len(p.P.BlockNS) == 0 {
						continue
					}
					sizes := make([]int, len(p.P.BlockNS))
					for i := range sizes {
						sizes[i] = 1
					}
					sum := stats.SummarizeBlocks(p.P.BlockNS, sizes)
					sum.Median, sum.Warnings = p.P.NS, nil // the level's figure and interval (stats.TailInterval), not the blocks' median
					if p.P.CILow != nil && p.P.CIHigh != nil {
						sum.CILow, sum.CIHigh, sum.Confidence = *p.P.CILow, *p.P.CIHigh, p.P.Confidence
					}
					e := entry{name: fmt.Sprintf("%s %s %s", lname, m.what, strings.ReplaceAll(p.Name, "_", ".")), placement: s.Placement, samples: p.P.BlockNS, sizes: sizes, summary: sum}
					for _, f := range l.Flags {
						e.notes = append(e.notes, fmt.Sprintf("%s %s flagged (%s): %s", lname, s.Placement, f.Code, f.Message))
					}
					out = append(out, e)
				}
			}
		}
	}
	return out
}

func spawnEntries(d *result.Document) []entry {
	var out []entry
	for _, s := range d.Spawn {
		sizes := s.BlockSamples
		if len(sizes) == 0 {
			sizes = []int{len(s.Samples)} // written before blocks were recorded: one worker, one block
		}
		e := entry{name: s.Name, samples: s.Samples, sizes: sizes, summary: s.PerCreateNS}
		if e.summary.N != len(e.samples) {
			e.summary = stats.Summarize(e.samples)
		}
		out = append(out, e)
	}
	return out
}

// Compare matches the figures of the inputs and tests every change against
// the first input. It fails only on input that cannot be compared (no
// inputs, a bad alpha, two placements of one benchmark in a file with
// IgnorePlacement).
func Compare(inputs []Input, o Options) (*Comparison, error) {
	if len(inputs) == 0 {
		return nil, errors.New("nothing to compare")
	}
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return nil, fmt.Errorf("alpha must be between 0 and 1, got %v", o.Alpha)
	}
	c := &Comparison{Inputs: inputs, Alpha: o.Alpha, IgnorePlacement: o.IgnorePlacement}
	notes := map[string]int{}
	note := func(s string) int {
		if i, ok := notes[s]; ok {
			return i
		}
		c.Notes = append(c.Notes, s)
		notes[s] = len(c.Notes)
		return len(c.Notes)
	}
	for _, src := range sources {
		t, err := buildTable(src, inputs, o, note)
		if err != nil {
			return nil, err
		}
		if t != nil {
			c.Tables = append(c.Tables, t)
		}
	}
	c.Phases = phaseChanges(inputs, o)
	c.Shared, c.EnvDiffs = envDiff(inputs)
	for _, in := range inputs {
		if in.Doc.Settings.DryRun {
			c.Synthetic = append(c.Synthetic, in.Label)
		}
	}
	c.Hints = hints(c, o)
	return c, nil
}

func buildTable(src source, inputs []Input, o Options, note func(string) int) (*Table, error) {
	t := &Table{Title: src.title, Unit: src.unit}
	index := map[string]*Row{}
	found := false
	for i, in := range inputs {
		seen := map[string]string{}
		for _, e := range src.entries(in.Doc) {
			found = true
			key := e.key(o)
			if p, dup := seen[key]; dup && o.IgnorePlacement {
				return nil, fmt.Errorf("%s has %s at two placements (%s and %s); --ignore-placement needs one per benchmark (run with --placement)", in.Path, e.name, p, e.placement)
			}
			seen[key] = e.placement
			row := t.rowOf(index, e, o, len(inputs))
			if row.Cells[i].Present {
				return nil, fmt.Errorf("%s has %s %s twice", in.Path, e.name, e.placement)
			}
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
			row.Cells[i] = cell
		}
	}
	if !found {
		return nil, nil
	}
	for _, row := range t.Rows {
		base := row.Cells[0]
		for i := 1; i < len(inputs); i++ {
			cur := row.Cells[i]
			if !base.Present || !cur.Present || len(base.Samples) == 0 || len(cur.Samples) == 0 {
				continue
			}
			ch, adjusted := change(inputs[0].Doc, inputs[i].Doc, base, cur, o.Alpha)
			d := Delta{Present: true, Tested: true, P: ch.P, N1: ch.N1, N2: ch.N2, Unit: ch.Method,
				Significant: ch.Resolved, Change: ch.Ratio - 1, Lo: ch.Lo - 1, Hi: ch.Hi - 1,
				Confidence: ch.Confidence, Resolvable: ch.Resolvable, HostAdjusted: adjusted}
			if adjusted {
				t.HostAdjusted++
				d.MeasuredChange = cur.Summary.Median/base.Summary.Median - 1
			}
			switch {
			case ch.Method == "sittings":
				t.Reproducible++
			case !ch.OK:
				d.Notes = append(d.Notes, note(fmt.Sprintf("too few %s for an interval of the change (%d and %d)", ch.Method, ch.N1, ch.N2)))
			case ch.Method == "samples":
				d.Notes = append(d.Notes, note("compared sample by sample: a file does not record its blocks (written before schema version 2, or one block); samples in one block are not independent, so this test calls too many changes"))
			case ch.Confidence < 1-o.Alpha-1e-9:
				d.Notes = append(d.Notes, note(fmt.Sprintf("too few blocks for a %s interval of the change: it is stated at %s", units.Percent(100*(1-o.Alpha), 0), units.Percent(100*ch.Confidence, 1))))
			}
			row.Deltas[i] = d
		}
	}
	if len(t.Rows) >= 2 {
		t.Geomean = geomean(t, len(inputs), note)
	}
	return t, nil
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

// Regressions lists the slowdowns larger than pct percent with the
// interval's confidence: those whose whole interval lies above +pct (a
// point estimate above it with an interval reaching below is not enough,
// so a CI job does not fail on noise).
func (c *Comparison) Regressions(pct float64) []Regression {
	var out []Regression
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for i := 1; i < len(r.Deltas); i++ {
				d := r.Deltas[i]
				if d.Present && d.Tested && d.Significant && 100*d.Lo > pct {
					out = append(out, Regression{Table: t.Title, Name: r.Name, Placement: r.Placement,
						Input: c.Inputs[i].Label, Change: d.Change, Lo: d.Lo, Hi: d.Hi})
				}
			}
		}
	}
	return out
}

// Resolvable is the median over the tested rows of the change a
// comparison like theirs finds in 80% of repetitions (NaN without one):
// what these files can see.
func (c *Comparison) Resolvable() float64 {
	var v []float64
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for _, d := range r.Deltas {
				if d.Tested && d.Resolvable > 0 {
					v = append(v, d.Resolvable)
				}
			}
		}
	}
	return stats.Median(v)
}

// Tests counts the U tests made (for the multiple-testing hint).
func (c *Comparison) Tests() int {
	n := 0
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for _, d := range r.Deltas {
				if d.Tested {
					n++
				}
			}
		}
	}
	return n
}

// change tests one row's change between the base file's cell and another
// file's: against reproducibility when both files come from one machine
// (the machine part of their fingerprints: a new kernel or ctxbench build
// on it is judged by the spread its sittings have shown across builds),
// the rows ran on the same CPUs and either figure carries a spread learned
// before its own sitting — on the host-adjusted figures where both files
// probed the host and carry an adjusted spread, else on the measured ones;
// otherwise on the two files' blocks (within-sitting precision only).
// adjusted says the host-adjusted figures were tested.
func change(a, b *result.Document, base, cur Cell, alpha float64) (stats.Change, bool) {
	if !sameMachine(a, b) {
		return stats.CompareBlocks(base.Samples, base.Sizes, cur.Samples, cur.Sizes, alpha), false
	}
	return decide(hostStateOf(a, b), base, cur, alpha)
}

// decide is change for two cells known to come from one machine, whose
// host state (the newer file's, else the base's; nil: none) is hs: what
// compare and ctxbench aa both decide with.
func decide(hs *result.HostState, base, cur Cell, alpha float64) (stats.Change, bool) {
	ch := stats.CompareBlocks(base.Samples, base.Sizes, cur.Samples, cur.Sizes, alpha)
	// The history keys a cell by its CPUs too: figures taken on other CPUs
	// are not two sittings of one cell.
	if base.CPUs != cur.CPUs {
		return ch, false
	}
	if fa, fb, bw, ok := adjustedPair(hs, base, cur); ok {
		if sc := stats.SittingChange(fa, fb, bw, alpha); sc.OK {
			return sc, true
		}
	}
	if bw, ok := learned(base.Repro, cur.Repro); ok {
		// One machine whose sittings' spread is known: the change is
		// tested against reproducibility, not this pair's blocks alone
		// (which call identical runs different far more often than α).
		if sc := stats.SittingChange(stats.FigureOf(base.Summary), stats.FigureOf(cur.Summary), bw, alpha); sc.OK {
			return sc, false
		}
	}
	return ch, false
}

// hostStateOf is the host state two files are adjusted with: the newer
// file's (its history is the longer), else the base's; nil where neither
// resolved a host effect.
func hostStateOf(a, b *result.Document) *result.HostState {
	for _, d := range []*result.Document{b, a} {
		if d != nil && d.HostState != nil && d.HostState.Slope.Applied > 0 {
			return d.HostState
		}
	}
	return nil
}

// adjustedPair is the two cells' host-adjusted figures at one reference
// reading and one slope (hs's), so that the two are moved alike whatever
// reference each run knew, and the adjusted spread to test them against.
func adjustedPair(hs *result.HostState, base, cur Cell) (fa, fb stats.SittingFigure, bw stats.Between, ok bool) {
	if base.Adjusted == nil || cur.Adjusted == nil || hs == nil || hs.Slope.Applied == 0 {
		return fa, fb, bw, false
	}
	bw, ok = learned(base.Adjusted.Reproducibility, cur.Adjusted.Reproducibility)
	if !ok {
		return fa, fb, bw, false
	}
	adj := func(c Cell) (stats.SittingFigure, bool) {
		return stats.Adjusted(stats.FigureOf(c.Summary), stats.BlockMedians(c.Samples, c.Sizes), c.Probes, hs.ReferenceNS, hs.Slope.Applied)
	}
	fa, okA := adj(base)
	fb, okB := adj(cur)
	return fa, fb, bw, okA && okB
}

// learned is the between-sitting spread a change between two figures is
// tested against: the prior one (learned before its own sitting, so the
// newer file's change never inflates the spread it is judged by) with the
// more degrees of freedom.
func learned(ra, rb *result.Reproducibility) (stats.Between, bool) {
	best := stats.Between{}
	for _, r := range []*result.Reproducibility{ra, rb} {
		if p := r.PriorBetween(); p.OK && p.DF > best.DF {
			best = p
		}
	}
	return best, best.OK
}

// sameMachine says two documents come from one machine: the machine part
// of their fingerprints is equal (whatever the build under test).
func sameMachine(a, b *result.Document) bool {
	if a == nil || b == nil {
		return false
	}
	return machineKey(a) == machineKey(b)
}

func machineKey(d *result.Document) string {
	f, _, _ := result.FingerprintOf(d)
	_, k := f.Machine()
	return k
}

func fingerprintKey(d *result.Document) string {
	_, k, _ := result.FingerprintOf(d)
	return k
}

func hints(c *Comparison, o Options) []string {
	var h []string
	if len(c.Inputs) > 1 && c.Tests() > 0 {
		repro := 0
		for _, t := range c.Tables {
			repro += t.Reproducible
		}
		adjusted := 0
		for _, t := range c.Tables {
			adjusted += t.HostAdjusted
		}
		switch {
		case repro == 0 && !sameMachines(c.Inputs):
			h = append(h, "the files come from different machines (the machine part of their fingerprints differs: host, CPU, virtualisation or boot settings): each change is tested against the two files' within-sitting precision only, and a row called different may differ by machine as much as by change")
		case repro == 0 && len(c.Synthetic) > 0:
			// dry runs are never recorded: nothing to learn, nothing to say about it
		case repro == 0:
			h = append(h, "only within-sitting precision was available (the machine had not learned how far its sittings move): identical runs can be called different more often than α; `ctxbench aa` on this machine learns the rest, after which compare tests against reproducibility")
		case repro < c.Tests():
			h = append(h, fmt.Sprintf("%d of %d changes were tested against reproducibility (the between-sitting spread learned on this machine); the rest against within-sitting precision only (their cells were not learned: `ctxbench aa NAME...` learns them)", repro, c.Tests()))
		default:
			h = append(h, "every change was tested against reproducibility: the two sittings' precision plus the between-sitting spread this machine has shown")
		}
		if repro > 0 && !sameFingerprint(c.Inputs) && sameMachines(c.Inputs) {
			h = append(h, "one machine, different builds under test ("+strings.Join(buildParts(c.Inputs), ", ")+"): each change is tested against the spread this machine's sittings have shown across its builds")
		}
		if adjusted > 0 {
			h = append(h, fmt.Sprintf("%d of %d changes were tested on host-adjusted figures: every block timed the host probe, and the host's speed (which moves every figure of a sitting together) was taken out before testing; the table shows the measured medians, the change is the adjusted one (docs/methodology.md, \"The host's state\")", adjusted, c.Tests()))
		}
	}
	if r := c.Resolvable(); r > 0 {
		h = append(h, fmt.Sprintf("resolvable: a change of about %s or more is found in 80%% of comparisons like these (the median over the rows); a smaller real change often shows as ≈ (not resolved)", units.Percent(100*r, 1)))
	}
	if n := c.Tests(); n >= 10 {
		h = append(h, fmt.Sprintf("%d tests at α=%s: about %s of them can show as significant by chance alone; do not re-run until a row turns significant", n, units.Digits(c.Alpha, -1), units.Fixed(float64(n)*c.Alpha, 1)))
	}
	if len(c.Inputs) > 1 && c.Tests() == 0 {
		msg := "no benchmark appears in the base and another file, so nothing was compared"
		if !o.IgnorePlacement && sameNames(c) {
			msg += "; the names match but the placements differ: --ignore-placement compares them by name"
		}
		h = append(h, msg)
	}
	return h
}

func sameMachines(in []Input) bool {
	for _, x := range in[1:] {
		if !sameMachine(in[0].Doc, x.Doc) {
			return false
		}
	}
	return true
}

// buildParts names the parts of the build under test that differ between
// the inputs: the kernel, ctxbench's version or build, the mitigations,
// the settings that change a figure (by their fingerprint names).
func buildParts(in []Input) []string {
	var out []string
	fields := make([]map[string]any, len(in))
	for i, x := range in {
		f, _, b := result.FingerprintOf(x.Doc)
		mf, _ := f.Machine()
		mb, _ := json.Marshal(mf)
		var machine map[string]any
		_ = json.Unmarshal(mb, &machine) // a struct of strings and integers
		_ = json.Unmarshal(b, &fields[i])
		for k := range machine {
			delete(fields[i], k)
		}
	}
	var keys []string
	for k := range fields[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, f := range fields[1:] {
			if fmt.Sprint(f[k]) != fmt.Sprint(fields[0][k]) {
				out = append(out, k)
				break
			}
		}
	}
	if len(out) == 0 {
		out = []string{"the machine's boot settings or fields outside the build"}
	}
	return out
}

func sameFingerprint(in []Input) bool {
	for _, x := range in[1:] {
		if fingerprintKey(x.Doc) != fingerprintKey(in[0].Doc) {
			return false
		}
	}
	return true
}

func sameNames(c *Comparison) bool {
	names := make([]map[string]bool, len(c.Inputs))
	for _, t := range c.Tables {
		for _, r := range t.Rows {
			for i, cell := range r.Cells {
				if cell.Present {
					if names[i] == nil {
						names[i] = map[string]bool{}
					}
					names[i][r.Name] = true
				}
			}
		}
	}
	for n := range names[0] {
		for i := 1; i < len(names); i++ {
			if names[i][n] {
				return true
			}
		}
	}
	return false
}

// attr is one environment attribute that changes what a figure means,
// in words. covers names the fields of the history's fingerprint
// (result.FingerprintFields, by JSON key) it speaks for: the fingerprint
// is the one list of what makes two runs unlike, and a field no attr
// covers is still checked, by its own name (envDiff).
type attr struct {
	key    string
	value  func(e *result.Document) string
	shown  bool // printed in the shared header when equal
	covers []string
}

var attrs = []attr{
	{"cpu", func(d *result.Document) string {
		c := d.Environment.CPU
		return fmt.Sprintf("%s (family %d model %d stepping %d), %d CPUs", c.Model, c.Family, c.ModelID, c.Stepping, c.Logical)
	}, true, []string{"cpu", "logical_cpus"}},
	{"kernel", func(d *result.Document) string { return d.Environment.Kernel }, true, []string{"kernel"}},
	{"virtualization", func(d *result.Document) string {
		v := d.Environment.Virtualization
		s := v.Label
		if v.KVM.Backend != "" && v.KVM.Backend != "none" {
			s += ", kvm backend " + v.KVM.Backend
		}
		return s
	}, true, []string{"virtualization", "kvm_backend"}},
	{"mitigations", func(d *result.Document) string { return mitigations(d.Environment.Mitigations) }, false, []string{"mitigations"}},
	{"smt", func(d *result.Document) string {
		return fmt.Sprintf("%d thread(s) per core, active %v", d.Environment.CPU.ThreadsPerCore, d.Environment.CPU.SMTActive)
	}, false, []string{"smt_active"}},
	{"cpufreq governor", func(d *result.Document) string { return orNone(d.Environment.CPU.Governor) }, false, []string{"governor"}},
	{"idle", func(d *result.Document) string {
		i := d.Environment.Idle
		return fmt.Sprintf("driver %s, governor %s", orNone(i.Driver), orNone(i.Governor))
	}, false, []string{"idle_driver", "idle_governor"}},
	{"cgroup", func(d *result.Document) string {
		g := d.Environment.Cgroup
		return fmt.Sprintf("%s, cpu controller %s, depth %d", orNone(g.Version), orNone(g.CPUController), g.Depth)
	}, false, []string{"cgroup_depth"}},
	// The settings that move a wake-up's tail (ctxbench load): the
	// preemption model, the tick, a sched_ext scheduler, isolated and
	// tickless CPUs, and the latency limit that keeps idle CPUs shallow.
	{"preemption model", func(d *result.Document) string { return orNone(d.Environment.Scheduler.Preempt) }, false, []string{"preempt"}},
	{"HZ", func(d *result.Document) string {
		if hz := d.Environment.Scheduler.HZ; hz > 0 {
			return fmt.Sprint(hz)
		}
		return "unknown"
	}, false, []string{"hz"}},
	{"sched_ext", func(d *result.Document) string { return orNone(d.Environment.Scheduler.SchedExt) }, false, []string{"sched_ext"}},
	{"isolated CPUs", func(d *result.Document) string {
		return fmt.Sprintf("isolcpus %s, nohz_full %s", orNone(d.Environment.Scheduler.Isolated), orNone(d.Environment.Scheduler.NoHZFull))
	}, false, []string{"isolated_cpus", "nohz_full"}},
	{"cpu_dma_latency", func(d *result.Document) string {
		if v := d.Environment.Idle.DMALatencyUS; v != nil {
			return fmt.Sprint(*v)
		}
		return "unknown"
	}, false, []string{"cpu_dma_latency_us"}},
	{"clocksource", func(d *result.Document) string { return d.Environment.Clocksource }, false, []string{"clocksource"}},
	{"host", func(d *result.Document) string { return d.Environment.Hostname }, false, []string{"host"}},
	{"ctxbench", func(d *result.Document) string {
		return fmt.Sprintf("%s (%s, cgo %v)", d.Tool.Version, d.Tool.GoVersion, d.Tool.Cgo)
	}, false, []string{"version", "go_version", "cgo"}},
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func mitigations(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v != "Not affected" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + m[k]
	}
	return strings.Join(parts, "; ")
}

// envDiff splits the environment attributes into shared lines and
// differences.
func envDiff(inputs []Input) (shared, diffs []string) {
	for _, a := range attrs {
		vals := make([]string, len(inputs))
		same := true
		for i, in := range inputs {
			vals[i] = a.value(in.Doc)
			if vals[i] != vals[0] {
				same = false
			}
		}
		if same {
			if a.shown && vals[0] != "" {
				shared = append(shared, a.key+": "+vals[0])
			}
			continue
		}
		if a.key == "mitigations" {
			diffs = append(diffs, mitigationDiffs(inputs)...)
			continue
		}
		var parts []string
		for i, in := range inputs {
			parts = append(parts, fmt.Sprintf("%s (%s)", quoteEmpty(vals[i]), in.Label))
		}
		diffs = append(diffs, fmt.Sprintf("%s differs: %s", a.key, strings.Join(parts, " vs ")))
	}
	return shared, append(diffs, fingerprintDiffs(inputs)...)
}

// fingerprintDiffs are the differences in the fingerprint's fields that
// no attr speaks for (microcode, kernel build and boot options, the build
// of ctxbench, the settings that change a figure), each by its own name.
func fingerprintDiffs(inputs []Input) []string {
	covered := map[string]bool{}
	for _, a := range attrs {
		for _, k := range a.covers {
			covered[k] = true
		}
	}
	fields := make([]map[string]any, len(inputs))
	for i, in := range inputs {
		_, _, b := result.FingerprintOf(in.Doc)
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()            // 2000000, not 2e+06
		_ = dec.Decode(&fields[i]) // FingerprintOf's own encoding
	}
	var keys []string
	for k := range fields[0] {
		keys = append(keys, k)
	}
	for _, f := range fields[1:] {
		for k := range f {
			if _, ok := fields[0][k]; !ok {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	var out []string
	for _, k := range keys {
		if covered[k] {
			continue
		}
		vals := make([]string, len(inputs))
		same := true
		for i := range inputs {
			vals[i] = fmt.Sprint(fields[i][k])
			if fields[i][k] == nil {
				vals[i] = ""
			}
			same = same && vals[i] == vals[0]
		}
		if same {
			continue
		}
		var parts []string
		for i, in := range inputs {
			parts = append(parts, fmt.Sprintf("%s (%s)", quoteEmpty(vals[i]), in.Label))
		}
		out = append(out, fmt.Sprintf("%s differs: %s", strings.ReplaceAll(k, "_", " "), strings.Join(parts, " vs ")))
	}
	return out
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func mitigationDiffs(inputs []Input) []string {
	keys := map[string]bool{}
	for _, in := range inputs {
		for k := range in.Doc.Environment.Mitigations {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []string
	for _, k := range sorted {
		base := inputs[0].Doc.Environment.Mitigations[k]
		var parts []string
		differ := false
		for _, in := range inputs {
			v := in.Doc.Environment.Mitigations[k]
			if v != base {
				differ = true
			}
			if v == "" {
				v = "unknown"
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", v, in.Label))
		}
		if differ {
			out = append(out, fmt.Sprintf("mitigation %s differs: %s", k, strings.Join(parts, " vs ")))
		}
	}
	return out
}

// CIPercent is the half-width of a summary's confidence interval relative to
// its median (the larger side), or NaN when there is no interval.
func CIPercent(s stats.Summary) float64 {
	if s.Median <= 0 || s.Confidence == 0 {
		return math.NaN()
	}
	return 100 * math.Max(s.CIHigh-s.Median, s.Median-s.CILow) / s.Median
}

// phaseChanges pairs the explained rows of the base with each other file's.
func phaseChanges(inputs []Input, o Options) []PhaseChange {
	if len(inputs) < 2 {
		return nil
	}
	key := func(r result.Result) string {
		if o.IgnorePlacement {
			return r.Name
		}
		return r.Name + "\x00" + r.Placement
	}
	var out []PhaseChange
	for _, b := range inputs[0].Doc.Results {
		if b.Explain == nil {
			continue
		}
		for _, in := range inputs[1:] {
			for _, r := range in.Doc.Results {
				if r.Explain == nil || key(r) != key(b) {
					continue
				}
				out = append(out, phaseChange(b, r, in.Label))
			}
		}
	}
	return out
}

// phaseChange pairs two explained rows phase by phase: the base's phases
// in time order, then the other's new ones.
func phaseChange(b, r result.Result, label string) PhaseChange {
	pc := PhaseChange{Name: b.Name, Placement: b.Placement, Input: label,
		Untraced: b.Explain.UntracedClosure != nil && r.Explain.UntracedClosure != nil}
	key := func(p result.ExplainPhase) string { return p.CPU + "\x00" + p.Name }
	untraced := func(p result.ExplainPhase) float64 {
		if pc.Untraced && p.UntracedNs != nil {
			return *p.UntracedNs
		}
		return 0
	}
	cur := map[string]*PhaseDelta{}
	for _, p := range r.Explain.Phases {
		d := cur[key(p)]
		if d == nil {
			d = &PhaseDelta{Phase: p.Name, CPU: p.CPU}
			cur[key(p)] = d
		}
		d.CurNS += p.NsPerHop
		d.CurUntracedNS += untraced(p)
	}
	seen := map[string]bool{}
	for _, p := range b.Explain.Phases {
		d := PhaseDelta{Phase: p.Name, CPU: p.CPU, BaseNS: p.NsPerHop, BaseUntracedNS: untraced(p)}
		if c := cur[key(p)]; c != nil && !seen[key(p)] {
			d.CurNS, d.CurUntracedNS = c.CurNS, c.CurUntracedNS
		}
		seen[key(p)] = true
		pc.Phases = append(pc.Phases, d)
	}
	for _, p := range r.Explain.Phases {
		if !seen[key(p)] {
			seen[key(p)] = true
			pc.Phases = append(pc.Phases, *cur[key(p)])
		}
	}
	return pc
}

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
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return nil, fmt.Errorf("alpha must be between 0 and 1, got %v", o.Alpha)
	}
	sides := [][]Input{before, after}
	label := func(set []Input, what string) Input {
		names := make([]string, len(set))
		for i, in := range set {
			names[i] = in.Label
		}
		return Input{Label: fmt.Sprintf("%s (%d)", what, len(set)), Path: strings.Join(names, ","), Doc: set[0].Doc}
	}
	c := &Comparison{Inputs: []Input{label(before, "before"), label(after, "after")}, Alpha: o.Alpha, IgnorePlacement: o.IgnorePlacement, Sets: [][]Input{before, after}}
	all := append(append([]Input{}, before...), after...)
	machine := sameMachines(all)
	for _, src := range sources {
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
			continue
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
			}
			ch := stats.SetChange(figs[0], figs[1], bw, o.Alpha)
			d := Delta{Present: true, Tested: ch.OK, P: ch.P, N1: ch.N1, N2: ch.N2, Unit: ch.Method,
				Significant: ch.Resolved, Change: ch.Ratio - 1, Lo: ch.Lo - 1, Hi: ch.Hi - 1,
				Confidence: ch.Confidence, Resolvable: ch.Resolvable, HostAdjusted: adjusted}
			if adjusted {
				t.HostAdjusted++
				d.MeasuredChange = row.Cells[1].Summary.Median/row.Cells[0].Summary.Median - 1
			}
			if bw.OK {
				t.Reproducible++
			}
			row.Deltas[1] = d
		}
		if len(t.Rows) >= 2 {
			t.Geomean = geomean(t, 2, func(string) int { return 0 })
		}
		c.Tables = append(c.Tables, t)
	}
	c.Shared, c.EnvDiffs = envDiff(c.Inputs)
	for side, set := range sides {
		if !sameFingerprint(set) {
			c.Hints = append(c.Hints, fmt.Sprintf("the %s set's files do not share one fingerprint (%s): its sittings are not repetitions of one set-up", []string{"before", "after"}[side], strings.Join(buildParts(set), ", ")))
		}
		for _, in := range set {
			if in.Doc.Settings.DryRun {
				c.Synthetic = append(c.Synthetic, in.Label)
			}
		}
	}
	c.Hints = append(c.Hints, setHints(c, machine)...)
	return c, nil
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
