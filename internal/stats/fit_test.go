package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

var sweep = []float64{1, 2, 4, 8, 10, 16, 32, 64, 90, 128, 256}

func synth(l, a, b float64) []float64 {
	x := make([]float64, len(sweep))
	for i, n := range sweep {
		x[i] = USL(l, a, b, n)
	}
	return x
}

func near(t *testing.T, what string, got, want, rel float64) {
	t.Helper()
	if want == 0 {
		if math.Abs(got) > rel {
			t.Errorf("%s = %g, want 0 (±%g)", what, got, rel)
		}
		return
	}
	if math.Abs(got-want) > rel*math.Abs(want) {
		t.Errorf("%s = %g, want %g (±%g%%)", what, got, want, rel*100)
	}
}

func TestFitUSLRecoversExactParameters(t *testing.T) {
	cases := []struct{ l, a, b float64 }{
		{12000, 0.05, 0.0002},  // retrograde, PostgreSQL-like
		{30000, 0.3, 0},        // plateau, Redis-like
		{5000, 0.001, 0.01},    // early peak
		{800, 0, 0.00001},      // pure coherency
		{25000, 0.9, 0.000001}, // saturates at once
	}
	for _, c := range cases {
		f, err := FitUSL(sweep, synth(c.l, c.a, c.b))
		if err != nil {
			t.Fatal(err)
		}
		near(t, "lambda", f.Lambda, c.l, 1e-4)
		near(t, "alpha", f.Alpha, c.a, 1e-3)
		if c.b == 0 {
			near(t, "beta", f.Beta, 0, 1e-9)
			if f.NStar != nil {
				t.Errorf("beta=0 gave N* = %v, want none", *f.NStar)
			}
		} else {
			near(t, "beta", f.Beta, c.b, 1e-3)
			if f.NStar == nil {
				t.Fatalf("no N* for beta=%g", c.b)
			}
			near(t, "N*", *f.NStar, math.Sqrt((1-c.a)/c.b), 1e-3)
		}
		if f.R2 < 0.999999 {
			t.Errorf("R² = %v on exact data", f.R2)
		}
		if f.Points != len(sweep) {
			t.Errorf("points = %d", f.Points)
		}
	}
}

func TestFitUSLNoisy(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var n, x []float64
	for rep := 0; rep < 5; rep++ {
		for _, v := range sweep {
			n = append(n, v)
			x = append(x, USL(12000, 0.05, 0.0002, v)*(1+0.03*rng.NormFloat64()))
		}
	}
	f, err := FitUSL(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if f.Beta <= 0 || f.NStar == nil || *f.NStar < 40 || *f.NStar > 100 {
		t.Errorf("noisy retrograde fit: beta=%g N*=%v, want beta>0 and N* near 69", f.Beta, f.NStar)
	}
	if f.R2 < 0.8 || f.R2 > 1 {
		t.Errorf("R² = %v", f.R2)
	}
}

func TestFitUSLErrors(t *testing.T) {
	if _, err := FitUSL([]float64{1, 2, 4}, []float64{1, 2, 3}); err != ErrTooFew {
		t.Errorf("3 levels: err = %v, want ErrTooFew", err)
	}
	if _, err := FitUSL([]float64{1, 2}, []float64{1}); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, err := FitUSL([]float64{0, 1, 2, 4}, []float64{1, 1, 2, 3}); err == nil {
		t.Error("n = 0 accepted")
	}
	if _, err := FitUSL([]float64{1, 2, 4, 8}, []float64{1, math.NaN(), 2, 3}); err == nil {
		t.Error("NaN accepted")
	}
}

func TestFindKnee(t *testing.T) {
	n := []int{1, 2, 4, 8, 10, 16, 32, 64, 90, 128, 256}
	// Throughput rising to a plateau at 8; 95% of the peak (100) is first reached at 8.
	x := []float64{20, 60, 90, 96, 99, 100, 99, 98, 97, 96, 95}
	k, err := FindKnee(n, x)
	if err != nil {
		t.Fatal(err)
	}
	if k.N95 != 8 || k.PeakN != 16 || k.PeakX != 100 {
		t.Errorf("knee = %+v, want N95 8, peak 100 at 16", k)
	}
	if k.Kneedle == nil || *k.Kneedle != 4 {
		t.Errorf("kneedle = %v, want 4", k.Kneedle)
	}
	// Order of input does not matter.
	rn := []int{256, 1, 8, 4, 2, 16, 10, 32, 64, 90, 128}
	rx := []float64{95, 20, 96, 90, 60, 100, 99, 99, 98, 97, 96}
	k2, err := FindKnee(rn, rx)
	if err != nil || k2.N95 != k.N95 || k2.PeakN != k.PeakN {
		t.Errorf("shuffled input: %+v %v", k2, err)
	}
	// A straight line on the log axis has no Kneedle knee.
	k3, _ := FindKnee([]int{1, 2, 4, 8}, []float64{1, 2, 3, 4})
	if k3.Kneedle != nil {
		t.Errorf("straight line gave kneedle %d", *k3.Kneedle)
	}
	if _, err := FindKnee([]int{1, 1}, []float64{1, 2}); err == nil {
		t.Error("duplicate n accepted")
	}
	if _, err := FindKnee(nil, nil); err == nil {
		t.Error("empty input accepted")
	}
}
