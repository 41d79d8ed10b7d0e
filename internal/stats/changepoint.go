package stats

// changepoint.go: the steps in one cell's medians over time (ctxbench
// history).
//
// The method is binary segmentation (Scott and Knott 1974; Vostrikova
// 1981) with a two-sample Student t test at every candidate split, on the
// log of the sittings' medians:
//
//   - Log scale: a step is a relative change (a kernel makes a switch 12%
//     dearer, not 40 ns), and sitting-to-sitting noise is roughly a constant
//     coefficient of variation, so on the log scale it is roughly constant.
//   - The noise is the series' own: the pooled standard deviation of the
//     two segments either side of the split. A sitting's precision interval
//     is not used: it says where that sitting's median lies, and sittings
//     move more than it admits (sittings.go), so a test built on it would
//     call every sitting-to-sitting wobble a step.
//   - The largest |t| over the splits of a segment is tested against the t
//     quantile at Bonferroni's level ChangeAlpha/(splits), so the chance of
//     finding a step in a step-free segment is at most ChangeAlpha
//     (conservative: the splits' statistics are correlated). A segment with
//     a step is split there and each side is searched again.
//   - A segment is at least MinSegment sittings: one odd sitting (a noisy
//     neighbour, a thermal phase) is an outlier, not a step, and a level
//     estimated from fewer points would have no spread of its own.
//
// Why not PELT with a BIC penalty: its penalty assumes the noise variance
// is known, and with a dozen sittings it is not; the t test carries the
// uncertainty of the estimated variance in its degrees of freedom, which is
// what matters with few noisy points. The tested rates are in
// changepoint_test.go and docs/methodology.md ("History").

import (
	"math"
	"sort"
	"time"
)

// ChangeAlpha is the level of each segment's test: a step-free series
// shows a step at most this often. 1% rather than 5% because a found step
// is followed by a test of each side: at 5% a series with one real step
// showed a spurious second one in about 8% of seeds (changepoint_test.go).
const ChangeAlpha = 0.01

// MinSegment is the fewest sittings on each side of a step.
const MinSegment = 3

// Point is one sitting's median of one cell.
type Point struct {
	At     time.Time
	Median float64 // > 0; other points are left out
}

// Step is a change of level found in a series.
type Step struct {
	At    time.Time // the first sitting at the new level
	Index int       // its index in the series (after non-positive points are dropped)
	// Change is the new level relative to the old, minus 1 (+0.12: 12%
	// dearer), with its interval at Confidence (the ratio of the two
	// segments' geometric means; Student t on the log scale).
	Change, Low, High float64
	// Before and After are how many sittings the two levels rest on.
	Before, After int
}

// Steps finds the steps in a series of medians, oldest first (points with
// a median that is not positive and finite are left out; the series is
// sorted by time). A series shorter than 2·MinSegment has no step that can
// be found.
func Steps(points []Point) []Step {
	var ps []Point
	for _, p := range points {
		if p.Median > 0 && !math.IsInf(p.Median, 0) {
			ps = append(ps, p)
		}
	}
	sort.SliceStable(ps, func(i, j int) bool { return ps[i].At.Before(ps[j].At) })
	y := make([]float64, len(ps))
	for i, p := range ps {
		y[i] = math.Log(p.Median)
	}
	cuts := segment(y, 0, len(y), nil)
	sort.Ints(cuts)
	var out []Step
	for k, c := range cuts {
		lo, hi := 0, len(y)
		if k > 0 {
			lo = cuts[k-1]
		}
		if k+1 < len(cuts) {
			hi = cuts[k+1]
		}
		d, se, df := split(y[lo:c], y[c:hi])
		q := tQuantile(df, (1+Confidence)/2)
		out = append(out, Step{At: ps[c].At, Index: c, Change: math.Expm1(d), Low: math.Expm1(d - q*se), High: math.Expm1(d + q*se),
			Before: c - lo, After: hi - c})
	}
	return out
}

// segment adds to cuts the steps found in y[lo:hi], recursively.
func segment(y []float64, lo, hi int, cuts []int) []int {
	n := hi - lo
	if n < 2*MinSegment {
		return cuts
	}
	best, bestT := -1, 0.0
	for c := lo + MinSegment; c <= hi-MinSegment; c++ {
		d, se, _ := split(y[lo:c], y[c:hi])
		if se == 0 {
			if d == 0 {
				continue
			}
			// Two perfectly flat levels that differ: a step no noise explains.
			return segment(y, c, hi, segment(y, lo, c, append(cuts, c)))
		}
		if t := math.Abs(d) / se; t > bestT {
			best, bestT = c, t
		}
	}
	splits := float64(n - 2*MinSegment + 1)
	if best < 0 || bestT <= tQuantile(float64(n-2), 1-ChangeAlpha/2/splits) {
		return cuts
	}
	cuts = append(cuts, best)
	cuts = segment(y, lo, best, cuts)
	return segment(y, best, hi, cuts)
}

// split is the difference of the means of b and a, its standard error from
// the pooled variance, and the degrees of freedom.
func split(a, b []float64) (d, se, df float64) {
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	na, nb := float64(len(a)), float64(len(b))
	df = na + nb - 2
	pooled := ((na-1)*va + (nb-1)*vb) / df
	return mb - ma, math.Sqrt(pooled * (1/na + 1/nb)), df
}

// meanVar is the mean and the unbiased variance (sum of squares over n-1).
func meanVar(xs []float64) (m, v float64) {
	for _, x := range xs {
		m += x
	}
	m /= float64(len(xs))
	for _, x := range xs {
		v += sq(x - m)
	}
	if len(xs) > 1 {
		v /= float64(len(xs) - 1)
	}
	return m, v
}
