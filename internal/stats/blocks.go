package stats

// blocks.go: intervals and comparisons whose unit of replication is the
// block (one worker process's run of samples), not the sample.
//
// Samples inside one block share one process, one page placement and one
// stretch of host noise, so they are not independent: measured on the
// reference machine, 28–29% of a same-CPU switch's variance lies between
// blocks, and an interval that treats 40 samples as 40 independent draws is
// 2–2.7× too narrow. Following Kalibera and Jones ("Rigorous Benchmarking in
// Reasonable Time", ISMM 2013), the independent observations are taken at
// the level where the variance is: each block is reduced to its median, and
//
//   - a figure's interval is the interval of its block medians' median by
//     interpolated order statistics (MedianInterval; Hettmansperger and
//     Sheather 1986): distribution-free, at 95% whatever the number of
//     blocks from six on — the level it says — and moved by a minority of
//     outlying blocks only as far as the median itself is. On a shared
//     host a few blocks in ten run in a slow host state; the median barely
//     moves, and an interval of the median says so. Chosen on simulated
//     data (precision_test.go) and on real sittings of the reference
//     machine over the order statistics of the block medians (benchmath's
//     "assume nothing" interval, used until 26 November 2026: 97.9% with
//     10 blocks, widest) and the signed-rank interval of the log block
//     medians (used for a day: exact at 95.1%, but an interval of their
//     centre, which a slow block drags: on ten real sittings its median
//     half-width was 12.1% where this one's was 4.3%, while the sittings'
//     medians moved by 1%);
//   - a change between two runs is the Hodges–Lehmann ratio of their block
//     medians with the interval that inverts the Mann–Whitney test on
//     blocks (HLRatio): "~" exactly when that interval contains no change.
//
// The figure itself stays the median of all samples (what the contract
// calls the median); where it falls outside the block interval (blocks of
// different shapes, a bimodal host) the interval is widened to hold it, so
// an interval always contains its own figure.

import (
	"fmt"
	"math"
	"slices"

	mstats "github.com/aclements/go-moremath/stats"
)

// Interval methods, as recorded in Summary.Interval.
const (
	// IntervalBlocks: the interpolated order-statistic interval of the
	// block medians' median (MedianInterval).
	IntervalBlocks = "block-median-interpolated"
	// IntervalBlockSignedRank: the signed-rank interval of the log block
	// medians, what files written on 26 November 2026 hold.
	IntervalBlockSignedRank = "block-signed-rank"
	// IntervalBlockOrder: the order-statistic interval of the block
	// medians, what files written before the signed-rank interval hold.
	IntervalBlockOrder = "block-medians"
	// IntervalSamples: the order-statistic interval of the samples, as if
	// they were independent (too narrow where blocks differ): used only
	// where the blocks are unknown (files written before they were
	// recorded) or there is a single block.
	IntervalSamples = "samples"
)

// MinBlocks95 is the fewest blocks whose order-statistic interval reaches
// 95% (with 5 the widest, [min, max], covers 93.75%).
const MinBlocks95 = 6

// BlockMedians splits values into consecutive blocks of the given sizes
// and returns each block's median. It returns nil when the sizes do not
// add up to len(values) or a size is not positive.
func BlockMedians(values []float64, sizes []int) []float64 {
	total := 0
	for _, n := range sizes {
		if n <= 0 {
			return nil
		}
		total += n
	}
	if total != len(values) || len(sizes) == 0 {
		return nil
	}
	out := make([]float64, len(sizes))
	at := 0
	for i, n := range sizes {
		out[i] = Median(values[at : at+n])
		at += n
	}
	return out
}

// SummarizeBlocks summarises values taken in consecutive blocks of the
// given sizes: the percentiles, mean and spread of all samples, the median
// of all samples as the figure, and the interval of the block medians.
// Without usable sizes (nil, not adding up) or with one block it falls back
// to the sample-level interval and says so in a warning.
func SummarizeBlocks(values []float64, sizes []int) Summary {
	s := Summarize(values)
	meds := BlockMedians(values, sizes)
	s.Blocks = len(meds)
	if len(meds) < 2 {
		s.Interval = IntervalSamples
		if len(values) > 0 {
			why := "the blocks are not recorded"
			if len(meds) == 1 {
				why = "there is one block"
			}
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s: the interval treats samples as independent and is too narrow when blocks differ", why))
		}
		return s
	}
	s.Interval = IntervalBlocks
	s.Warnings = nil // benchmath's sample-count warnings describe the sample-level interval, not this one
	w := MedianInterval(meds)
	s.CILow, s.CIHigh, s.Confidence = w.Lo, w.Hi, w.Confidence
	s.CILow = math.Min(s.CILow, s.Median)
	s.CIHigh = math.Max(s.CIHigh, s.Median)
	if len(meds) < MinBlocks95 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("only %d blocks: the interval is the widest their medians give, at %.1f%% confidence; %d or more blocks give 95%%", len(meds), 100*s.Confidence, MinBlocks95))
	}
	return s
}

