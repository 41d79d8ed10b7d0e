package stats

import (
	"errors"
	"math"
	"sort"
)

// Knee marks where a throughput curve stops paying for more concurrency.
type Knee struct {
	// N95 is the smallest concurrency whose throughput reaches 95% of the observed peak.
	N95 int `json:"n95"`
	// PeakN and PeakX are the observed peak.
	PeakN int     `json:"peak_n"`
	PeakX float64 `json:"peak_x"`
	// Kneedle is the knee by Satopää et al. (2011) on a log2 concurrency axis over the
	// rising part of the curve; nil when the rising part has no knee (a straight line,
	// or fewer than 3 points).
	Kneedle *int `json:"kneedle"`
}

// FindKnee computes the knee of (n[i], x[i]); n need not be sorted. Each n must appear once.
func FindKnee(n []int, x []float64) (Knee, error) {
	if len(n) != len(x) || len(n) == 0 {
		return Knee{}, errors.New("knee: need equal, non-empty n and x")
	}
	idx := make([]int, len(n))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return n[idx[a]] < n[idx[b]] })
	ns := make([]int, len(n))
	xs := make([]float64, len(n))
	for i, j := range idx {
		ns[i], xs[i] = n[j], x[j]
		if i > 0 && ns[i] == ns[i-1] {
			return Knee{}, errors.New("knee: duplicate concurrency level")
		}
	}
	peak := 0
	for i := range xs {
		if xs[i] > xs[peak] {
			peak = i
		}
	}
	k := Knee{PeakN: ns[peak], PeakX: xs[peak]}
	for i := range xs {
		if xs[i] >= 0.95*xs[peak] {
			k.N95 = ns[i]
			break
		}
	}
	k.Kneedle = kneedle(ns[:peak+1], xs[:peak+1])
	return k, nil
}

// kneedle finds the knee of a concave increasing curve (Satopää et al. 2011): normalise
// log2(n) and x to [0,1] and take the difference curve d = x' − n'. Each local maximum
// of d sets a threshold T = d_max − S·(mean step of n'), S = 1; the maximum is the knee
// when d falls below T before the next local maximum or the end of the curve.
func kneedle(n []int, x []float64) *int {
	if len(n) < 3 {
		return nil
	}
	lx := make([]float64, len(n))
	for i, v := range n {
		lx[i] = math.Log2(float64(v))
	}
	x0, x1 := lx[0], lx[len(lx)-1]
	y0, y1 := x[0], x[0]
	for _, v := range x {
		y0 = math.Min(y0, v)
		y1 = math.Max(y1, v)
	}
	if x1 == x0 || y1 == y0 {
		return nil
	}
	d := make([]float64, len(n))
	for i := range n {
		d[i] = (x[i]-y0)/(y1-y0) - (lx[i]-x0)/(x1-x0)
	}
	const eps = 1e-12
	gap := 1.0 / float64(len(n)-1)
	for i := 1; i < len(d)-1; i++ {
		if !(d[i] > d[i-1]+eps && d[i] >= d[i+1]-eps) {
			continue
		}
		t := d[i] - gap
		for j := i + 1; j < len(d); j++ {
			if j < len(d)-1 && d[j] > d[j-1]+eps && d[j] >= d[j+1]-eps {
				break // the next local maximum comes first
			}
			if d[j] < t-eps {
				v := n[i]
				return &v
			}
		}
	}
	return nil
}
