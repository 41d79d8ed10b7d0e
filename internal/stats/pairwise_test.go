package stats

import (
	"math"
	"testing"
)

func TestHLRatioAndWindows(t *testing.T) {
	a := []float64{1000, 1010, 990, 1005, 995}
	b := []float64{800, 812, 790, 805, 798}
	h := HLRatio(a, b, 0.95)
	r, p := h, h.P
	if math.Abs(r.Estimate-0.8) > 0.01 || !r.OK || r.Lo > 0.8 || r.Hi < 0.8 || r.Hi >= 1 {
		t.Errorf("ratio %+v, want ≈0.8 inside the interval, below 1", r)
	}
	if math.Abs(r.Confidence-(1-2*4.0/252)) > 1e-9 {
		t.Errorf("confidence %v, want 1-2·P(U<=2) = %v for 5+5", r.Confidence, 1-2*4.0/252)
	}
	if p > 0.01 {
		t.Errorf("p = %v for fully separated samples of 5", p)
	}
	r3 := HLRatio(a[:3], b[:3], 0.95)
	if math.Abs(r3.Confidence-0.9) > 1e-9 || !r3.OK {
		t.Errorf("3+3 windows: %+v, want the widest interval at 90%%", r3)
	}
	same := HLRatio(a, a, 0.95)
	p = same.P
	if same.Estimate != 1 || p < 0.5 {
		t.Errorf("identical samples: %+v p=%v", same, p)
	}
	for _, nm := range [][2]int{{1, 1}, {3, 4}, {5, 5}, {7, 2}} {
		cdf := uCDF(nm[0], nm[1])
		if math.Abs(cdf[len(cdf)-1]-1) > 1e-12 {
			t.Errorf("U cdf for %v does not reach 1", nm)
		}
		for u := range cdf { // symmetric: P(U <= u) = P(U >= nm - u)
			if v := 1 - cdfAt(cdf, len(cdf)-2-u); math.Abs(cdf[u]-v) > 1e-12 {
				t.Fatalf("U cdf for %v not symmetric at %d", nm, u)
			}
		}
	}
	e := SummarizeWindows([]float64{3, 1, 2})
	if e.Median != 2 || !e.OK || e.Lo != 1 || e.Hi != 3 || e.Confidence != 0.75 || e.N != 3 {
		t.Errorf("estimate of 3 values: %+v, want [min, max] at 75%% (no 95%% interval exists)", e)
	}
	if e := SummarizeWindows([]float64{7}); e.OK || e.Median != 7 {
		t.Errorf("estimate of one value: %+v", e)
	}
	e = SummarizeWindows([]float64{5, 1, 2, 4, 3, 6, 7, 8})
	if !e.OK || e.Lo > e.Median || e.Hi < e.Median {
		t.Errorf("estimate of 8 values: %+v", e)
	}
}
