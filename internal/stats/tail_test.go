package stats

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

// tailModel draws one value of a two-level process: a block effect
// (multiplicative, exp(a) with a ~ N(0, tau²)) times a within-block value.
type tailModel struct {
	name   string
	tau    float64
	within func(r *rand.Rand) float64
	// cdf is the within-block distribution's CDF, for the true percentile
	// of the whole process (block effects integrated out).
	cdf func(x float64) float64
}

// truth solves P(exp(a)·W ≤ x) = q for x, integrating over a ~ N(0, tau²)
// on a fine grid.
func (m tailModel) truth(q float64) float64 {
	p := func(x float64) float64 {
		if m.tau == 0 {
			return m.cdf(x)
		}
		var s, w float64
		for z := -6.0; z <= 6; z += 0.01 {
			d := math.Exp(-z * z / 2)
			s += d * m.cdf(x/math.Exp(m.tau*z))
			w += d
		}
		return s / w
	}
	lo, hi := 1e-3, 1e12
	for range 200 {
		mid := math.Sqrt(lo * hi)
		if p(mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return math.Sqrt(lo * hi)
}

func sampleQuantile(sorted []float64, q float64) float64 {
	k := int(math.Ceil(q*float64(len(sorted)))) - 1
	return sorted[max(0, min(k, len(sorted)-1))]
}

// The interval of a percentile holds the process's true percentile about
// as often as it says (95%), on simulated latencies with a known
// distribution: a log-normal, and a bimodal one with a heavy tail (2% of
// requests 20 times slower), each with and without block effects, for
// p50, p90, p99 and p99.9, with 10 and 6 blocks. The bounds are wide for
// 200 trials (binomial SE 1.5 points) and for an interval that is a t
// interval, not exact: 88% to 99.5%.
func TestTailIntervalCoverage(t *testing.T) {
	logn := func(sigma float64) tailModel {
		return tailModel{within: func(r *rand.Rand) float64 { return 5000 * math.Exp(sigma*r.NormFloat64()) },
			cdf: func(x float64) float64 { return 0.5 * math.Erfc(-math.Log(x/5000)/sigma/math.Sqrt2) }}
	}
	bimodal := tailModel{
		within: func(r *rand.Rand) float64 {
			if r.Float64() < 0.02 {
				return 2000 + 20*1000*r.ExpFloat64()
			}
			return 2000 + 1000*r.ExpFloat64()
		},
		cdf: func(x float64) float64 {
			if x <= 2000 {
				return 0
			}
			return 0.98*(1-math.Exp(-(x-2000)/1000)) + 0.02*(1-math.Exp(-(x-2000)/20000))
		},
	}
	var models []tailModel
	for _, tau := range []float64{0, 0.05} {
		m := logn(0.4)
		m.name, m.tau = "lognormal", tau
		models = append(models, m)
		b := bimodal
		b.name, b.tau = "bimodal", tau
		models = append(models, b)
	}
	const trials = 200
	for _, m := range models {
		for _, blocks := range []int{10, 6} {
			const n = 5000
			rng := rand.New(rand.NewSource(int64(blocks)*7919 + int64(100*m.tau)))
			qs := []float64{0.5, 0.9, 0.99, 0.999}
			covered := make([]int, len(qs))
			withInterval := make([]int, len(qs))
			truths := make([]float64, len(qs))
			for i, q := range qs {
				truths[i] = m.truth(q)
			}
			for range trials {
				all := make([]float64, 0, blocks*n)
				per := make([][]float64, len(qs))
				sizes := make([]uint64, blocks)
				for b := range blocks {
					eff := math.Exp(m.tau * rng.NormFloat64())
					vals := make([]float64, n)
					for j := range vals {
						vals[j] = eff * m.within(rng)
					}
					slices.Sort(vals)
					for i, q := range qs {
						per[i] = append(per[i], sampleQuantile(vals, q))
					}
					sizes[b] = n
					all = append(all, vals...)
				}
				slices.Sort(all)
				for i, q := range qs {
					e := TailInterval(q, sampleQuantile(all, q), per[i], sizes)
					if !e.OK {
						t.Fatalf("%s p%g: not reported: %s", m.name, 100*q, e.Why)
					}
					if !e.HasInterval {
						continue
					}
					withInterval[i]++
					if e.Lo <= truths[i] && truths[i] <= e.Hi {
						covered[i]++
					}
				}
			}
			for i, q := range qs {
				if withInterval[i] == 0 {
					if float64(n)*(1-q) >= MinBeyondBlock {
						t.Errorf("%s tau=%g %d blocks p%g: no interval with %d values per block", m.name, m.tau, blocks, 100*q, n)
					}
					continue
				}
				c := float64(covered[i]) / float64(withInterval[i])
				t.Logf("%s tau=%g %d blocks p%g: covered %.1f%% of %d", m.name, m.tau, blocks, 100*q, 100*c, withInterval[i])
				if c < 0.88 || c > 0.995 {
					t.Errorf("%s tau=%g %d blocks p%g: the 95%% interval held the true value in %.1f%% of %d trials", m.name, m.tau, blocks, 100*q, 100*c, withInterval[i])
				}
			}
		}
	}
}

// Too few values beyond a percentile: not reported, or reported without an
// interval, each saying why.
func TestTailIntervalRefusesUnmeasurableTails(t *testing.T) {
	e := TailInterval(0.999, 100, []float64{90, 110}, []uint64{4000, 4000})
	if e.OK {
		t.Errorf("p99.9 of 8,000 values (8 beyond it) reported: %+v", e)
	}
	e = TailInterval(0.999, 100, []float64{90, 110, 100}, []uint64{4000, 4000, 4000})
	if !e.OK || e.HasInterval || e.Why == "" {
		t.Errorf("p99.9 of 3 blocks of 4,000: want a value without an interval, and why: %+v", e)
	}
	e = TailInterval(0.99, 100, []float64{90, 110, 100}, []uint64{4000, 4000, 4000})
	if !e.OK || !e.HasInterval || !(e.Lo < 100 && 100 < e.Hi) || e.Confidence != Confidence {
		t.Errorf("p99 of 3 blocks of 4,000: %+v", e)
	}
	if e := TailInterval(0.5, 100, []float64{100}, []uint64{1000}); !e.OK || e.HasInterval {
		t.Errorf("one block: a value, no interval: %+v", e)
	}
}