// MedianInterval is the interval of the median of vals by interpolated
// order statistics (Hettmansperger and Sheather, "Confidence Intervals
// Based on Interpolated Order Statistics", Statistics & Probability
// Letters 4, 1986): between the pair of order statistics [x(d), x(n+1−d)]
// whose binomial coverage is the smallest at or above Confidence and the
// next pair in, at the point whose coverage is Confidence. Distribution-
// free like the order statistics it interpolates, and, unlike an interval
// of a mean or a centre, moved by a minority of outlying values only as
// far as the median itself is. With fewer than MinBlocks95 values no pair
// reaches Confidence: the widest, [min, max], at its own level. OK is
// false with fewer than two values.
func MedianInterval(vals []float64) WindowSummary {
	s := slices.Clone(vals)
	slices.Sort(s)
	n := len(s)
	if n < 2 {
		return WindowSummary{Median: math.NaN(), N: n}
	}
	// cover(d) is the coverage of [x(d), x(n+1−d)] (1-based): 1 − 2·P(Bin(n, ½) ≤ d−1).
	cover := func(d int) float64 {
		p := 0.0
		for k := 0; k < d; k++ {
			p += binom(n, k)
		}
		return 1 - 2*p/math.Pow(2, float64(n))
	}
	w := WindowSummary{Median: sortedMedian(s), N: n, OK: true}
	d := 1
	for d+1 <= n/2 && cover(d+1) >= Confidence {
		d++
	}
	g, gIn := cover(d), cover(d+1)
	if g < Confidence || d+1 > n/2 || g == Confidence {
		w.Lo, w.Hi, w.Confidence = s[d-1], s[n-d], g
		return w
	}
	i := (g - Confidence) / (g - gIn)
	lambda := float64(n-d) * i / (float64(d) + float64(n-2*d)*i)
	w.Lo = (1-lambda)*s[d-1] + lambda*s[d]
	w.Hi = (1-lambda)*s[n-d] + lambda*s[n-d-1]
	w.Confidence = Confidence
	return w
}

// CentreInterval is the signed-rank interval of the centre of positive
// values on the log scale: the median of their Walsh averages (the
// Hodges–Lehmann estimate, exponentiated) and the interval that inverts
// the Wilcoxon signed-rank test, at the smallest exact level not below
// Confidence or, with too few values for it, the widest they give ([min,
// max] of the Walsh averages: 2 values 50%, 3 75%, 5 93.75%). Non-positive
// values are dropped; OK is false with fewer than two left.
func CentreInterval(vals []float64) WindowSummary {
	v := positive(vals)
	logs := make([]float64, len(v))
	for i, x := range v {
		logs[i] = math.Log(x)
	}
	est, lo, hi, conf, ok := walshInterval(logs)
	if !ok {
		return WindowSummary{Median: math.NaN(), N: len(v)}
	}
	return WindowSummary{Median: math.Exp(est), Lo: math.Exp(lo), Hi: math.Exp(hi), Confidence: conf, N: len(v), OK: true}
}

// ShiftInterval is CentreInterval on the values' own scale, for figures
// that can be zero or negative (a difference per block: what a slow hop
// spends in a phase beyond a typical one): the Hodges–Lehmann estimate of
// their centre and the signed-rank interval, at the smallest exact level
// not below Confidence or the widest the values give. It assumes the
// values are symmetric about their centre. OK is false with fewer than
// two values.
func ShiftInterval(vals []float64) WindowSummary {
	v := slices.DeleteFunc(slices.Clone(vals), func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) })
	est, lo, hi, conf, ok := walshInterval(v)
	if !ok {
		return WindowSummary{Median: math.NaN(), N: len(v)}
	}
	return WindowSummary{Median: est, Lo: lo, Hi: hi, Confidence: conf, N: len(v), OK: true}
}

