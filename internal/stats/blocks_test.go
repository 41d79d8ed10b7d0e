package stats

import (
	"math"
	"math/rand"
	"testing"
)

// twoLevel simulates one run of a cell as the reference machine shows it:
// blocks whose level differs (a multiplicative block effect, lognormal with
// sdBlock), samples inside a block scattered around it (lognormal with
// sdSample), and now and then a sample 1.3–2.5× off (host noise, with
// probability pTail). The true figure is exp(mu): the
// median of the block medians' distribution, and of every sample's.
type twoLevel struct {
	mu, sdBlock, sdSample, pTail float64
	blocks, perBlock             int
}

func (m twoLevel) run(rng *rand.Rand, shift float64) ([]float64, []int) {
	var v []float64
	sizes := make([]int, m.blocks)
	for b := range m.blocks {
		level := m.mu + shift + rng.NormFloat64()*m.sdBlock
		for range m.perBlock {
			x := math.Exp(level + rng.NormFloat64()*m.sdSample)
			if rng.Float64() < m.pTail {
				// A heavy tail, symmetric in log so the truth stays
				// exp(mu): the test checks the interval, not an
				// estimator's bias.
				f := 1.3 + 1.2*rng.Float64()
				if rng.Intn(2) == 0 {
					f = 1 / f
				}
				x *= f
			}
			v = append(v, x)
		}
		sizes[b] = m.perBlock
	}
	return v, sizes
}

// The machine's shape as measured: about 30% of the variance between
// blocks, 10 blocks of 4 samples (the default ladder).
var machineLike = twoLevel{mu: math.Log(2400), sdBlock: 0.05, sdSample: 0.06, pTail: 0.05, blocks: 10, perBlock: 4}

// The block-level interval covers the truth in 90–99% of 2,000 simulated
// runs; the sample-level interval, on the same data, covers it far less
// often — the failure this method exists to fix.
func TestBlockIntervalCoversTheTruth(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	truth := math.Exp(machineLike.mu)
	const sims = 2000
	blockHit, sampleHit := 0, 0
	for range sims {
		v, sizes := machineLike.run(rng, 0)
		s := SummarizeBlocks(v, sizes)
		if s.Interval != IntervalBlocks || s.Blocks != 10 || s.Confidence < 0.95 {
			t.Fatalf("summary %+v: want a 95%%+ interval from 10 blocks", s)
		}
		if s.CILow <= truth && truth <= s.CIHigh {
			blockHit++
		}
		n := Summarize(v)
		if n.CILow <= truth && truth <= n.CIHigh {
			sampleHit++
		}
	}
	cover := float64(blockHit) / sims
	naive := float64(sampleHit) / sims
	t.Logf("coverage of the truth: block medians %.1f%%, samples as independent %.1f%%", 100*cover, 100*naive)
	if cover < 0.90 || cover > 0.99 {
		t.Errorf("block-level 95%% interval covered the truth in %.1f%% of runs, want 90–99%%", 100*cover)
	}
	if naive > 0.90 {
		t.Errorf("the sample-level interval covered %.1f%%: the simulation has too little block effect to test anything", 100*naive)
	}
}

// Where the truth is a different run's figure (what a user sees), the
// block interval holds the next run's median about as often as two honest
// 95% intervals of equal width should (≈83%).
func TestBlockIntervalPredictsTheNextRun(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	const sims = 1000
	hit := 0
	for range sims {
		a, sa := machineLike.run(rng, 0)
		b, _ := machineLike.run(rng, 0)
		s := SummarizeBlocks(a, sa)
		if m := Median(b); s.CILow <= m && m <= s.CIHigh {
			hit++
		}
	}
	if p := float64(hit) / sims; p < 0.75 {
		t.Errorf("the next run's median fell inside the interval in %.1f%% of pairs, want ≥ 75%%", 100*p)
	}
}

