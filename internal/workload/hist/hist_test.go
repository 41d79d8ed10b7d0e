package hist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestQuantilesWithinBucketResolution(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var h H
	vals := make([]int64, 200000)
	for i := range vals {
		vals[i] = int64(math.Exp(rng.Float64()*20)) + rng.Int64N(50) // 0 .. ~5e8 ns, log-spread
		h.Record(vals[i])
	}
	slices.Sort(vals)
	for _, q := range []float64{0.01, 0.5, 0.9, 0.99, 0.999} {
		exact := float64(vals[int(math.Ceil(q*float64(len(vals))))-1])
		got := h.Quantile(q)
		if math.Abs(got-exact) > exact/32+1 {
			t.Errorf("q%.3f = %.0f, exact %.0f: off by more than 1/32", q, got, exact)
		}
	}
	if h.Max() != float64(vals[len(vals)-1]) || h.Quantile(1) != h.Max() {
		t.Errorf("max %v, want exact %d", h.Max(), vals[len(vals)-1])
	}
	if h.Count() != uint64(len(vals)) {
		t.Errorf("count %d", h.Count())
	}
	var sum float64
	for _, v := range vals {
		sum += float64(v)
	}
	if math.Abs(h.Mean()-sum/float64(len(vals))) > 1e-6*h.Mean() {
		t.Errorf("mean %v, want %v", h.Mean(), sum/float64(len(vals)))
	}
}

func TestSmallValuesExactAndMerge(t *testing.T) {
	var a, b H
	for v := int64(0); v < 64; v++ {
		a.Record(v)
	}
	b.Record(-5) // counts as 0
	b.Record(1 << 50)
	a.Merge(&b)
	if a.Count() != 66 || a.Quantile(0.5) != 31 || a.Max() != float64(int64(1)<<50) {
		t.Errorf("count %d median %v max %v", a.Count(), a.Quantile(0.5), a.Max())
	}
	a.Reset()
	if a.Count() != 0 || !math.IsNaN(a.Quantile(0.5)) || !math.IsNaN(a.Mean()) {
		t.Error("reset histogram not empty")
	}
}

func TestBucketIndexMonotonic(t *testing.T) {
	prev := -1
	for v := uint64(0); v < 1<<20; v += 7 {
		i := index(v)
		if i < prev {
			t.Fatalf("index(%d) = %d < %d", v, i, prev)
		}
		if mid := value(i); math.Abs(mid-float64(v)) > float64(v)/32+1 {
			t.Fatalf("value(index(%d)) = %v", v, mid)
		}
		prev = i
	}
}