// walshInterval is the Hodges–Lehmann estimate of the centre of d (the
// median of its Walsh averages) and the signed-rank interval [W(k),
// W(M+1−k)] of the sorted Walsh averages, k the largest with P(T ≤ k−1) ≤
// (1−Confidence)/2 under the exact null distribution (at least 1: the
// widest interval, at its own level, when even it falls short of
// Confidence). ok is false with fewer than two values.
func walshInterval(d []float64) (est, lo, hi, conf float64, ok bool) {
	n := len(d)
	if n < 2 {
		return 0, 0, 0, 0, false
	}
	walsh := make([]float64, 0, n*(n+1)/2)
	for i := range n {
		for j := i; j < n; j++ {
			walsh = append(walsh, (d[i]+d[j])/2)
		}
	}
	slices.Sort(walsh)
	cdf := signedRankCDF(n)
	k := 0
	for t := range cdf {
		if cdf[t] <= (1-Confidence)/2+1e-12 {
			k = t + 1
		} else {
			break
		}
	}
	k = max(k, 1)
	m := len(walsh)
	return sortedMedian(walsh), walsh[k-1], walsh[m-k], 1 - 2*cdf[k-1], true
}

// BlockSpread describes how a figure's variance splits between blocks and
// samples within them (Kalibera and Jones's levels): Between is the share of
// the total variance that lies between block means (0..1, from the one-way
// random-effects ANOVA estimate, clamped at 0); EffectiveN is how many
// independent samples the run is worth (n / design effect). OK is false
// with fewer than two blocks of at least two samples.
type BlockSpread struct {
	Between    float64 `json:"between_block_share"`
	EffectiveN float64 `json:"effective_n"`
	OK         bool    `json:"-"`
}

// Spread estimates the BlockSpread of values taken in blocks of the given
// sizes.
func Spread(values []float64, sizes []int) BlockSpread {
	if BlockMedians(values, sizes) == nil || len(sizes) < 2 {
		return BlockSpread{}
	}
	k := len(sizes)
	n := len(values)
	grand := 0.0
	for _, v := range values {
		grand += v
	}
	grand /= float64(n)
	var ssb, ssw float64
	at := 0
	var sumSq float64
	for _, m := range sizes {
		if m < 2 {
			return BlockSpread{}
		}
		blk := values[at : at+m]
		at += m
		mean := 0.0
		for _, v := range blk {
			mean += v
		}
		mean /= float64(m)
		ssb += float64(m) * (mean - grand) * (mean - grand)
		for _, v := range blk {
			ssw += (v - mean) * (v - mean)
		}
		sumSq += float64(m * m)
	}
	msb := ssb / float64(k-1)
	msw := ssw / float64(n-k)
	n0 := (float64(n) - sumSq/float64(n)) / float64(k-1) // the average block size, adjusted for unequal sizes
	between := math.Max(0, (msb-msw)/n0)
	total := between + msw
	out := BlockSpread{OK: true, EffectiveN: float64(n)}
	if total > 0 {
		out.Between = between / total
		out.EffectiveN = float64(n) / (1 + (float64(n)/float64(k)-1)*out.Between)
	}
	return out
}

// Change is the change between two runs of one figure, with blocks as the
// unit: Ratio is the Hodges–Lehmann estimate of new/old from the block
// medians, [Lo, Hi] its interval at Confidence (the largest attainable
// not above 1−alpha), and Resolved says the interval excludes no change.
// Resolvable is the smallest change a comparison like this one finds in 80%
// of repetitions (Detectable: the interval's half-width relative to the
// ratio, scaled by (z₀.₈ + z) / z, z the interval's own quantile). Method
// says which unit was used ("blocks", or "samples" for files without
// blocks).
type Change struct {
	Ratio, Lo, Hi float64
	Confidence    float64
	P             float64 // two-sided Mann–Whitney p-value on the units
	N1, N2        int     // units (blocks, or samples) on each side
	Resolved      bool
	Resolvable    float64
	Method        string
	OK            bool // false: too few units for any interval
}

