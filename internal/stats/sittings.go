package stats

// sittings.go: reproducibility across sittings (invocations of ctxbench).
//
// A figure's precision interval (SummarizeBlocks) says where this sitting's
// median lies; the next sitting's median lies elsewhere more often than that
// interval admits, because a sitting carries an effect of its own (host
// phases of tens of seconds, placement, frequency). Following Kalibera and
// Jones ("Rigorous Benchmarking in Reasonable Time", ISMM 2013), each level's
// variance is estimated at that level: the history of a cell's sittings
// (block medians per sitting) gives a one-way random-effects ANOVA on the log
// scale,
//
//	y[s][b] = log(block median b of sitting s) = mu + a_s + e_sb.
//
// The reproducibility interval answers where another sitting's median on
// this machine will lie: it is a prediction interval for the median of the
// next independent sitting (same fingerprint, typical precision), centred
// on this sitting's median. At 95% another sitting's median falls inside
// about 95% of the time — more while the history is short (with few
// sittings t is steep and the interval wide). Its variance is that of the
// difference of two sittings' figures, this one's and the next's, each
// scattering about the long-run centre exp(mu): the very variance, degrees
// of freedom and quantile SittingChange uses for two sittings (one
// function, pairVar, computes them for both), so the interval holds another
// typical sitting's median exactly when SittingChange would not call the
// two different, except where the precision interval, always kept whole,
// is the wider.
//
// The method as built departs from the textbook recipe — V = 2·(max(0,
// (MSB−MSW)/n0) + se²), t quantile with Welch–Satterthwaite degrees of
// freedom — because that recipe is optimistic with few sittings: its df
// are estimated from the same data, and with two sittings and a dominant
// sitting effect they come out above the one df the between part has,
// where t is steepest (in sittings_test.go's model it held another
// sitting's median in 87% of trials at sitting:block variance ratios 4 and
// 16; when the between estimate happens to come out small or clamped at
// zero, its df jump towards the blocks' as well). Instead:
//
//   - The variance of a sitting's figure about mu is estimated directly by
//     MSB/n0 = sigma_a² + sigma_e²/n0, the observed scatter of the
//     sittings' means, which needs no subtraction and no clamp, with its
//     exact S−1 degrees of freedom; two sittings' difference has twice it.
//     The interval is a plain t prediction interval, calibrated whatever
//     the split between sittings and blocks (with S = 2 and normal effects,
//     t with 1 df holds the next sitting in 95.7% although the current
//     sitting is one of the two; 95–100% in the tests, with the precision
//     interval and the surplus below added). With 2 sittings it is wide —
//     about 6× the precision interval even with no sitting effect —
//     because nothing in two sittings tells a small sitting effect from
//     none; a family's PoolBetween is the way to a narrower one.
//   - A sitting's own precision enters as the surplus of its precision
//     variance over the history's typical one: a sitting noisier than usual
//     (fewer blocks, a rough stretch) widens its interval and its
//     comparisons; a quieter one does not narrow them. The next sitting
//     Reproducibility predicts is taken as typical (no surplus). Without
//     the surplus, compare called a sitting with 6 blocks of 3× the usual
//     scatter different from an ordinary one in 11–41% of simulated pairs
//     at α = 5% (2–8% with it); it costs some power with few sittings (a
//     10% change found in 74–75% rather than 81–82% of pairs at S = 5).
//   - The degrees of freedom are the between part's, never more: the
//     smallest of the parts' df is a lower bound on Welch–Satterthwaite's
//     and is not itself estimated from the data.
//   - The interval always contains the precision interval.

import (
	"math"

	"github.com/aclements/go-moremath/stats"
)

// Between is the between-sittings variance component of one cell (or a
// family of cells, Pooled), on the log scale: Var is the variance of the
// sitting effect, max(0, (MSB−MSW)/n0). MSB and MSW are the mean squares
// between and within sittings of the log block medians, N0 the average
// blocks per sitting adjusted for unequal counts, DF the degrees of freedom
// of the between-sitting estimate (Sittings − 1 for one cell), Precision the
// mean over the sittings of the squared log-scale standard error of their
// block-median intervals (the same conversion Reproducibility applies to the
// current sitting's interval, so the two compare like with like). OK is
// false with fewer than two usable sittings.
type Between struct {
	Var       float64 `json:"var"`
	MSB       float64 `json:"msb,omitempty"`
	MSW       float64 `json:"msw,omitempty"`
	N0        float64 `json:"n0,omitempty"`
	Precision float64 `json:"precision,omitempty"`
	DF        int     `json:"df"`
	Sittings  int     `json:"sittings"`
	Pooled    bool    `json:"pooled,omitempty"`
	Cells     int     `json:"cells,omitempty"` // cells pooled; 0 for one cell's own
	OK        bool    `json:"-"`
}

