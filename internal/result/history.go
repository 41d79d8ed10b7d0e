package result

// history.go: the two intervals of a figure, the host's state, and what
// the machine's history knew of a run (the fingerprint that says which
// sittings are of one machine is fingerprint.go's).
//
// A figure's precision interval (ci_low, ci_high) says where this sitting's
// median lies; it comes from the sitting's own blocks. Its reproducibility
// interval says where another sitting's median on this machine will lie: the
// precision plus the between-sitting component, which
// only repeated sittings with one fingerprint can measure (the history,
// internal/store). A figure whose machine has not learned it carries null.

import (
	"strconv"

	"github.com/ctxbench/ctxbench/internal/stats"
)

// Figure is a switch row's headline figure: the summary of its samples
// with the precision interval, and the reproducibility interval where the
// machine has learned how far its sittings move.
type Figure struct {
	stats.Summary
	// Reproducibility is null where the machine has not learned it (a
	// first sitting, history off, a dry run).
	Reproducibility *Reproducibility `json:"reproducibility"`
}

// Reproducibility is a figure's interval across sittings: at Confidence,
// where another sitting's median of the cell will lie, from this sitting's
// precision and the between-sitting component estimated from Sittings
// sittings with the same fingerprint (internal/stats.Reproducibility).
type Reproducibility struct {
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	// Sittings is how many sittings the between-sitting component was
	// estimated from (this one included).
	Sittings int `json:"sittings"`
	// BetweenCV is the between-sitting standard deviation, relative to the
	// figure.
	BetweenCV float64 `json:"between_cv"`
	// PooledFrom names the cells (name placement) whose sittings gave the
	// between-sitting component, when this cell had too few of its own.
	PooledFrom []string `json:"pooled_from,omitempty"`
	// Component is the between-sitting estimate the interval was built
	// from (log scale), this sitting included.
	Component stats.Between `json:"component"`
	// Prior is the same estimate from the sittings before this one alone
	// (null: none); compare tests a change against it, so that the change
	// is never judged by a spread its own sitting inflated, and needs no
	// history to do so.
	Prior *stats.Between `json:"prior_component"`
}

// PriorBetween is the prior component as stats uses it (its OK is not in
// the file: it holds when the estimate had its sittings); not OK without
// one.
func (r *Reproducibility) PriorBetween() stats.Between {
	if r == nil || r.Prior == nil {
		return stats.Between{}
	}
	b := *r.Prior
	b.OK = b.Sittings >= 2 && b.DF >= 1 && b.Method == stats.MethodFigures
	return b
}

// Half is the interval's half-width relative to median (the larger side).
func (r *Reproducibility) Half(median float64) float64 {
	if r == nil || median <= 0 {
		return 0
	}
	return max(r.High-median, median-r.Low) / median
}

// HostState is what the host probe says of a run (docs/methodology.md,
// "The host's state"): every block times a fixed pointer chase on its CPUs
// before and after its samples; ReferenceNS is the reading the adjusted
// figures are moved to (the lower quartile of the readings of this
// machine's recorded blocks and this run's: the host's usual, unslowed
// speed; compare moves the figures of two files to one reference), Slope how the blocks' log
// medians move with their log readings (estimated within each cell of each
// build over Sittings sittings of this machine, this one included; applied
// only where its 95% interval excludes zero). Note says why nothing was
// adjusted, when nothing was.
type HostState struct {
	ReferenceNS float64     `json:"reference_ns"`
	Slope       stats.Slope `json:"slope"`
	Sittings    int         `json:"sittings"`
	Note        string      `json:"note,omitempty"`
}

// SlowThreshold is the probe reading above the reference, relative, from
// which a block counts as run in a slow host state (the host probe's own
// scatter on a quiet host is about 1%).
const SlowThreshold = 0.05

// HostAdjusted is a row's figure with the host's state taken out: what the
// figure would have been with every block at the reference reading
// (stats.Adjusted). The row's figure stays the measured one; comparisons
// between sittings use this one where both sides have it. Slow is how much
// slower than usual the host ran the row's blocks (the median reading over
// the reference, −1), SlowBlocks how many read SlowThreshold or more above
// it; Reproducibility is the adjusted figure's, from the same machine's
// adjusted sittings.
type HostAdjusted struct {
	ProbeNS         float64          `json:"probe_ns"`
	Slow            float64          `json:"slow"`
	SlowBlocks      int              `json:"slow_blocks"`
	Median          float64          `json:"median"`
	CILow           float64          `json:"ci_low"`
	CIHigh          float64          `json:"ci_high"`
	Confidence      float64          `json:"confidence"`
	Reproducibility *Reproducibility `json:"reproducibility"`
}

// Figure is the adjusted figure as stats compares sittings.
func (h *HostAdjusted) Figure(blocks int) stats.SittingFigure {
	return stats.SittingFigure{Median: h.Median, CILow: h.CILow, CIHigh: h.CIHigh, Confidence: h.Confidence, Blocks: blocks}
}

// History says what the machine's history knew of this run and whether the
// run was recorded in it.
type History struct {
	// Fingerprint is the key of the environment this run's figures belong
	// with (FingerprintOf); runs of one fingerprint form one history.
	Fingerprint string `json:"fingerprint"`
	// Before is how many sittings of this fingerprint were recorded before
	// this one.
	Before int `json:"sittings_before"`
	// Machine is the key of the fingerprint's machine part
	// (FingerprintFields.MachineKey): the noise is learned from every
	// sitting of the machine, MachineBefore of them in Builds builds
	// (kernels, ctxbench builds, figure-changing settings; this run's
	// included).
	Machine       string `json:"machine,omitempty"`
	MachineBefore int    `json:"machine_sittings_before,omitempty"`
	Builds        int    `json:"builds,omitempty"`
	// Resolvable is what the history promised before the run measured:
	// the smallest change between this run and another sitting that
	// compare would resolve (median over the planned cells; 0: nothing
	// learned).
	Resolvable float64 `json:"resolvable_change,omitempty"`
	Recorded   bool    `json:"recorded"`
	// Note says why the run was not recorded or not read, in one line.
	Note string `json:"note,omitempty"`
}

// CellCPUs names the CPUs a row's sides were allowed, as the history keys
// a cell by them ("1", "0+1"; "any" when unpinned).
func CellCPUs(r *Result) string {
	cpus := append(append([]int{}, r.Placed.CPUA...), r.Placed.CPUB...)
	if len(cpus) == 0 {
		return "any"
	}
	seen := map[int]bool{}
	out := ""
	for _, c := range cpus {
		if seen[c] {
			continue
		}
		seen[c] = true
		if out != "" {
			out += "+"
		}
		out += strconv.Itoa(c)
	}
	return out
}
