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
//
// The package's files hold its jobs apart: entries.go picks each kind of
// figure out of a result file; table.go matches them into rows, tests the
// changes and sums a table up in its geometric mean; decide.go is the
// decision statistics, how one change is tested (on blocks, against the
// machine's learned spread, on host-adjusted figures); environment.go says
// how the files' environments differ; hints.go what a comparison rests on;
// sets.go compares sets of sittings; phases.go explained rows phase by
// phase; selftest.go is the A/A self-test's arithmetic.
package compare

import (
	"errors"
	"fmt"
	"math"

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
	// Attach compares the targets of two attaches (ctxbench attach),
	// figure by figure over their windows.
	Attach []AttachChange
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

// Compare matches the figures of the inputs and tests every change against
// the first input. It fails only on input that cannot be compared (no
// inputs, a bad alpha, two placements of one benchmark in a file with
// IgnorePlacement).
func Compare(inputs []Input, o Options) (*Comparison, error) {
	if len(inputs) == 0 {
		return nil, errors.New("nothing to compare")
	}
	o, err := o.withAlpha()
	if err != nil {
		return nil, err
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
	c.Attach = attachChanges(inputs, o.Alpha)
	c.Shared, c.EnvDiffs = envDiff(inputs)
	c.Synthetic = dryRuns(inputs)
	c.Hints = hints(c, o)
	return c, nil
}

// withAlpha is o with its significance level set (DefaultAlpha for 0);
// an error for a level outside (0, 1).
func (o Options) withAlpha() (Options, error) {
	if o.Alpha == 0 {
		o.Alpha = DefaultAlpha
	}
	if !(o.Alpha > 0 && o.Alpha < 1) {
		return o, fmt.Errorf("alpha must be between 0 and 1, got %v", o.Alpha)
	}
	return o, nil
}

// dryRuns are the labels of the inputs that are dry runs (synthetic
// figures).
func dryRuns(inputs []Input) []string {
	var out []string
	for _, in := range inputs {
		if in.Doc.Settings.DryRun {
			out = append(out, in.Label)
		}
	}
	return out
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

// CIPercent is the half-width of a summary's confidence interval relative to
// its median (the larger side), or NaN when there is no interval.
func CIPercent(s stats.Summary) float64 {
	if s.Median <= 0 || s.Confidence == 0 {
		return math.NaN()
	}
	return 100 * math.Max(s.CIHigh-s.Median, s.Median-s.CILow) / s.Median
}