// BetweenSittings estimates the between-sittings component of one cell from
// its sittings' block medians (one slice per sitting, the current sitting
// included). Non-positive values are dropped (no logarithm); a sitting left
// with fewer than two blocks is skipped: it says nothing about the scatter
// within a sitting and has no precision interval to compare with, and
// ctxbench's one-block figures fall back to a sample-level interval that
// is not comparable. Block counts may differ between sittings.
func BetweenSittings(sittings [][]float64) Between {
	var groups [][]float64
	var prec float64
	for _, s := range sittings {
		v := positive(s)
		if len(v) < 2 {
			continue
		}
		logs := make([]float64, len(v))
		for i, x := range v {
			logs[i] = math.Log(x)
		}
		groups = append(groups, logs)
		w := SummarizeWindows(v)
		prec += sq(logSE(w.Lo, w.Hi, w.Confidence))
	}
	b := Between{Sittings: len(groups)}
	if len(groups) < 2 {
		return b
	}
	msb, msw, n0 := oneWay(groups)
	b.MSB, b.MSW, b.N0, b.DF = msb, msw, n0, len(groups)-1
	b.Var = math.Max(0, (msb-msw)/n0)
	b.Precision = prec / float64(len(groups))
	b.OK = finite(b.Var, b.MSB, b.MSW, b.N0, b.Precision)
	return b
}

// oneWay is the one-way ANOVA of groups of at least two values each: the
// mean squares between and within groups, and n0, the group size that
// makes E[MSB] = n0·sigma_between² + sigma_within² when sizes differ (the
// same adjustment as Spread's).
func oneWay(groups [][]float64) (msb, msw, n0 float64) {
	var n, sumSq, grand float64
	for _, g := range groups {
		for _, v := range g {
			grand += v
		}
		n += float64(len(g))
		sumSq += float64(len(g) * len(g))
	}
	grand /= n
	var ssb, ssw float64
	for _, g := range groups {
		mean := 0.0
		for _, v := range g {
			mean += v
		}
		mean /= float64(len(g))
		ssb += float64(len(g)) * sq(mean-grand)
		for _, v := range g {
			ssw += sq(v - mean)
		}
	}
	k := float64(len(groups))
	return ssb / (k - 1), ssw / (n - k), (n - sumSq/n) / (k - 1)
}

// PoolBetween pools the between-sittings component over a family of cells,
// for cells with too few sittings of their own. It assumes the sitting effect
// is relative and of one size across the family (a host phase slows every
// cell of a sitting alike). Var is the df-weighted mean of the cells' Var;
// each was clamped at zero, so the mean leans high, which only widens.
//
// Degrees of freedom are not added up: the family's cells were measured in
// the same sittings and share their host phases, so their estimates are
// correlated — summing would count the same sittings several times. DF is
// the largest single cell's (and Sittings likewise), what the family
// certainly holds; cells from disjoint sittings would have more, and
// under-claiming only widens the intervals. Cells without an estimate (not
// OK) are ignored; OK is false when none has one.
func PoolBetween(cells []Between) Between {
	out := Between{Pooled: true}
	var w float64
	for _, c := range cells {
		if !c.OK || c.DF < 1 || !finite(c.Var) {
			continue
		}
		out.Var += float64(c.DF) * c.Var
		w += float64(c.DF)
		out.DF = max(out.DF, c.DF)
		out.Sittings = max(out.Sittings, c.Sittings)
		out.Cells += max(1, c.Cells)
	}
	if w == 0 {
		return Between{Pooled: true}
	}
	out.Var /= w
	out.OK = true
	return out
}

// Repro is a reproducibility interval: where another independent sitting's
// median of a figure on this machine will lie, at Confidence (at 95%,
// inside about 95% of the time; more while the history is short), centred
// on one sitting's median. Sittings
// is how many sittings the between-sittings estimate rests on; BetweenCV
// the estimated coefficient of variation of the sitting effect,
// sqrt(exp(Var)−1), the CV of a lognormal effect with that log variance.
type Repro struct {
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	Sittings   int     `json:"sittings"`
	BetweenCV  float64 `json:"between_cv"`
}