// Comparing two identical runs calls a change in at most 7% of 2,000
// simulated pairs at α = 0.05; a real 10% change is found in most; the
// resolvable change is stated.
func TestCompareBlocksFalsePositivesAndPower(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	const sims = 2000
	fp, found := 0, 0
	var resolvable float64
	for range sims {
		a, sa := machineLike.run(rng, 0)
		b, sb := machineLike.run(rng, 0)
		c := CompareBlocks(a, sa, b, sb, 0.05)
		if !c.OK || c.Method != "blocks" || c.N1 != 10 || c.N2 != 10 {
			t.Fatalf("comparison %+v: want blocks, 10 a side", c)
		}
		if c.Resolved {
			fp++
		}
		if c.Resolved != (c.Lo > 1 || c.Hi < 1) || !(c.Lo <= c.Ratio && c.Ratio <= c.Hi) {
			t.Fatalf("inconsistent change %+v", c)
		}
		resolvable += c.Resolvable
		d, sd := machineLike.run(rng, math.Log(1.10))
		if c := CompareBlocks(a, sa, d, sd, 0.05); c.Resolved && c.Ratio > 1 {
			found++
		}
	}
	fpr, power := float64(fp)/sims, float64(found)/sims
	t.Logf("identical pairs called different: %.1f%%; a 10%% change found: %.1f%%; resolvable change ±%.1f%%", 100*fpr, 100*power, 100*resolvable/sims)
	if fpr > 0.07 {
		t.Errorf("false-positive rate %.1f%%, want ≤ 7%%", 100*fpr)
	}
	if power < 0.80 {
		t.Errorf("power on a 10%% change %.1f%%, want ≥ 80%% with this noise", 100*power)
	}
	// The old test, samples as the unit, on the same kind of data: the
	// reason compare moved to blocks.
	old := 0
	for range 500 {
		a, _ := machineLike.run(rng, 0)
		b, _ := machineLike.run(rng, 0)
		if CompareBlocks(a, nil, b, nil, 0.05).Resolved {
			old++
		}
	}
	if float64(old)/500 < 0.10 {
		t.Errorf("samples as the unit called %.1f%% of identical pairs different: the simulation has too little block effect to test anything", 100*float64(old)/500)
	}
}

func TestBlockMediansAndFallbacks(t *testing.T) {
	v := []float64{1, 2, 3, 10, 20, 30, 5}
	if m := BlockMedians(v, []int{3, 3, 1}); len(m) != 3 || m[0] != 2 || m[1] != 20 || m[2] != 5 {
		t.Errorf("block medians %v, want [2 20 5]", m)
	}
	for _, bad := range [][]int{nil, {3, 3}, {3, 5}, {0, 7}, {-1, 8}} {
		if BlockMedians(v, bad) != nil {
			t.Errorf("sizes %v accepted for %d values", bad, len(v))
		}
	}
	s := SummarizeBlocks(v, nil)
	if s.Interval != IntervalSamples || len(s.Warnings) == 0 {
		t.Errorf("no blocks: %+v, want the sample interval and a warning", s)
	}
	// Five blocks: the range of their medians at 93.75%, said so.
	five := SummarizeBlocks([]float64{1, 1, 2, 2, 3, 3, 4, 4, 5, 5}, []int{2, 2, 2, 2, 2})
	if five.Interval != IntervalBlocks || five.CILow != 1 || five.CIHigh != 5 || math.Abs(five.Confidence-0.9375) > 1e-9 || len(five.Warnings) != 1 {
		t.Errorf("five blocks: %+v", five)
	}
	// The figure always lies in its interval.
	odd := SummarizeBlocks([]float64{1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9}, []int{2, 2, 2, 2, 2, 2, 2})
	if !(odd.CILow <= odd.Median && odd.Median <= odd.CIHigh) {
		t.Errorf("median %v outside [%v, %v]", odd.Median, odd.CILow, odd.CIHigh)
	}
}

// The variance split recovers a known between-block share.
func TestSpreadRecoversTheBetweenShare(t *testing.T) {
	rng := rand.New(rand.NewSource(4))
	var v []float64
	sizes := make([]int, 400)
	for b := range sizes {
		level := rng.NormFloat64() // between variance 1
		for range 8 {
			v = append(v, 100+level+rng.NormFloat64()*math.Sqrt(3)) // within variance 3
		}
		sizes[b] = 8
	}
	s := Spread(v, sizes)
	if !s.OK || math.Abs(s.Between-0.25) > 0.05 {
		t.Errorf("between share %.3f, want 0.25", s.Between)
	}
	// design effect 1 + (8-1)*0.25 = 2.75
	if want := float64(len(v)) / 2.75; math.Abs(s.EffectiveN-want)/want > 0.15 {
		t.Errorf("effective n %.0f, want ≈ %.0f", s.EffectiveN, want)
	}
	if Spread(v[:3], []int{3}).OK {
		t.Error("one block gave a spread")
	}
}

