// Package stats holds the pure functions ctxbench uses to turn samples into
// figures: the median with its interval, percentiles, the block-level
// interval and comparisons (blocks.go: blocks, not samples, are the unit of
// replication), ratios with distribution-free intervals (pairwise.go), and
// the fits of the connection-pool curves (usl.go, knee.go).
//
// The order-statistic intervals and the Mann-Whitney p-values come from
// golang.org/x/perf/benchmath (the library behind benchstat), under its
// "assume nothing" model: context-switch samples on a shared virtual machine
// are skewed and often bimodal, so no normality is assumed. This package
// wraps it so the rest of ctxbench never depends on its API directly.
package stats

import (
	"math"
	"slices"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchmath"
)

// Confidence is the level of every confidence interval ctxbench reports.
const Confidence = 0.95

// Summary describes one set of samples.
type Summary struct {
	N          int     `json:"n"`
	Median     float64 `json:"median"`
	P10        float64 `json:"p10"`
	P90        float64 `json:"p90"`
	CILow      float64 `json:"ci_low"`  // confidence interval of the median
	CIHigh     float64 `json:"ci_high"` //
	Confidence float64 `json:"confidence"`
	// Interval says what the interval was computed from: IntervalBlocks
	// (the block medians) or IntervalSamples; Blocks how many blocks.
	// Empty where the figure was not taken in blocks.
	Interval string   `json:"interval_method,omitempty"`
	Blocks   int      `json:"blocks,omitempty"`
	Mean     float64  `json:"mean"`
	Stddev   float64  `json:"stddev"`
	CV       float64  `json:"cv"` // stddev / mean
	Min      float64  `json:"min"`
	Max      float64  `json:"max"`
	Warnings []string `json:"warnings,omitempty"`
}

// Summarize computes the Summary of values without modifying them. With too
// few samples for a 95% interval (fewer than 6), the interval bounds are the
// sample's extremes and a warning says so; they are never infinite, so the
// result always encodes as JSON.
func Summarize(values []float64) Summary {
	if len(values) == 0 {
		return Summary{Confidence: Confidence, Warnings: []string{"no samples"}}
	}
	sorted := slices.Clone(values)
	s := benchmath.NewSample(sorted, &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, Confidence)
	ms := stats.Sample{Xs: sorted, Sorted: true}
	out := Summary{
		N:          len(sorted),
		Median:     sum.Center,
		P10:        ms.Quantile(0.10),
		P90:        ms.Quantile(0.90),
		CILow:      sum.Lo,
		CIHigh:     sum.Hi,
		Confidence: sum.Confidence,
		Mean:       ms.Mean(),
		Min:        sorted[0],
		Max:        sorted[len(sorted)-1],
	}
	if len(sorted) > 1 {
		out.Stddev = ms.StdDev()
	}
	if out.Mean != 0 {
		out.CV = out.Stddev / out.Mean
	}
	if math.IsInf(out.CILow, 0) || math.IsInf(out.CIHigh, 0) {
		out.CILow, out.CIHigh = out.Min, out.Max
		out.Confidence = 0
	}
	for _, w := range sum.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	return out
}

// Quantile returns the q-quantile (0..1) of values, interpolated (Hyndman and
// Fan's method 8, as go-moremath computes it).
func Quantile(values []float64, q float64) float64 {
	if len(values) == 0 {
		return math.NaN()
	}
	sorted := slices.Clone(values)
	slices.Sort(sorted)
	return stats.Sample{Xs: sorted, Sorted: true}.Quantile(q)
}

// Geomean is the geometric mean of positive values; non-positive values are
// skipped (a ratio of zero would make every geomean zero).
func Geomean(values []float64) float64 {
	var sum float64
	n := 0
	for _, v := range values {
		if v > 0 {
			sum += math.Log(v)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}

// Scale returns values multiplied by f, as a new slice.
func Scale(values []float64, f float64) []float64 {
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = v * f
	}
	return out
}
