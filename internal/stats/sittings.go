package stats

// sittings.go: reproducibility across sittings (invocations of ctxbench).
//
// A figure's precision interval (SummarizeBlocks) says where this sitting's
// median lies; the next sitting's median lies elsewhere more often than that
// interval admits, because a sitting carries an effect of its own (host
// phases of seconds, placement, frequency). Following Kalibera and Jones
// ("Rigorous Benchmarking in Reasonable Time", ISMM 2013), each level's
// variance is estimated at that level — here the level of the figure a
// user reads: the variance of a sitting's log figure (its median) about the
// centre of its build, from the machine's history of that cell,
//
//	y[g][s] = log(median of sitting s of build g) = mu_g + d_gs,
//
// pooled over the builds g the machine has measured (kernel releases,
// ctxbench builds, figure-changing settings: what is under test), since
// the spread of d is the machine's, not the build's:
//
//	Var = sum_g sum_s (y[g][s] − ȳ[g])² / sum_g (S_g − 1).
//
// Var holds everything that moves a sitting's figure — the sitting's own
// precision and the host's phases alike — and is read from the figures
// themselves, with no model of how the blocks inside a sitting relate: the
// variance of the mean of the block medians (the one-way ANOVA's MSB/n0,
// used before) over-stated it whenever the blocks inside a sitting were not
// a simple random sample of the sitting's conditions (blocks after idle
// gaps, a host that slowed a third of them), so intervals came out 5–15×
// the figures' real run-to-run variation.
//
// The reproducibility interval answers where another sitting's median on
// this machine will lie: a prediction interval for the next independent
// sitting's figure, centred on this sitting's. The two figures differ by
// two draws of d, so V = 2·Var, plus the surplus of this sitting's
// precision over the typical one (a noisier sitting than usual widens its
// own interval; a quieter one does not narrow it), with Student's t on the
// pooled degrees of freedom. SittingChange tests two sittings' figures
// with the same variance, degrees of freedom and quantile (one function,
// pairVar, computes them for both), so the interval holds another typical
// sitting's median exactly when SittingChange would not call the two
// different. A machine's Var is learned once and serves every build on it:
// comparing two builds or two kernels uses it (the figures' centres differ
// by build; their spread about it does not, which is the assumption, and
// the tests check what happens when it fails).

import (
	"math"

	"github.com/aclements/go-moremath/stats"
)

// MethodFigures names the estimate Between holds: the variance of the
// sittings' log figures about their build's centre. A component stored
// without it (files written before) was another estimate and is not used.
const MethodFigures = "figures"

// Between is the between-sittings spread of one cell (or a family of
// cells, Pooled) on one machine, on the log scale: Var is the variance of
// a sitting's log figure about its build's centre, pooled over builds; DF
// its degrees of freedom (sum over builds of sittings − 1; for a family,
// the largest single cell's); Sittings how many sittings and Builds how
// many builds it rests on; Precision the mean over those sittings of the
// squared log-scale standard error of their precision intervals (what
// Var already holds of a typical sitting's precision). OK is false with
// fewer than one degree of freedom.
type Between struct {
	Var       float64 `json:"var"`
	Precision float64 `json:"precision,omitempty"`
	DF        int     `json:"df"`
	Sittings  int     `json:"sittings"`
	Builds    int     `json:"builds,omitempty"`
	Pooled    bool    `json:"pooled,omitempty"`
	Cells     int     `json:"cells,omitempty"` // cells pooled; 0 for one cell's own
	Method    string  `json:"method,omitempty"`
	OK        bool    `json:"-"`
}

// Sitting is one sitting of a cell as a history holds it: its figure and
// the build that was measured (sittings are centred per build).
type Sitting struct {
	SittingFigure
	Build string
}

// BetweenSittings estimates the between-sittings spread of one cell from
// its sittings (the current one included). A sitting whose figure cannot be
// used (fewer than two blocks, a non-positive or non-finite value) is
// skipped; a build with one usable sitting adds to Sittings and Builds but
// no degree of freedom.
func BetweenSittings(ss []Sitting) Between {
	groups := map[string][]float64{}
	var order []string
	b := Between{Method: MethodFigures}
	for _, s := range ss {
		se, ok := s.se()
		if !ok {
			continue
		}
		if _, seen := groups[s.Build]; !seen {
			order = append(order, s.Build)
		}
		groups[s.Build] = append(groups[s.Build], math.Log(s.Median))
		b.Precision += se * se
		b.Sittings++
	}
	if b.Sittings == 0 {
		return b
	}
	b.Precision /= float64(b.Sittings)
	b.Builds = len(order)
	var ss2 float64
	for _, g := range order {
		ys := groups[g]
		mean := 0.0
		for _, y := range ys {
			mean += y
		}
		mean /= float64(len(ys))
		for _, y := range ys {
			ss2 += sq(y - mean)
		}
		b.DF += len(ys) - 1
	}
	if b.DF < 1 {
		return b
	}
	b.Var = ss2 / float64(b.DF)
	b.OK = finite(b.Var, b.Precision)
	return b
}