// Two cells interleaved round by round share each round's host noise:
// pairing blocks by round cancels it. On data whose rounds differ by far
// more than the change, the paired comparison finds a 10% change in
// nearly every run where the unpaired one mostly cannot, and calls
// identical cells different in at most 7%.
func TestPairedChangeCancelsSharedNoise(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	cell := func(phase []float64, shift float64) ([]float64, []int, []int) {
		var v []float64
		var sizes, rounds []int
		for r, p := range phase {
			for range 4 {
				v = append(v, math.Exp(math.Log(2400)+shift+p+rng.NormFloat64()*0.04))
			}
			sizes, rounds = append(sizes, 4), append(rounds, r)
		}
		return v, sizes, rounds
	}
	const sims = 1000
	paired, unpaired, fp := 0, 0, 0
	for range sims {
		phase := make([]float64, 10)
		for i := range phase {
			phase[i] = rng.NormFloat64() * 0.15 // the host's phases: ±15% between rounds
		}
		a, sa, ra := cell(phase, 0)
		b, sb, rb := cell(phase, math.Log(1.10))
		c, sc, rc := cell(phase, 0)
		if p := PairedChange(a, sa, ra, b, sb, rb); p.Resolved && p.Ratio > 1 {
			paired++
		}
		if u := CompareBlocks(a, sa, b, sb, 0.05); u.Resolved && u.Ratio > 1 {
			unpaired++
		}
		if p := PairedChange(a, sa, ra, c, sc, rc); p.Resolved {
			fp++
		}
	}
	t.Logf("a 10%% change found: paired %.1f%%, unpaired %.1f%%; identical cells called different %.1f%%",
		100*float64(paired)/sims, 100*float64(unpaired)/sims, 100*float64(fp)/sims)
	if float64(paired)/sims < 0.95 || float64(unpaired)/sims > 0.5 || float64(fp)/sims > 0.07 {
		t.Errorf("paired %d, unpaired %d, false %d of %d", paired, unpaired, fp, sims)
	}
	// Rounds that do not match are not paired.
	if p := PairedChange([]float64{1, 1}, []int{1, 1}, []int{0, 1}, []float64{2, 2}, []int{1, 1}, []int{5, 6}); p.OK || p.N1 != 0 {
		t.Errorf("unmatched rounds paired: %+v", p)
	}
}

// The signed-rank interval: with 10 pairs it is [W(9), W(47)] of the 55
// Walsh averages at 95.1% (P(T ≤ 8) = 25/1024), and it covers a known
// ratio in 93–99% of simulated runs.
func TestPairedChangeInterval(t *testing.T) {
	if cdf := signedRankCDF(10); math.Abs(cdf[8]-25.0/1024) > 1e-12 {
		t.Errorf("P(T <= 8) for n=10: %v, want 25/1024", cdf[8])
	}
	rng := rand.New(rand.NewSource(6))
	const sims = 2000
	hit := 0
	for range sims {
		var a, b []float64
		var sizes, rounds []int
		for r := range 10 {
			phase := rng.NormFloat64() * 0.1
			a = append(a, 1000*math.Exp(phase+0.03*rng.NormFloat64()))
			b = append(b, 1200*math.Exp(phase+0.03*rng.NormFloat64()))
			sizes, rounds = append(sizes, 1), append(rounds, r)
		}
		c := PairedChange(a, sizes, rounds, b, sizes, rounds)
		if !c.OK || math.Abs(c.Confidence-(1-2*25.0/1024)) > 1e-9 {
			t.Fatalf("change %+v", c)
		}
		if c.Lo <= 1.2 && 1.2 <= c.Hi {
			hit++
		}
	}
	if p := float64(hit) / sims; p < 0.93 || p > 0.99 {
		t.Errorf("the paired interval covered the true ratio in %.1f%%, want 93–99%%", 100*p)
	}
}