// CompareBlocks compares a run (cur, in blocks of curSizes) against a base
// (old, oldSizes). When either side's blocks are unknown it compares the
// samples instead (Method "samples"), which is too eager to call a change.
func CompareBlocks(old []float64, oldSizes []int, cur []float64, curSizes []int, alpha float64) Change {
	a, b := BlockMedians(old, oldSizes), BlockMedians(cur, curSizes)
	method := "blocks"
	if len(a) < 2 || len(b) < 2 {
		a, b, method = old, cur, "samples"
	}
	a = positive(a)
	b = positive(b)
	h := HLRatio(a, b, 1-alpha)
	c := Change{Ratio: h.Estimate, Lo: h.Lo, Hi: h.Hi, Confidence: h.Confidence, P: h.P, N1: len(a), N2: len(b), Method: method, OK: h.OK}
	if h.OK {
		c.Resolved = h.Lo > 1 || h.Hi < 1
		c.Resolvable = Detectable((h.Hi-h.Lo)/2/h.Estimate, 0, h.Confidence)
	}
	return c
}

// DetectPower is the share of repetitions in which a change of the size
// called resolvable is found: the usual 80% of a sample-size calculation.
const DetectPower = 0.8

// Detectable is the change a test finds in DetectPower of repetitions,
// given its interval's relative half-width at confidence: the half-width
// is where a change is found half the time; scaled by (q(DetectPower) +
// q) / q, q the interval's two-sided quantile, it is where one is found in
// 80%. The quantiles are Student's t with df degrees of freedom, or the
// normal's where df is 0 (the rank tests).
func Detectable(half, df, confidence float64) float64 {
	if !(confidence > 0 && confidence < 1) || !(half >= 0) {
		return math.NaN()
	}
	q := func(p float64) float64 {
		if df > 0 {
			return tQuantile(df, p)
		}
		return mstats.StdNormal.InvCDF(p)
	}
	z := q((1 + confidence) / 2)
	return half * (q(DetectPower) + z) / z
}

// positive drops values a ratio cannot use (a log of zero or less).
func positive(v []float64) []float64 {
	return slices.DeleteFunc(slices.Clone(v), func(x float64) bool { return !(x > 0) })
}

// PairedChange compares two cells of one run whose blocks were interleaved:
// blocks of the same round ran side by side in the same stretch of host
// noise, so each round gives one log-ratio of block medians (b over a) and
// the noise they shared cancels. Ratio is the Hodges–Lehmann estimate (the
// median of the Walsh averages of the log-ratios, exponentiated), [Lo, Hi]
// the interval that inverts the Wilcoxon signed-rank test (exact null
// distribution; at 95%, or the most the rounds allow), P the sign test's
// two-sided p-value. The signed-rank method assumes the log-ratios are
// symmetric about their centre, as a shared multiplicative noise leaves
// them; it is about 1.5 times as efficient as the sign test's interval.
// Rounds missing on either side are skipped; Method is "paired blocks",
// N1 = N2 the rounds paired.
func PairedChange(a []float64, aSizes, aRounds []int, b []float64, bSizes, bRounds []int) Change {
	ma, mb := BlockMedians(a, aSizes), BlockMedians(b, bSizes)
	c := Change{Method: "paired blocks", Ratio: math.NaN(), P: math.NaN()}
	if ma == nil || mb == nil || len(aRounds) != len(ma) || len(bRounds) != len(mb) {
		return c
	}
	byRound := map[int]float64{}
	for i, r := range aRounds {
		byRound[r] = ma[i]
	}
	var d []float64
	above := 0
	for i, r := range bRounds {
		if x, ok := byRound[r]; ok && x > 0 && mb[i] > 0 {
			d = append(d, math.Log(mb[i]/x))
			if mb[i] > x {
				above++
			}
		}
	}
	n := len(d)
	c.N1, c.N2 = n, n
	if n < 2 {
		return c
	}
	c.P = signTest(above, n)
	est, lo, hi, conf, _ := walshInterval(d)
	c.Ratio, c.Lo, c.Hi, c.Confidence, c.OK = math.Exp(est), math.Exp(lo), math.Exp(hi), conf, true
	c.Resolved = c.Lo > 1 || c.Hi < 1
	c.Resolvable = Detectable((c.Hi-c.Lo)/2/c.Ratio, 0, c.Confidence)
	return c
}