// PoolBetween pools the between-sittings spread over a family of cells,
// for cells with too few sittings of their own. It assumes the spread is
// relative and of one size across the family (a host phase slows every
// cell of a sitting alike). Var and Precision are the df-weighted means of
// the cells'.
//
// Degrees of freedom are not added up: the family's cells were measured in
// the same sittings and share their host phases, so their estimates are
// correlated — summing would count the same sittings several times. DF is
// the largest single cell's (and Sittings likewise), what the family
// certainly holds; under-claiming only widens the intervals. Cells without
// an estimate (not OK) are ignored; OK is false when none has one.
func PoolBetween(cells []Between) Between {
	out := Between{Pooled: true, Method: MethodFigures}
	var w float64
	for _, c := range cells {
		if !c.OK || c.DF < 1 || !finite(c.Var) {
			continue
		}
		out.Var += float64(c.DF) * c.Var
		out.Precision += float64(c.DF) * c.Precision
		w += float64(c.DF)
		out.DF = max(out.DF, c.DF)
		out.Sittings = max(out.Sittings, c.Sittings)
		out.Builds = max(out.Builds, c.Builds)
		out.Cells += max(1, c.Cells)
	}
	if w == 0 {
		return Between{Pooled: true, Method: MethodFigures}
	}
	out.Var /= w
	out.Precision /= w
	out.OK = true
	return out
}

// Resolvable is the smallest change a comparison of two typical sittings
// finds in 80% of such pairs at significance alpha (Detectable, from the
// relative half-width of SittingChange's interval for two sittings of the
// history's typical precision; NaN when b is not OK). ctxbench aa prints
// it, and a run says it before measuring, so that what they promise is
// what compare decides.
func (b Between) Resolvable(alpha float64) float64 {
	v, df, ok := b.pairVar(math.Sqrt(math.Max(0, b.Precision)), math.Sqrt(math.Max(0, b.Precision)))
	if !ok || !(alpha > 0 && alpha < 1) {
		return math.NaN()
	}
	half := halfWidth(v, df, 1-alpha)
	return Detectable((math.Exp(half)-math.Exp(-half))/2, df, 1-alpha)
}