// Reproducibility widens this sitting's precision interval (ciLow, ciHigh
// at confidence, from blocks blocks, around median) into a reproducibility
// interval at level: a prediction interval for the median of another,
// independent sitting of this cell on this machine (same fingerprint, of
// typical precision), centred on this sitting's median. On the log scale
// it is ±t·sqrt(V), V the variance of the difference of the two sittings'
// figures, computed as SittingChange computes it (pairVar):
//
//   - with the cell's own Between, V = 2·MSB/n0 + surplus(se): this sitting
//     about the long-run centre (MSB/n0 and its precision surplus) plus the
//     next, typical one (MSB/n0, no surplus); df = Sittings − 1;
//   - with a family's PoolBetween, for a cell with too few sittings of its
//     own, V = 2·(Var + se²), the next sitting's precision taken as this
//     one's; df = min(the pool's DF, blocks − 1);
//
// and t is Student's t quantile at (1+level)/2 with those df. At 95% the
// next sitting's median falls inside about 95% of the time — more while
// the history is short, since with two or three sittings t is steep and the
// interval wide. The interval holds another sitting's median exactly when
// SittingChange(this, other, b, 1−level) would not call the two different
// (same variance, df and quantile), provided the other is of typical
// precision (own: no surplus; pooled: the same se and blocks as this one)
// and the precision interval is not the wider: the result always contains
// the precision interval. A noisier other sitting only widens
// SittingChange, so a median inside is never called a change.
//
// It reports false when an input is unusable: b not OK, a figure not taken
// in at least two blocks (its interval is sample-level, too narrow to
// build on), non-positive or non-finite values, level outside (0, 1).
func Reproducibility(median, ciLow, ciHigh, confidence float64, blocks int, b Between, level float64) (Repro, bool) {
	f := SittingFigure{Median: median, CILow: ciLow, CIHigh: ciHigh, Confidence: confidence, Blocks: blocks}
	se, ok := f.se()
	if !ok || !b.OK || !(level > 0 && level < 1) {
		return Repro{}, false
	}
	v, df, ok := b.pairVar(se, b.typicalSE(se), blocks, blocks)
	if !ok {
		return Repro{}, false // a hand-made Between without degrees of freedom or with a negative mean square
	}
	half := halfWidth(v, df, level)
	r := Repro{
		Low:        math.Min(median*math.Exp(-half), ciLow),
		High:       math.Max(median*math.Exp(half), ciHigh),
		Confidence: level,
		Sittings:   b.Sittings,
		BetweenCV:  math.Sqrt(math.Expm1(b.Var)),
	}
	if !finite(r.Low, r.High, r.BetweenCV) {
		return Repro{}, false
	}
	return r, true
}

// SittingFigure is one sitting's figure as SummarizeBlocks gives it: the
// median, its precision interval at Confidence, and how many blocks.
type SittingFigure struct {
	Median, CILow, CIHigh, Confidence float64
	Blocks                            int
}

// FigureOf is the SittingFigure of a Summary.
func FigureOf(s Summary) SittingFigure {
	return SittingFigure{Median: s.Median, CILow: s.CILow, CIHigh: s.CIHigh, Confidence: s.Confidence, Blocks: s.Blocks}
}

// SittingChange asks whether two sittings' medians (a the base, b the new)
// differ beyond what reproducibility allows. Ratio is b/a; on the log scale
// its variance is twice a sitting's variance about the long-run centre plus
// each side's precision surplus (own Between: 2·MSB/n0 + surplus(se_a) +
// surplus(se_b), S−1 df), or 2·Var + se_a² + se_b² (pooled, df the
// smallest of the pool's and each side's blocks−1) — pairVar, shared with
// Reproducibility — and [Lo, Hi] is the t interval at 1−alpha; P is the
// two-sided t p-value. N1, N2 are the blocks; Method "sittings". OK is
// false for unusable inputs. between should be learned from sittings before
// b (it may include a).
func SittingChange(a, b SittingFigure, between Between, alpha float64) Change {
	c := Change{Method: "sittings", Ratio: math.NaN(), P: math.NaN(), N1: a.Blocks, N2: b.Blocks}
	sa, okA := a.se()
	sb, okB := b.se()
	if !okA || !okB || !between.OK || !(alpha > 0 && alpha < 1) {
		return c
	}
	v, df, ok := between.pairVar(sa, sb, a.Blocks, b.Blocks)
	if !ok {
		return c
	}
	d := math.Log(b.Median / a.Median)
	sd := math.Sqrt(v)
	half := halfWidth(v, df, 1-alpha)
	c.Ratio, c.Lo, c.Hi, c.Confidence = math.Exp(d), math.Exp(d-half), math.Exp(d+half), 1-alpha
	switch {
	case sd > 0:
		c.P = 2 * (1 - stats.TDist{V: df}.CDF(math.Abs(d)/sd))
	case d == 0:
		c.P = 1 // no scatter anywhere and no difference
	default:
		c.P = 0
	}
	if !finite(c.Ratio, c.Lo, c.Hi, c.P) {
		c.Ratio, c.P = math.NaN(), math.NaN()
		return c
	}
	c.Resolved = c.Lo > 1 || c.Hi < 1
	c.Resolvable = (c.Hi - c.Lo) / 2 / c.Ratio
	c.OK = true
	return c
}