// signedRankCDF is the exact null CDF of the Wilcoxon signed-rank statistic
// for n pairs: the number of subsets of {1..n} with each rank sum, over 2^n.
func signedRankCDF(n int) []float64 {
	top := n * (n + 1) / 2
	count := make([]float64, top+1)
	count[0] = 1
	for r := 1; r <= n; r++ {
		for t := top; t >= r; t-- {
			count[t] += count[t-r]
		}
	}
	total := math.Pow(2, float64(n))
	cdf := make([]float64, top+1)
	cum := 0.0
	for t, c := range count {
		cum += c
		cdf[t] = cum / total
	}
	return cdf
}

// signTest is the two-sided p-value of k successes in n fair coin flips.
func signTest(k, n int) float64 {
	lo := min(k, n-k)
	p := 0.0
	for i := 0; i <= lo; i++ {
		p += binom(n, i)
	}
	return math.Min(1, 2*p/math.Pow(2, float64(n)))
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// Series is one cell's samples in blocks, with the round each block ran in.
type Series struct {
	Values        []float64
	Sizes, Rounds []int
}

// PerRound derives one figure per round from several cells measured in
// the same interleaved rounds — f gets the cells' block medians of that
// round, in the order given — and summarises those per-round figures: their
// median with the order-statistic interval (SummarizeWindows). Whatever
// the host did during a round reaches every cell of it, so a difference or
// a ratio taken round by round cancels it. Rounds missing from a cell are
// skipped; OK is false with fewer than two rounds.
func PerRound(f func(medians []float64) float64, cells ...Series) WindowSummary {
	byRound := make([]map[int]float64, len(cells))
	for i, c := range cells {
		meds := BlockMedians(c.Values, c.Sizes)
		if meds == nil || len(c.Rounds) != len(meds) {
			return WindowSummary{Median: math.NaN()}
		}
		byRound[i] = map[int]float64{}
		for j, r := range c.Rounds {
			byRound[i][r] = meds[j]
		}
	}
	if len(cells) == 0 {
		return WindowSummary{Median: math.NaN()}
	}
	var vals []float64
	rounds := make([]int, 0, len(byRound[0]))
	for r := range byRound[0] {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		m := make([]float64, len(cells))
		ok := true
		for i := range cells {
			if m[i], ok = byRound[i][r]; !ok {
				break
			}
		}
		if ok {
			vals = append(vals, f(m))
		}
	}
	if len(vals) < 2 {
		return WindowSummary{Median: math.NaN(), N: len(vals)}
	}
	return SummarizeWindows(vals)
}

// SteadyStart finds the warm-up at the start of every block: the number of
// leading positions to discard. Position p is warm-up when, across the
// blocks, its sample lies above the median of the block's later samples
// in so many blocks that a one-sided sign test rejects chance at 5%; the
// first position that is not ends the warm-up. At most half of the
// shortest block is discarded, and fewer than six blocks are never judged
// (the test has no power there). In the spirit of Barrett et al.'s
// changepoint analysis ("Virtual Machine Warmup Blows Hot and Cold",
// OOPSLA 2017), but across blocks: a block of a few samples is too short
// for a changepoint of its own.
func SteadyStart(values []float64, sizes []int) int {
	if BlockMedians(values, sizes) == nil || len(sizes) < MinBlocks95 {
		return 0
	}
	shortest := slices.Min(sizes)
	starts := make([]int, len(sizes))
	for i := 1; i < len(sizes); i++ {
		starts[i] = starts[i-1] + sizes[i-1]
	}
	drop := 0
	for p := 0; p < shortest/2; p++ {
		above := 0
		for b, at := range starts {
			later := values[at+p+1 : at+sizes[b]]
			if values[at+p] > Median(later) {
				above++
			}
		}
		// One-sided: P(X >= above) for X ~ Bin(n, 1/2).
		n := len(sizes)
		tail := 0.0
		for k := above; k <= n; k++ {
			tail += binom(n, k)
		}
		if tail/math.Pow(2, float64(n)) > 0.05 {
			break
		}
		drop = p + 1
	}
	return drop
}

// DropLeading removes the first n samples of every block, returning the
// remaining values and sizes.
func DropLeading(values []float64, sizes []int, n int) ([]float64, []int) {
	if n <= 0 {
		return values, sizes
	}
	var out []float64
	outSizes := make([]int, len(sizes))
	at := 0
	for i, s := range sizes {
		k := min(n, s)
		out = append(out, values[at+k:at+s]...)
		outSizes[i] = s - k
		at += s
	}
	return out, outSizes
}