// Repro is a reproducibility interval: where another independent sitting's
// median of a figure on this machine will lie, at Confidence, centred on
// one sitting's median. Sittings is how many sittings the spread rests on;
// BetweenCV is the figure's run-to-run coefficient of variation on this
// machine, sqrt(exp(Var)−1) (the CV of a lognormal figure with that log
// variance).
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
// independent sitting of this cell on this machine (of typical precision),
// centred on this sitting's median: on the log scale ±t·sqrt(V), V =
// 2·Var + this sitting's precision surplus (pairVar, as SittingChange), t
// Student's quantile at (1+level)/2 on b's degrees of freedom. At 95% the
// next sitting's median falls inside about 95% of the time. The interval
// holds another typical sitting's median exactly when SittingChange(this,
// other, b, 1−level) would not call the two different. It need not hold
// the precision interval: that interval is built from one sitting's
// blocks, and where a few of them ran in a slow host state it is wider
// than the median's real variation, which the sittings' own spread
// measures (until 26 November 2026 the result always held it, and
// inherited that width).
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
	v, df, ok := b.pairVar(se, math.Sqrt(math.Max(0, b.Precision)))
	if !ok {
		return Repro{}, false // another method's estimate, or one without degrees of freedom
	}
	half := halfWidth(v, df, level)
	r := Repro{
		Low:        median * math.Exp(-half),
		High:       median * math.Exp(half),
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
// its variance is 2·Var plus each side's precision surplus (pairVar, shared
// with Reproducibility), and [Lo, Hi] is the t interval at 1−alpha on the
// spread's degrees of freedom; P is the two-sided t p-value. N1, N2 are the
// blocks; Method "sittings". OK is false for unusable inputs. between
// should be learned from sittings before b (it may include a): a change is
// never judged by a spread it inflated itself.
func SittingChange(a, b SittingFigure, between Between, alpha float64) Change {
	c := Change{Method: UnitSittings, Ratio: math.NaN(), P: math.NaN(), N1: a.Blocks, N2: b.Blocks}
	sa, okA := a.se()
	sb, okB := b.se()
	if !okA || !okB || !between.OK || !(alpha > 0 && alpha < 1) {
		return c
	}
	v, df, ok := between.pairVar(sa, sb)
	if !ok {
		return c
	}
	return tChange(c, math.Log(b.Median/a.Median), v, df, alpha)
}

// tChange completes c with a log ratio d whose variance v has df degrees
// of freedom: the ratio, its t interval at 1−alpha, the two-sided p-value,
// and whether the interval excludes no change. A non-finite result leaves
// c not OK.
func tChange(c Change, d, v, df, alpha float64) Change {
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
	c.Resolvable = Detectable((c.Hi-c.Lo)/2/c.Ratio, df, c.Confidence)
	c.OK = true
	return c
}

// SetChange compares two sets of sittings of one cell (a before, b after:
// each sitting a whole run, the sittings the unit): Ratio is the ratio of
// the sets' geometric mean figures. Each sitting's log figure scatters
// about its side's centre; that spread is estimated from the two sets
// themselves (their scatter about their own means) pooled with the
// machine's learned spread when between is OK (its Var on its DF, so a
// history of many sittings lends its degrees of freedom to two small
// sets), and the variance of the difference of the means is
// spread·(1/n_a + 1/n_b), with Student's t on the pooled degrees of
// freedom. Sittings whose figure cannot be used are skipped; OK is false
// with fewer than one degree of freedom in all (one sitting a side and no
// history). Method "sittings (sets)"; N1, N2 the sittings used.
func SetChange(a, b []SittingFigure, between Between, alpha float64) Change {
	c := Change{Method: UnitSets, Ratio: math.NaN(), P: math.NaN()}
	logs := func(fs []SittingFigure) []float64 {
		var out []float64
		for _, f := range fs {
			if _, ok := f.se(); ok {
				out = append(out, math.Log(f.Median))
			}
		}
		return out
	}
	la, lb := logs(a), logs(b)
	c.N1, c.N2 = len(la), len(lb)
	if len(la) == 0 || len(lb) == 0 || !(alpha > 0 && alpha < 1) {
		return c
	}
	ma, mb := mean(la), mean(lb)
	ss, df := 0.0, float64(len(la)-1+len(lb)-1)
	for _, y := range la {
		ss += sq(y - ma)
	}
	for _, y := range lb {
		ss += sq(y - mb)
	}
	if between.OK && between.Method == MethodFigures {
		ss += between.Var * float64(between.DF)
		df += float64(between.DF)
	}
	if df < 1 {
		return c
	}
	spread := ss / df
	return tChange(c, mb-ma, spread*(1/float64(len(la))+1/float64(len(lb))), df, alpha)
}

func mean(v []float64) float64 {
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
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
// (precisions seA and seB as log-scale standard errors) and its degrees of
// freedom: the one computation behind SittingChange, Reproducibility and
// Resolvable, so that they agree. Each figure scatters about its build's
// centre with Var, which holds a typical sitting's precision; a side whose
// precision is worse than the history's typical one adds the surplus. ok is
// false when the estimate is not usable (another method's, no degrees of
// freedom, a negative or NaN variance).
func (b Between) pairVar(seA, seB float64) (v, df float64, ok bool) {
	if b.Method != MethodFigures {
		return 0, 0, false
	}
	v = 2*b.Var + b.surplus(seA) + b.surplus(seB)
	df = float64(b.DF)
	return v, df, df >= 1 && v >= 0
}

// surplus is the precision variance of a sitting beyond the typical one
// Var already holds. Never negative: a quiet sitting does not narrow an
// interval, since one interval's width is itself noisy.
func (b Between) surplus(se float64) float64 {
	return math.Max(0, se*se-surplusFrom*math.Max(0, b.Precision))
}

// halfWidth is the log-scale half-width of a t interval at level for a
// variance v with df degrees of freedom.
func halfWidth(v, df, level float64) float64 {
	return tQuantile(df, (1+level)/2) * math.Sqrt(v)
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

// TQuantile is Student's t quantile at p with df degrees of freedom.
func TQuantile(df, p float64) float64 { return tQuantile(df, p) }

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

// surplusFrom is how many times the typical precision variance a sitting's
// own must exceed before it widens a comparison: one interval's width is a
// noisy reading of its sitting's precision (with ten blocks its square
// scatters by about half its mean), so a sitting merely at the upper end of
// the usual is not penalised; one of 6 blocks each 3× as scattered is.
const surplusFrom = 2