// PerRound takes a figure per round across cells and its interval: a
// difference of two cells that share each round's host noise is resolved
// where the cells' own intervals overlap; rounds missing from a cell are
// skipped.
func TestPerRound(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	var a, b Series
	for r := range 10 {
		phase := 1 + 0.3*rng.Float64() // the host's phase, shared by the round
		for range 4 {
			a.Values = append(a.Values, 1000*phase*(1+0.01*rng.NormFloat64()))
			b.Values = append(b.Values, 1100*phase*(1+0.01*rng.NormFloat64()))
		}
		a.Sizes, a.Rounds = append(a.Sizes, 4), append(a.Rounds, r)
		b.Sizes, b.Rounds = append(b.Sizes, 4), append(b.Rounds, r)
	}
	ratio := PerRound(func(m []float64) float64 { return m[1] / m[0] }, a, b)
	if !ratio.OK || ratio.Lo <= 1 || ratio.Lo > 1.1 || ratio.Hi < 1.1 {
		t.Errorf("ratio %+v: want an interval around 1.1 that excludes 1", ratio)
	}
	sa, sb := SummarizeBlocks(a.Values, a.Sizes), SummarizeBlocks(b.Values, b.Sizes)
	if sa.CIHigh < sb.CILow {
		t.Errorf("the cells' own intervals do not overlap (%v, %v): the test shows nothing", sa, sb)
	}
	b.Rounds[0] = 99 // one round unmatched
	if n := PerRound(func(m []float64) float64 { return m[1] - m[0] }, a, b).N; n != 9 {
		t.Errorf("%d rounds paired, want 9", n)
	}
	if PerRound(func(m []float64) float64 { return m[0] }, Series{Values: []float64{1}, Sizes: []int{1}, Rounds: []int{0}}).OK {
		t.Error("one round gave an interval")
	}
}

// SteadyStart finds a warm-up the blocks share (the first two samples 5%
// slow, as Go rows show after one discarded sample) and, on stationary
// data, finds none in at least 90% of runs.
func TestSteadyStart(t *testing.T) {
	rng := rand.New(rand.NewSource(8))
	gen := func(warm int) ([]float64, []int) {
		var v []float64
		var sizes []int
		for range 10 {
			level := 1 + 0.05*rng.NormFloat64()
			for p := range 8 {
				x := level * (1 + 0.01*rng.NormFloat64())
				if p < warm {
					x *= 1.05
				}
				v = append(v, x)
			}
			sizes = append(sizes, 8)
		}
		return v, sizes
	}
	found, falseAlarm := 0, 0
	for range 500 {
		v, s := gen(2)
		if SteadyStart(v, s) == 2 {
			found++
		}
		v, s = gen(0)
		if SteadyStart(v, s) > 0 {
			falseAlarm++
		}
	}
	if found < 450 || falseAlarm > 50 {
		t.Errorf("a 2-sample warm-up found in %d of 500; warm-up called on stationary data in %d of 500", found, falseAlarm)
	}
	v, s := DropLeading([]float64{1, 2, 3, 4, 5, 6}, []int{3, 3}, 1)
	if len(v) != 4 || v[0] != 2 || v[2] != 5 || s[0] != 2 {
		t.Errorf("DropLeading: %v %v", v, s)
	}
	if SteadyStart([]float64{9, 1, 1, 9, 1, 1}, []int{3, 3}) != 0 {
		t.Error("two blocks were judged")
	}
}

// ShiftInterval covers a known centre of per-block differences that can be
// negative (a phase a slow hop spends beyond a typical one, block by
// block) about as often as it says, with 6 and with 10 blocks; values that
// straddle zero keep their sign (no log scale).
func TestShiftIntervalCoversTheTruth(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for _, n := range []int{6, 10} {
		for _, truth := range []float64{-50, 0, 400} {
			const sims = 2000
			hit := 0
			var level float64
			for range sims {
				d := make([]float64, n)
				for i := range d {
					// A block effect and a heavy tail, symmetric about the truth.
					d[i] = truth + 80*rng.NormFloat64()
					if rng.Float64() < 0.1 {
						d[i] += 300 * (2*rng.Float64() - 1)
					}
				}
				w := ShiftInterval(d)
				if !w.OK || !(w.Lo <= w.Median && w.Median <= w.Hi) {
					t.Fatalf("interval %+v", w)
				}
				level = w.Confidence
				if w.Lo <= truth && truth <= w.Hi {
					hit++
				}
			}
			cover := float64(hit) / sims
			if cover < level-0.03 || cover > level+0.03 {
				t.Errorf("%d blocks, centre %g: covered %.1f%%, the interval says %.1f%%", n, truth, 100*cover, 100*level)
			}
		}
	}
	if w := ShiftInterval([]float64{5}); w.OK {
		t.Error("an interval from one block")
	}
	if w := ShiftInterval([]float64{-3, -1, -2, -4}); !(w.Median < 0 && w.Hi < 0) {
		t.Errorf("negative differences lost their sign: %+v", w)
	}
}