// se is the figure's precision as a log-scale standard error; false when
// the figure cannot be used (see Reproducibility).
func (f SittingFigure) se() (float64, bool) {
	if f.Blocks < 2 || !(f.Median > 0) || !(f.CILow > 0) || !(f.CIHigh >= f.CILow) || !finite(f.Median, f.CIHigh) {
		return 0, false
	}
	se := logSE(f.CILow, f.CIHigh, f.Confidence)
	return se, finite(se)
}

// pairVar is the variance of the log ratio of two sittings' figures
// (precisions seA and seB as log-scale standard errors, from blocksA and
// blocksB blocks) and its degrees of freedom: the one computation behind
// both SittingChange and Reproducibility, so that the two agree. With a
// cell's own estimate each side's variance about the long-run centre is
// MSB/n0 — the observed scatter of the sittings' means, precision included
// — plus its precision surplus, with S−1 df. A pooled estimate carries no
// precision of this cell's, so each side is Var + se², and the df are the
// smallest of the pool's and each side's blocks−1. ok is false when the
// df are below one or V is negative or NaN (a hand-made Between).
func (b Between) pairVar(seA, seB float64, blocksA, blocksB int) (v, df float64, ok bool) {
	df = float64(b.DF)
	if b.Pooled {
		v = 2*b.Var + seA*seA + seB*seB
		df = min(df, float64(blocksA-1), float64(blocksB-1))
	} else {
		v = 2*b.MSB/b.N0 + b.surplus(seA) + b.surplus(seB)
	}
	return v, df, df >= 1 && v >= 0
}

// typicalSE is the precision Reproducibility assumes for the next sitting
// given this one's se: for a cell's own estimate the history's typical
// one, which has no surplus; a pooled estimate knows nothing of this
// cell's precision, so this sitting's own.
func (b Between) typicalSE(se float64) float64 {
	if b.Pooled {
		return se
	}
	return math.Sqrt(math.Max(0, b.Precision))
}

// halfWidth is the log-scale half-width of a t interval at level for a
// variance v with df degrees of freedom.
func halfWidth(v, df, level float64) float64 {
	return tQuantile(df, (1+level)/2) * math.Sqrt(v)
}

// surplus is the precision variance of a sitting beyond what the history's
// typical sitting has (already inside MSB/n0): its se² relative to the
// history's mean se² (both from order-statistic intervals, so the ratio is
// free of how such a width translates to a standard error), applied to the
// within-sitting part of MSB/n0, MSW/n0. Never negative: a quiet sitting does
// not narrow the interval, since one interval's width is itself noisy.
func (b Between) surplus(se float64) float64 {
	if b.Precision <= 0 {
		return se * se
	}
	return b.MSW / b.N0 * math.Max(0, se*se/b.Precision-1)
}

// logSE converts an interval at confidence into a log-scale standard error:
// its log width over twice the normal quantile of its own confidence. NaN
// for an unusable interval.
func logSE(lo, hi, confidence float64) float64 {
	if !(lo > 0) || !(hi >= lo) || !(confidence > 0 && confidence < 1) {
		return math.NaN()
	}
	return math.Log(hi/lo) / 2 / stats.StdNormal.InvCDF((1+confidence)/2)
}

// tQuantile is Student's t quantile; moremath's TDist has no inverse, so its
// CDF is inverted numerically.
func tQuantile(df, p float64) float64 {
	return stats.InvCDF(stats.TDist{V: df})(p)
}

func sq(x float64) float64 { return x * x }

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
