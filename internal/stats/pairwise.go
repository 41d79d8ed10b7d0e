package stats

// pairwise.go: the median of a few repeated windows with its
// distribution-free interval, and the ratio of two sets of windows with the
// interval that inverts the Mann–Whitney test — for figures measured in a
// handful of repetitions (connection-pool windows, one-shot runs).

import (
	"math"
	"slices"

	"golang.org/x/perf/benchmath"
)

// WindowSummary is the median of repeated measurements with its interval;
// OK is false when there are too few for any interval.
type WindowSummary struct {
	Median, Lo, Hi float64
	Confidence     float64
	N              int
	OK             bool
}

// SummarizeWindows is the median with benchmath's distribution-free 95%
// interval; with too few values for 95%, the widest order-statistic
// interval, [min, max], which covers the median with probability
// 1 − 2·(1/2)^n (93.75% for 5 values), at that confidence.
func SummarizeWindows(vals []float64) WindowSummary {
	if len(vals) == 0 {
		return WindowSummary{Median: math.NaN()}
	}
	s := benchmath.NewSample(slices.Clone(vals), &benchmath.DefaultThresholds)
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	w := WindowSummary{Median: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Confidence: sum.Confidence, N: len(vals), OK: true}
	if math.IsInf(w.Lo, 0) || math.IsInf(w.Hi, 0) || math.IsNaN(w.Lo) || math.IsNaN(w.Hi) {
		if len(vals) < 2 {
			return WindowSummary{Median: sum.Center, N: len(vals)}
		}
		w.Lo, w.Hi = slices.Min(vals), slices.Max(vals)
		w.Confidence = 1 - 2*math.Pow(0.5, float64(len(vals)))
	}
	return w
}

// RatioEstimate is b/a with its interval; OK is false without one.
type RatioEstimate struct {
	Estimate, Lo, Hi float64
	Confidence       float64
	OK               bool
	P                float64 // two-sided Mann–Whitney p-value
}

// HLRatio estimates b/a from two samples of positive values: the
// Hodges–Lehmann estimate (median of all pairwise log-ratios,
// exponentiated) with the distribution-free interval that inverts the
// Mann–Whitney test (Bauer 1972). Hand-written because benchmath gives the
// test's p-value but no interval for a shift. The interval's confidence is
// the largest attainable one not above want; with 3 values a side that is
// 90%, with 5 it is 95%. P is benchmath's two-sided Mann–Whitney p-value.
func HLRatio(a, b []float64, want float64) RatioEstimate {
	n, m := len(a), len(b)
	if n == 0 || m == 0 {
		return RatioEstimate{Estimate: math.NaN(), P: math.NaN()}
	}
	d := make([]float64, 0, n*m)
	for _, x := range b {
		for _, y := range a {
			d = append(d, math.Log(x)-math.Log(y))
		}
	}
	slices.Sort(d)
	r := RatioEstimate{Estimate: math.Exp(sortedMedian(d))}
	// k is the largest count with P(U <= k-1) <= (1-level)/2; the interval is
	// [d(k), d(nm+1-k)] (1-based). Walk the exact null distribution of U.
	if cdf := uCDF(n, m); cdf != nil {
		k := 0
		for u := 0; u < len(cdf); u++ {
			if cdf[u] <= (1-want)/2+1e-12 {
				k = u + 1
			} else {
				break
			}
		}
		if k == 0 {
			// Even the widest interval [min, max] falls short of want; report it with
			// its own confidence.
			k = 1
		}
		if k <= len(d)/2 {
			r.Lo, r.Hi, r.Confidence, r.OK = math.Exp(d[k-1]), math.Exp(d[len(d)-k]), 1-2*cdfAt(cdf, k-1), true
		}
	}
	sa := benchmath.NewSample(slices.Clone(a), &benchmath.DefaultThresholds)
	sb := benchmath.NewSample(slices.Clone(b), &benchmath.DefaultThresholds)
	r.P = benchmath.AssumeNothing.Compare(sa, sb).P
	return r
}

func cdfAt(cdf []float64, u int) float64 {
	if u < 0 {
		return 0
	}
	if u >= len(cdf) {
		return 1
	}
	return cdf[u]
}

// uCDF is the exact null CDF of the Mann–Whitney U statistic for sizes n and m
// (counting arrangements, c(n,m,u) = c(n-1,m,u-m) + c(n,m-1,u)); nil when the sizes
// are too large for the table, where callers have no interval.
func uCDF(n, m int) []float64 {
	if n*m > 2500 {
		return nil
	}
	// f[i][j] is the distribution (counts by u) for sizes i, j.
	f := make([][][]float64, n+1)
	for i := range f {
		f[i] = make([][]float64, m+1)
	}
	for i := 0; i <= n; i++ {
		for j := 0; j <= m; j++ {
			c := make([]float64, i*j+1)
			switch {
			case i == 0 || j == 0:
				c[0] = 1
			default:
				for u := range c {
					if u-j >= 0 && u-j < len(f[i-1][j]) {
						c[u] += f[i-1][j][u-j]
					}
					if u < len(f[i][j-1]) {
						c[u] += f[i][j-1][u]
					}
				}
			}
			f[i][j] = c
		}
	}
	counts := f[n][m]
	var total float64
	for _, c := range counts {
		total += c
	}
	cdf := make([]float64, len(counts))
	var cum float64
	for u, c := range counts {
		cum += c
		cdf[u] = cum / total
	}
	return cdf
}

func sortedMedian(sorted []float64) float64 {
	k := len(sorted)
	if k == 0 {
		return math.NaN()
	}
	if k%2 == 1 {
		return sorted[k/2]
	}
	return (sorted[k/2-1] + sorted[k/2]) / 2
}

// Median is the median of v (NaN when empty), without modifying v.
func Median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return sortedMedian(s)
}
