package stats

import (
	"math"
	"math/rand"
	"testing"
)

// curve simulates a throughput curve: true throughput per concurrency,
// each point measured in 5 windows with 2% noise per window.
func curve(rng *rand.Rand, n []int, truth func(int) float64) ([][]float64, []float64) {
	var ws [][]float64
	var meds []float64
	for _, c := range n {
		var w []float64
		for range 5 {
			w = append(w, truth(c)*math.Exp(0.02*rng.NormFloat64()))
		}
		ws = append(ws, w)
		meds = append(meds, Median(w))
	}
	return ws, meds
}

var curveN = []int{1, 2, 4, 8, 16, 32, 64}

// A saturating curve with 2% noise is called retrograde in at most 5% of
// trials and given no N*; a curve that declines 10% past its peak is called
// retrograde in at least 90%.
func TestShapeRetrogradeAndNStar(t *testing.T) {
	rng := rand.New(rand.NewSource(9))
	nf := make([]float64, len(curveN))
	for i, c := range curveN {
		nf[i] = float64(c)
	}
	saturating := func(c int) float64 { return 1000 * float64(c) / (1 + 0.12*float64(c-1)) }
	peak := saturating(16)
	retro := func(c int) float64 {
		switch c {
		case 32:
			return 0.95 * peak
		case 64:
			return 0.90 * peak
		}
		return saturating(c)
	}
	const trials = 60
	falseRetro, nstarShown, nstarFitted, found := 0, 0, 0, 0
	for i := range trials {
		ws, meds := curve(rng, curveN, saturating)
		var fit *USLFit
		if f, err := FitUSL(nf, meds); err == nil {
			fit = &f
		}
		s := ShapeOf(curveN, ws, fit, int64(i), 100)
		if s.Retrograde {
			falseRetro++
		}
		if fit != nil && fit.NStar != nil {
			nstarFitted++
			if s.NStarWithheld == "" {
				nstarShown++
			}
		}
		ws, _ = curve(rng, curveN, retro)
		if ShapeOf(curveN, ws, nil, int64(i), 0).Retrograde {
			found++
		}
	}
	t.Logf("saturating: retrograde called %d/%d, N* fitted %d, shown %d; 10%% decline: retrograde %d/%d",
		falseRetro, trials, nstarFitted, nstarShown, found, trials)
	if nstarFitted < trials/5 {
		t.Errorf("the fit gave an N* in only %d of %d saturating curves: the test does not exercise withholding it", nstarFitted, trials)
	}
	if float64(falseRetro)/trials > 0.05 || float64(nstarShown)/trials > 0.05 {
		t.Errorf("a saturating curve: retrograde in %d of %d, N* shown in %d", falseRetro, trials, nstarShown)
	}
	if float64(found)/trials < 0.90 {
		t.Errorf("a 10%% decline called retrograde in %d of %d", found, trials)
	}
}

// The bootstrap gives the knee an interval and is deterministic per seed.
func TestShapeKneeInterval(t *testing.T) {
	rng := rand.New(rand.NewSource(10))
	ws, _ := curve(rng, curveN, func(c int) float64 { return 1000 * math.Min(float64(c), 8) })
	a := ShapeOf(curveN, ws, nil, 1, 100)
	b := ShapeOf(curveN, ws, nil, 1, 100)
	if a.N95 == nil || a.N95[0] > 8 || a.N95[1] < 8 || *a.N95 != *b.N95 || a.Resamples != 100 {
		t.Errorf("knee interval %v (again %v): want one holding 8, the same twice", a.N95, b.N95)
	}
}

// A flat curve (the model's β often 0 among the resamples: no peak, an
// infinite N*) has no N* interval — neither a NaN nor an infinity, which
// no JSON can hold — and says why N* is withheld wherever the fit gave one.
func TestShapeNStarUnbounded(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	nf := make([]float64, len(curveN))
	for i, c := range curveN {
		nf[i] = float64(c)
	}
	flat := func(int) float64 { return 1000 }
	for i := range 20 {
		ws, meds := curve(rng, curveN, flat)
		var fit *USLFit
		if f, err := FitUSL(nf, meds); err == nil {
			fit = &f
		}
		s := ShapeOf(curveN, ws, fit, int64(i), 200)
		if s.NStar != nil && !finite(s.NStar[0], s.NStar[1]) {
			t.Fatalf("trial %d: N* interval %v", i, *s.NStar)
		}
		if fit != nil && fit.NStar != nil && s.NStar == nil && s.NStarWithheld == "" {
			t.Errorf("trial %d: N* %v fitted, no interval and no reason", i, *fit.NStar)
		}
	}
}
