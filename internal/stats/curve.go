package stats

// curve.go: the uncertainty of a throughput-versus-concurrency curve's
// shape, from its repeated windows. A curve's points are each the median of
// a few windows; its knee, its USL fit and the call "retrograde" were taken
// from those medians alone, so a flat plateau with 2% noise per point could
// be called retrograde and given a peak N* from a fitted β that is noise.
// Here every shape figure comes with what the windows allow:
//
//   - retrograde is called when the ratio of the last point's windows to
//     the peak point's (Hodges–Lehmann, the interval that inverts the
//     Mann–Whitney test) lies wholly below 1 − RetrogradeMargin; the margin
//     absorbs the winner's curse of picking the peak as the largest of
//     noisy medians;
//   - the USL parameters, N* and the knee come with percentile intervals
//     from a bootstrap over windows (each point's windows resampled with
//     replacement, the curve refitted); N* is withheld when β's interval
//     reaches zero (no resolved coherency cost, so no resolved peak) or N*
//     lies outside the measured concurrencies (an extrapolation);
//   - Kneedle's knee is kept only when most bootstrap curves have one.

import (
	"math"
	"math/rand"
	"slices"
)

// RetrogradeMargin is the decline, relative to the peak, a curve must show
// beyond doubt before it is called retrograde.
const RetrogradeMargin = 0.03

// CurveShape is a curve's shape with its uncertainty.
type CurveShape struct {
	// LastOverPeak is the last point's throughput over the peak's, with
	// its interval; Retrograde says the interval lies below 1 − margin.
	LastOverPeak RatioEstimate `json:"last_over_peak"`
	Retrograde   bool          `json:"retrograde"`
	// Alpha, Beta and NStar are bootstrap percentile intervals [lo, hi]
	// of the USL fit (nil without enough fits).
	Alpha, Beta, NStar *[2]float64 `json:"-"`
	// NStarWithheld says why the fitted N* is not reported ("" : it is).
	NStarWithheld string `json:"n_star_withheld,omitempty"`
	// N95 is the knee's bootstrap interval; KneedleShare the share of
	// bootstrap curves with a Kneedle knee.
	N95          *[2]int `json:"-"`
	KneedleShare float64 `json:"kneedle_share"`
	Resamples    int     `json:"resamples"`
}

// ShapeOf analyses the curve whose point i is concurrency n[i] measured in
// windows[i] (throughput per window). fit is the USL fit of the points'
// medians (nil: none). The bootstrap is seeded, so the result is
// deterministic.
func ShapeOf(n []int, windows [][]float64, fit *USLFit, seed int64, resamples int) CurveShape {
	var cs CurveShape
	if len(n) == 0 || len(n) != len(windows) {
		return cs
	}
	meds := make([]float64, len(n))
	for i, w := range windows {
		meds[i] = Median(w)
	}
	peak := 0
	for i, m := range meds {
		if m > meds[peak] {
			peak = i
		}
	}
	last := len(n) - 1
	if peak != last && len(windows[peak]) > 0 && len(windows[last]) > 0 {
		cs.LastOverPeak = HLRatio(windows[peak], windows[last], 0.95)
		cs.Retrograde = cs.LastOverPeak.OK && cs.LastOverPeak.Hi < 1-RetrogradeMargin
	} else {
		cs.LastOverPeak = RatioEstimate{Estimate: 1, Lo: 1, Hi: 1, OK: true}
	}

	rng := rand.New(rand.NewSource(seed))
	nf := make([]float64, len(n))
	for i, v := range n {
		nf[i] = float64(v)
	}
	var alphas, betas, nstars []float64
	var n95s []int
	kneedles := 0
	x := make([]float64, len(n))
	for range resamples {
		for i, w := range windows {
			if len(w) == 0 {
				x[i] = meds[i]
				continue
			}
			r := make([]float64, len(w))
			for j := range r {
				r[j] = w[rng.Intn(len(w))]
			}
			x[i] = Median(r)
		}
		if k, err := FindKnee(n, x); err == nil {
			n95s = append(n95s, k.N95)
			if k.Kneedle != nil {
				kneedles++
			}
		}
		if f, err := FitUSL(nf, x); err == nil {
			alphas = append(alphas, f.Alpha)
			betas = append(betas, f.Beta)
			if f.NStar != nil {
				nstars = append(nstars, *f.NStar)
			} else {
				nstars = append(nstars, math.Inf(1))
			}
		}
	}
	cs.Resamples = resamples
	if resamples > 0 {
		cs.KneedleShare = float64(kneedles) / float64(resamples)
	}
	if len(n95s) > 0 {
		f := make([]float64, len(n95s))
		for i, v := range n95s {
			f[i] = float64(v)
		}
		lo, hi := Quantile(f, 0.025), Quantile(f, 0.975)
		cs.N95 = &[2]int{int(lo), int(hi)}
	}
	if len(betas) >= 20 {
		cs.Alpha = &[2]float64{Quantile(alphas, 0.025), Quantile(alphas, 0.975)}
		cs.Beta = &[2]float64{Quantile(betas, 0.025), Quantile(betas, 0.975)}
		// A resample without a peak (β = 0) has an infinite N*: where
		// more than 2.5% of them have none, the interval has no upper
		// bound, and none is stated (JSON holds no infinity).
		if lo, hi := Quantile(nstars, 0.025), Quantile(nstars, 0.975); finite(lo, hi) {
			cs.NStar = &[2]float64{lo, hi}
		}
	}
	if fit != nil && fit.NStar != nil {
		lo, hi := float64(slices.Min(n)), float64(slices.Max(n))
		switch {
		case cs.Beta == nil:
			cs.NStarWithheld = "too few bootstrap fits for an interval of β"
		case cs.Beta[0] <= 1e-12 || cs.NStar == nil:
			cs.NStarWithheld = "β's interval reaches 0: no coherency cost is resolved, so no peak is"
		case *fit.NStar < lo || *fit.NStar > hi:
			cs.NStarWithheld = "N* lies outside the measured concurrencies: an extrapolation"
		}
	}
	return cs
}
