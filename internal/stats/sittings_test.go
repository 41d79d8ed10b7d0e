package stats

import (
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/aclements/go-moremath/stats"
)

// threeLevel simulates sittings of one cell: a sitting effect (normal on
// the log scale, sdSitting), a block effect inside the sitting (sdBlock),
// and samples inside a block with a heavy tail — log-scale Student t with 3
// degrees of freedom (scaled by sdSample) plus, with probability pOutlier, a
// +30% outlier (host noise only ever slows). Blocks of perBlock samples, as
// ctxbench takes them.
type threeLevel struct {
	sdSitting, sdBlock, sdSample, pOutlier float64
	blocks, perBlock                       int
}

func studentT3(rng *rand.Rand) float64 {
	var chi2 float64
	for range 3 {
		z := rng.NormFloat64()
		chi2 += z * z
	}
	return rng.NormFloat64() / math.Sqrt(chi2/3)
}

// sitting is one sitting's samples and block sizes; shift moves its log
// level (a real change).
func (m threeLevel) sitting(rng *rand.Rand, shift float64) ([]float64, []int) {
	return m.at(rng, shift+m.sdSitting*rng.NormFloat64())
}

// at is one sitting whose sitting effect (log scale) is a: cells of a
// family measured in one sitting share it.
func (m threeLevel) at(rng *rand.Rand, a float64) ([]float64, []int) {
	v := make([]float64, 0, m.blocks*m.perBlock)
	sizes := make([]int, m.blocks)
	for b := range sizes {
		level := a + m.sdBlock*rng.NormFloat64()
		for range m.perBlock {
			x := level + m.sdSample*studentT3(rng)
			if rng.Float64() < m.pOutlier {
				x += math.Log(1.3)
			}
			v = append(v, 2400*math.Exp(x))
		}
		sizes[b] = m.perBlock
	}
	return v, sizes
}

// summarized is one simulated sitting as ctxbench records it: its summary
// and its block medians.
func (m threeLevel) summarized(rng *rand.Rand, shift float64) (Summary, []float64) {
	v, sizes := m.sitting(rng, shift)
	return SummarizeBlocks(v, sizes), BlockMedians(v, sizes)
}

// history is s−1 further sittings after first, all of one build.
func (m threeLevel) history(rng *rand.Rand, first Summary, s int) []Sitting {
	h := []Sitting{{SittingFigure: FigureOf(first)}}
	for range s - 1 {
		sum, _ := m.summarized(rng, 0)
		h = append(h, Sitting{SittingFigure: FigureOf(sum)})
	}
	return h
}

// The block-level noise of every scenario: machine-like (blocks differ by
// about 4%, samples scatter 5% with a t3 tail, 3% of samples 30% slow).
func withRatio(ratio float64) threeLevel {
	m := threeLevel{sdBlock: 0.04, sdSample: 0.05, pOutlier: 0.03, blocks: 10, perBlock: 4}
	m.sdSitting = math.Sqrt(ratio) * m.sdBlock
	return m
}

// The reproducibility interval is a prediction interval: over sitting:block
// variance ratios and history sizes (the current sitting counted among the
// S), it holds the median of another, independent sitting in at least 93% of
// trials — above 95% only while the history is short (with 2 or 3 sittings
// the variance estimate has 1–2 df: up to 99.5%) — and in 93–97.5% once it holds 10 or
// more: its level, not just above it. Its width is logged as the multiple
// of the figures' true run-to-run standard deviation.
func TestReproducibilityPredictsAnotherSitting(t *testing.T) {
	ratios := []float64{0, 0.25, 1, 4}
	sizes := []int{2, 3, 5, 10, 20}
	const trials = 1000
	var table strings.Builder
	fmt.Fprintf(&table, "\n%-6s %-3s %-6s %-8s %s", "ratio", "S", "next", "width/sd", "between CV (sd of the figure)")
	for i, ratio := range ratios {
		m := withRatio(ratio)
		rng := rand.New(rand.NewSource(int64(100 + i)))
		sd := m.figureSD(rng, 3000)
		for _, s := range sizes {
			next, width, cv := 0, 0.0, 0.0
			for range trials {
				sum, _ := m.summarized(rng, 0)
				b := BetweenSittings(m.history(rng, sum, s))
				r, ok := Reproducibility(sum.Median, sum.CILow, sum.CIHigh, sum.Confidence, sum.Blocks, b, 0.95)
				if !ok || b.Sittings != s || r.Sittings != s || r.Confidence != 0.95 || b.DF != s-1 {
					t.Fatalf("ratio %v, S %d: %+v %v from %+v", ratio, s, r, ok, b)
				}
				other, _ := m.summarized(rng, 0) // a fresh, independent sitting
				if r.Low <= other.Median && other.Median <= r.High {
					next++
				}
				width += math.Log(r.High/sum.Median) / sd
				cv += r.BetweenCV
			}
			cover := float64(next) / trials
			fmt.Fprintf(&table, "\n%-6.2f %-3d %-6.3f %-8.2f %.4f (%.4f)", ratio, s, cover, width/trials, cv/trials, sd)
			lo, hi := 0.93, 0.995 // 1–4 df: t is steep
			if s >= 10 {
				hi = 0.975
			}
			if cover < lo || cover > hi {
				t.Errorf("ratio %v, S %d: held another sitting's median in %.1f%% of trials, want %.1f–%.1f%%", ratio, s, 100*cover, 100*lo, 100*hi)
			}
		}
	}
	t.Logf("95%% reproducibility intervals, %d trials each: coverage of another sitting's median, mean half-width over the figure's true sd:%s", trials, table.String())
}

// figureSD is the true run-to-run standard deviation of a sitting's log
// median under m, from n simulated sittings.
func (m threeLevel) figureSD(rng *rand.Rand, n int) float64 {
	logs := make([]float64, n)
	for i := range logs {
		v, _ := m.sitting(rng, 0)
		logs[i] = math.Log(Median(v))
	}
	mu := mean(logs)
	var ss float64
	for _, y := range logs {
		ss += sq(y - mu)
	}
	return math.Sqrt(ss / float64(n-1))
}

// A history of several builds on one machine: each build moves the figure
// (here by up to ±20%), its sittings scatter about it as on any build. The
// spread pooled within builds is the machine's and serves a build the
// history has never seen: with 4 builds of 4 sittings each, a new build's
// sitting's interval holds that build's next sitting in 93–97.5%, and two
// sittings of a new build with no change between them are called
// different in 2.5–7.5% at α = 0.05. Pooling across builds without
// centring each would count the builds' differences as noise: its DF and
// Var are checked against the centred estimate by hand.
func TestBetweenSittingsAcrossBuilds(t *testing.T) {
	const trials = 1000
	m := withRatio(1)
	rng := rand.New(rand.NewSource(700))
	next, fp := 0, 0
	for range trials {
		var h []Sitting
		for g := range 4 {
			shift := (rng.Float64()*2 - 1) * math.Log(1.2)
			for range 4 {
				sum, _ := m.summarized(rng, shift)
				h = append(h, Sitting{SittingFigure: FigureOf(sum), Build: fmt.Sprint("build", g)})
			}
		}
		b := BetweenSittings(h)
		if !b.OK || b.DF != 12 || b.Sittings != 16 || b.Builds != 4 {
			t.Fatalf("four builds of four sittings: %+v", b)
		}
		shift := (rng.Float64()*2 - 1) * math.Log(1.2)
		sum, _ := m.summarized(rng, shift)
		r, _ := Reproducibility(sum.Median, sum.CILow, sum.CIHigh, sum.Confidence, sum.Blocks, b, 0.95)
		other, _ := m.summarized(rng, shift)
		if r.Low <= other.Median && other.Median <= r.High {
			next++
		}
		if SittingChange(FigureOf(sum), FigureOf(other), b, 0.05).Resolved {
			fp++
		}
	}
	cover, fpr := float64(next)/trials, float64(fp)/trials
	t.Logf("a new build against a machine's four: coverage %.3f, false positives %.3f", cover, fpr)
	if cover < 0.93 || cover > 0.975 {
		t.Errorf("coverage of a new build's next sitting %.1f%%, want 93–97.5%%", 100*cover)
	}
	if fpr < 0.025 || fpr > 0.075 {
		t.Errorf("identical sittings of a new build called different in %.1f%%, want 2.5–7.5%%", 100*fpr)
	}
}

// The reproducibility interval is SittingChange's acceptance region: it
// holds another sitting's median exactly when SittingChange would not call
// the two different, for another sitting of typical precision (the
// precision interval no longer enters it).
// Outside the interval is always a change; a noisier other sitting only
// widens SittingChange, so inside it is never one. Disagreement is allowed
// only within floating-point tolerance of the boundary.
func TestReproducibilityAgreesWithSittingChange(t *testing.T) {
	z := stats.StdNormal.InvCDF(0.975)
	for _, pooled := range []bool{false, true} {
		rng := rand.New(rand.NewSource(600))
		checked, exact, clamped, noisier, boundary := 0, 0, 0, 0, 0
		for trial := range 400 {
			m := withRatio([]float64{0, 0.25, 1, 4}[trial%4])
			s := 2 + trial%7
			sum, _ := m.summarized(rng, 0)
			b := BetweenSittings(m.history(rng, sum, s))
			if pooled {
				b = PoolBetween([]Between{b, BetweenSittings(m.history(rng, sum, s))})
			}
			level := []float64{0.95, 0.8}[trial%2]
			r, ok := Reproducibility(sum.Median, sum.CILow, sum.CIHigh, sum.Confidence, sum.Blocks, b, level)
			if !ok {
				t.Fatalf("no interval from %+v", b)
			}
			this := FigureOf(sum)
			halfLo, halfHi := math.Log(sum.Median/r.Low), math.Log(r.High/sum.Median)
			for k := range 8 {
				var d float64
				switch k {
				case 0:
					d = halfHi
				case 1:
					d = -halfLo
				default:
					d = (rng.Float64()*3 - 1.5) * math.Max(halfLo, halfHi)
				}
				other := this
				other.Median = sum.Median * math.Exp(d)
				typical := k%2 == 0
				se := math.Sqrt(b.Precision) * (0.3 + 0.7*rng.Float64())
				if !typical {
					se = math.Sqrt(b.Precision) * (1 + 2*rng.Float64())
				}
				other.CILow, other.CIHigh, other.Confidence = other.Median*math.Exp(-z*se), other.Median*math.Exp(z*se), 0.95
				other.Blocks = 2 + rng.Intn(20) // the blocks do not enter
				c := SittingChange(this, other, b, 1-level)
				if !c.OK {
					t.Fatalf("change %+v", c)
				}
				inside := r.Low <= other.Median && other.Median <= r.High
				half := halfHi
				if d < 0 {
					half = halfLo
				}
				near := math.Abs(math.Abs(d)-half) <= 1e-9*half
				binds := d < 0 && r.Low == sum.CILow || d >= 0 && r.High == sum.CIHigh
				checked++
				if near {
					boundary++
					continue
				}
				switch {
				case typical && !binds:
					exact++
					if inside == c.Resolved {
						t.Errorf("pooled %v, S %d: another median %v, interval [%v, %v], inside %v, but change %+v", pooled, s, other.Median, r.Low, r.High, inside, c)
					}
				case typical:
					clamped++
					if !inside && !c.Resolved {
						t.Errorf("pooled %v, S %d: another median %v outside [%v, %v] but not called a change: %+v", pooled, s, other.Median, r.Low, r.High, c)
					}
				case !binds:
					noisier++
					if inside && c.Resolved {
						t.Errorf("pooled %v, S %d: a noisier sitting's median %v inside [%v, %v] called a change: %+v", pooled, s, other.Median, r.Low, r.High, c)
					}
				}
			}
		}
		t.Logf("pooled %v: %d pairs; of a typical other sitting, %d checked both ways, %d one way (the precision interval the wider); %d noisier checked one way; %d on the boundary", pooled, checked, exact, clamped, noisier, boundary)
		if exact < checked/4 {
			t.Errorf("pooled %v: only %d of %d pairs checked both ways", pooled, exact, checked)
		}
	}
}

// compareHistory is the history compare learns the spread from, in real
// use the sittings before the new one: s sittings that either include the
// base (older) sitting of the pair or are apart from both. Never the new
// one.
func (m threeLevel) compareHistory(rng *rand.Rand, base Summary, s int, withBase bool) Between {
	if withBase {
		return BetweenSittings(m.history(rng, base, s))
	}
	first, _ := m.summarized(rng, 0)
	return BetweenSittings(m.history(rng, first, s))
}

// compare on sittings at α = 0.05, with the spread learned from 5 or 20
// sittings before the new one (the base among them, or apart from both):
// two new sittings of one truth are called different in 2–8% of trials
// whatever the sitting effect (its level, not just under it); a real 10%
// change is found in at least 80% on a quiet cell (blocks 2%, samples 3%,
// a 1% sitting effect) with 20 sittings. Resolvable, what aa and a run
// promise, is SittingChange's half-width for two typical sittings: it is
// checked to lie within a factor 1.25 of the half-widths SittingChange
// actually gave.
func TestSittingChangeFalsePositivesAndPower(t *testing.T) {
	const trials = 1000
	quiet := threeLevel{sdSitting: 0.01, sdBlock: 0.02, sdSample: 0.03, pOutlier: 0.03, blocks: 10, perBlock: 4}
	models := []threeLevel{withRatio(0), withRatio(0.25), withRatio(1), withRatio(4), quiet}
	var table strings.Builder
	for i, m := range models {
		for _, withBase := range []bool{true, false} {
			rng := rand.New(rand.NewSource(int64(400 + i)))
			for _, s := range []int{5, 20} {
				fp, found := 0, 0
				var promised, given []float64
				for range trials {
					sa, _ := m.summarized(rng, 0)
					b := m.compareHistory(rng, sa, s, withBase)
					sb, _ := m.summarized(rng, 0)
					c := SittingChange(FigureOf(sa), FigureOf(sb), b, 0.05)
					if !c.OK || c.Method != "sittings" || c.N1 != 10 || c.N2 != 10 || c.Confidence != 0.95 {
						t.Fatalf("change %+v", c)
					}
					if c.Resolved != (c.P < 0.05) || !(c.Lo <= c.Ratio && c.Ratio <= c.Hi) {
						t.Fatalf("inconsistent change %+v", c)
					}
					if c.Resolved {
						fp++
					}
					promised = append(promised, b.Resolvable(0.05))
					given = append(given, c.Resolvable)
					sd, _ := m.summarized(rng, math.Log(1.10))
					if c := SittingChange(FigureOf(sa), FigureOf(sd), b, 0.05); c.Resolved && c.Ratio > 1 {
						found++
					}
				}
				fpr, power := float64(fp)/trials, float64(found)/trials
				ratio := Median(promised) / Median(given)
				fmt.Fprintf(&table, "\nsitting %.3f, blocks %.2f, samples %.2f, S %2d, %-10s: false positives %.3f, power on +10%% %.3f, resolvable promised/given %.2f", m.sdSitting, m.sdBlock, m.sdSample, s, historyName(withBase), fpr, power, ratio)
				if fpr < 0.02 || fpr > 0.08 {
					t.Errorf("%+v, S %d, %s: false-positive rate %.1f%%, want 2–8%%", m, s, historyName(withBase), 100*fpr)
				}
				if m == quiet && s == 20 && power < 0.8 {
					t.Errorf("quiet cell, 1%% sitting effect, S 20, %s: power on a 10%% change %.1f%%, want ≥ 80%%", historyName(withBase), 100*power)
				}
				if ratio < 1/1.25 || ratio > 1.25 {
					t.Errorf("%+v, S %d: Resolvable promised %.2f× what SittingChange gave", m, s, ratio)
				}
				if m == quiet && s == 20 {
					// What Resolvable promises is a change found in 80% of pairs.
					size, hit := Median(promised), 0
					for range 500 {
						sa, _ := m.summarized(rng, 0)
						b := m.compareHistory(rng, sa, s, withBase)
						sb, _ := m.summarized(rng, math.Log1p(size))
						if c := SittingChange(FigureOf(sa), FigureOf(sb), b, 0.05); c.Resolved && c.Ratio > 1 {
							hit++
						}
					}
					fmt.Fprintf(&table, "\n  a change of the promised %.1f%% found in %.3f of pairs", 100*size, float64(hit)/500)
					if p := float64(hit) / 500; p < 0.7 || p > 0.9 {
						t.Errorf("quiet cell, S 20, %s: a change of the promised %.1f%% found in %.1f%% of pairs, want 70–90%%", historyName(withBase), 100*size, 100*p)
					}
				}
			}
		}
	}
	t.Logf("compare across sittings at α = 0.05, %d trials each (log-scale sd of the sitting effect, blocks, samples; history with the base sitting or apart from both):%s", trials, table.String())
}

func historyName(withBase bool) string {
	if withBase {
		return "with base"
	}
	return "apart"
}

// A sitting noisier than the history's (6 blocks, each 3× as scattered)
// is not called a change against an ordinary one much more often than α:
// its precision surplus widens the comparison (≤ 10% asked, as the surplus
// is read from one interval's width). The ordinary sitting is the base, in
// the history or not; the noisy one is new.
func TestSittingChangeNoisySitting(t *testing.T) {
	const trials = 800
	for i, ratio := range []float64{0, 1} {
		m := withRatio(ratio)
		noisy := m
		noisy.sdBlock *= 3
		noisy.blocks = 6
		for _, withBase := range []bool{true, false} {
			rng := rand.New(rand.NewSource(int64(500 + i)))
			for _, s := range []int{5, 20} {
				fp := 0
				for range trials {
					sa, _ := m.summarized(rng, 0)
					b := m.compareHistory(rng, sa, s, withBase)
					sb, _ := noisy.summarized(rng, 0)
					if SittingChange(FigureOf(sa), FigureOf(sb), b, 0.05).Resolved {
						fp++
					}
				}
				fpr := float64(fp) / trials
				t.Logf("noisy sitting against an ordinary one, ratio %v, S %d, %s: false positives %.3f", ratio, s, historyName(withBase), fpr)
				if fpr > 0.10 {
					t.Errorf("ratio %v, S %d, %s: a noisy sitting was called different in %.1f%% of pairs, want ≤ 10%%", ratio, s, historyName(withBase), 100*fpr)
				}
			}
		}
	}
}

// Sets of sittings (compare of several files per side): with n sittings a
// side and the machine's spread learned from 10 sittings, identical sets
// are called different in 2–8%, and a 5% change is found in at least 80%
// with five sittings a side on the quiet cell. Without a history the sets'
// own scatter is used (fewer df, wider).
func TestSetChange(t *testing.T) {
	const trials = 800
	quiet := threeLevel{sdSitting: 0.01, sdBlock: 0.02, sdSample: 0.03, pOutlier: 0.03, blocks: 10, perBlock: 4}
	for i, m := range []threeLevel{withRatio(1), quiet} {
		rng := rand.New(rand.NewSource(int64(800 + i)))
		for _, learned := range []bool{true, false} {
			for _, n := range []int{3, 5} {
				fp, found := 0, 0
				for range trials {
					var b Between
					if learned {
						first, _ := m.summarized(rng, 0)
						b = BetweenSittings(m.history(rng, first, 10))
					}
					set := func(shift float64) []SittingFigure {
						out := make([]SittingFigure, n)
						for k := range out {
							s, _ := m.summarized(rng, shift)
							out[k] = FigureOf(s)
						}
						return out
					}
					a := set(0)
					c := SetChange(a, set(0), b, 0.05)
					if !c.OK || c.N1 != n || c.N2 != n || c.Method != UnitSets {
						t.Fatalf("set change %+v", c)
					}
					if c.Resolved {
						fp++
					}
					if d := SetChange(a, set(math.Log(1.05)), b, 0.05); d.Resolved && d.Ratio > 1 {
						found++
					}
				}
				fpr, power := float64(fp)/trials, float64(found)/trials
				t.Logf("sets of %d, sitting sd %.3f, learned %v: false positives %.3f, power on +5%% %.3f", n, m.sdSitting, learned, fpr, power)
				if fpr < 0.02 || fpr > 0.08 {
					t.Errorf("sets of %d, learned %v: false positives %.1f%%, want 2–8%%", n, learned, 100*fpr)
				}
				if m == quiet && n == 5 && learned && power < 0.8 {
					t.Errorf("quiet, sets of 5, learned: found a 5%% change in %.1f%%, want ≥ 80%%", 100*power)
				}
			}
		}
	}
	if c := SetChange([]SittingFigure{{Median: 1, CILow: 0.9, CIHigh: 1.1, Confidence: 0.95, Blocks: 10}}, []SittingFigure{{Median: 1.2, CILow: 1.1, CIHigh: 1.3, Confidence: 0.95, Blocks: 10}}, Between{}, 0.05); c.OK {
		t.Errorf("one sitting a side and no history: %+v, want no interval", c)
	}
}

func fig(m, se float64) SittingFigure {
	z := stats.StdNormal.InvCDF(0.975)
	return SittingFigure{Median: m, CILow: m * math.Exp(-z*se), CIHigh: m * math.Exp(z*se), Confidence: 0.95, Blocks: 10}
}

func TestBetweenSittingsKnownValues(t *testing.T) {
	e := math.Exp
	// Build a: logs 0, 0.2 (mean 0.1); build b: 1, 1.1, 1.3 (mean 1.1333):
	// SS = 0.02 + (0.0178 + 0.0011 + 0.0278) = 0.0667 on 1 + 2 df.
	b := BetweenSittings([]Sitting{
		{fig(e(0), 0.01), "a"}, {fig(e(0.2), 0.01), "a"},
		{fig(e(1), 0.02), "b"}, {fig(e(1.1), 0.02), "b"}, {fig(e(1.3), 0.02), "b"},
	})
	ssb := sq(1-3.4/3) + sq(1.1-3.4/3) + sq(1.3-3.4/3)
	if !b.OK || b.Pooled || b.Sittings != 5 || b.Builds != 2 || b.DF != 3 || !near9(b.Var, (0.02+ssb)/3) || !near9(b.Precision, (2*0.0001+3*0.0004)/5) || b.Method != MethodFigures {
		t.Errorf("known values: %+v", b)
	}
	// Unusable figures are skipped; a build of one sitting adds no df.
	bad := fig(e(5), 0.01)
	bad.Blocks = 1
	same := BetweenSittings([]Sitting{
		{fig(e(0), 0.01), "a"}, {fig(e(0.2), 0.01), "a"}, {bad, "a"},
		{fig(e(1), 0.02), "b"}, {fig(e(1.1), 0.02), "b"}, {fig(e(1.3), 0.02), "b"},
		{fig(e(7), 0.01), "c"},
	})
	if !same.OK || same.DF != 3 || same.Sittings != 6 || same.Builds != 3 || !near9(same.Var, b.Var) {
		t.Errorf("with unusable figures and a lone build: %+v", same)
	}
	for _, bad := range [][]Sitting{nil, {{fig(1, 0.01), ""}}, {{fig(1, 0.01), "a"}, {fig(2, 0.01), "b"}}} {
		if b := BetweenSittings(bad); b.OK {
			t.Errorf("%v: OK %+v, want no degree of freedom", bad, b)
		}
	}
}

func near9(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestPoolBetween(t *testing.T) {
	p := PoolBetween([]Between{
		{Var: 0.01, Precision: 0.001, DF: 4, Sittings: 5, Method: MethodFigures, OK: true},
		{Var: 0.04, Precision: 0.002, DF: 1, Sittings: 2, Method: MethodFigures, OK: true},
		{Var: 9, DF: 9, Sittings: 10}, // no estimate: ignored
	})
	if !p.OK || !p.Pooled || p.DF != 4 || p.Sittings != 5 || p.Cells != 2 || !near9(p.Var, (4*0.01+0.04)/5) || !near9(p.Precision, (4*0.001+0.002)/5) {
		t.Errorf("pooled %+v", p)
	}
	if q := PoolBetween([]Between{{Var: 1, DF: 3}, {Var: math.NaN(), DF: 2, OK: true}}); q.OK {
		t.Errorf("nothing usable pooled to %+v", q)
	}
	if q := PoolBetween(nil); q.OK {
		t.Errorf("empty pool %+v", q)
	}
}

// Reproducibility by hand: the half-width is t(DF)·sqrt(2·Var + surplus)
// on the log scale; a noisier sitting than the history's widens, a
// quieter one does not narrow.
func TestReproducibilityByHand(t *testing.T) {
	z := stats.StdNormal.InvCDF(0.975)
	lo, hi := 100*math.Exp(-0.01), 100*math.Exp(0.01)
	se := 0.01 / z
	own := Between{Var: 0.001, Precision: se * se, DF: 4, Sittings: 5, Method: MethodFigures, OK: true}
	r, ok := Reproducibility(100, lo, hi, 0.95, 10, own, 0.95)
	half := tQuantile(4, 0.975) * math.Sqrt(2*0.001)
	if !ok || !near9(r.Low, 100*math.Exp(-half)) || !near9(r.High, 100*math.Exp(half)) || r.Sittings != 5 || !near9(r.BetweenCV, math.Sqrt(math.Expm1(0.001))) || r.Confidence != 0.95 {
		t.Errorf("own: %+v, want ±%v in log", r, half)
	}
	// Twice the history's typical se: surplus (4 − surplusFrom)·se².
	wide, _ := Reproducibility(100, 100*math.Exp(-0.02), 100*math.Exp(0.02), 0.95, 10, own, 0.95)
	half2 := tQuantile(4, 0.975) * math.Sqrt(2*0.001+(4-surplusFrom)*se*se)
	if !near9(wide.High, 100*math.Exp(half2)) {
		t.Errorf("noisier sitting: high %v, want %v", wide.High, 100*math.Exp(half2))
	}
	if quiet, _ := Reproducibility(100, 100*math.Exp(-0.005), 100*math.Exp(0.005), 0.95, 10, own, 0.95); !near9(quiet.High, r.High) {
		t.Errorf("quieter sitting: %+v, want %+v", quiet, r)
	}
	// A spread of zero and a typical sitting: nothing moves, the
	// interval is the figure (the precision interval is not kept whole).
	none := Between{Precision: se * se, DF: 19, Sittings: 20, Method: MethodFigures, OK: true}
	if n, ok := Reproducibility(100, lo, hi, 0.95, 10, none, 0.95); !ok || n.Low != 100 || n.High != 100 || n.BetweenCV != 0 {
		t.Errorf("no spread: %+v, want [100, 100]", n)
	}
	// Resolvable: the same variance and quantile for two typical sittings,
	// scaled to the change found in 80% of pairs: (t(0.8) + t(0.975)) / t(0.975).
	rel := (math.Exp(half) - math.Exp(-half)) / 2
	if got, want := own.Resolvable(0.05), rel*(tQuantile(4, 0.8)+tQuantile(4, 0.975))/tQuantile(4, 0.975); !near9(got, want) {
		t.Errorf("resolvable %v, want %v", got, want)
	}
}

func TestReproducibilityRefusesBadInput(t *testing.T) {
	good := Between{Var: 0.001, Precision: 1e-4, DF: 4, Sittings: 5, Method: MethodFigures, OK: true}
	old := good
	old.Method = "" // a component stored by an older ctxbench: another estimate
	nan := math.NaN()
	for _, c := range []struct {
		m, lo, hi, conf float64
		blocks          int
		b               Between
		level           float64
	}{
		{100, 95, 105, 0.95, 10, Between{Sittings: 1}, 0.95},
		{100, 95, 105, 0.95, 10, old, 0.95},
		{100, 95, 105, 0.95, 1, good, 0.95},
		{100, 95, 105, 0.95, 0, good, 0.95},
		{nan, 95, 105, 0.95, 10, good, 0.95},
		{100, nan, 105, 0.95, 10, good, 0.95},
		{100, 95, nan, 0.95, 10, good, 0.95},
		{100, 95, math.Inf(1), 0.95, 10, good, 0.95},
		{-100, -105, -95, 0.95, 10, good, 0.95},
		{100, 0, 105, 0.95, 10, good, 0.95},
		{100, 105, 95, 0.95, 10, good, 0.95},
		{100, 95, 105, nan, 10, good, 0.95},
		{100, 95, 105, 1, 10, good, 0.95},
		{100, 95, 105, 0.95, 10, good, 1},
		{100, 95, 105, 0.95, 10, good, nan},
		{100, 95, 105, 0.95, 10, Between{Var: nan, DF: 4, Method: MethodFigures, OK: true}, 0.95},
		{100, 95, 105, 0.95, 10, Between{Var: 0.01, Method: MethodFigures, OK: true}, 0.95}, // no df
		{100, 95, 105, 0.95, 10, Between{Var: -0.01, DF: 4, Method: MethodFigures, OK: true}, 0.95},
	} {
		if r, ok := Reproducibility(c.m, c.lo, c.hi, c.conf, c.blocks, c.b, c.level); ok {
			t.Errorf("%+v: got %+v, want refused", c, r)
		}
	}
}

func TestSittingChangeByHand(t *testing.T) {
	own := Between{Var: 0.001, Precision: 1e-4, DF: 4, Sittings: 5, Method: MethodFigures, OK: true}
	se := 0.01 // = sqrt(Precision): no surplus
	c := SittingChange(fig(100, se), fig(110, se), own, 0.05)
	sd := math.Sqrt(2 * 0.001)
	d := math.Log(1.1)
	half := tQuantile(4, 0.975) * sd
	if !c.OK || !near9(c.Ratio, 1.1) || !near9(c.Lo, math.Exp(d-half)) || !near9(c.Hi, math.Exp(d+half)) || c.Resolved || c.Method != "sittings" {
		t.Errorf("change %+v", c)
	}
	if want := 2 * (1 - stats.TDist{V: 4}.CDF(d/sd)); !near9(c.P, want) {
		t.Errorf("p %v, want %v", c.P, want)
	}
	if r := SittingChange(fig(110, se), fig(100, se), own, 0.05); !near9(r.Ratio, 1/c.Ratio) || !near9(r.Lo, 1/c.Hi) || !near9(r.P, c.P) {
		t.Errorf("swapped %+v against %+v", r, c)
	}
	if s := SittingChange(fig(100, se), fig(100, se), own, 0.05); !s.OK || s.P != 1 || s.Ratio != 1 {
		t.Errorf("no change: %+v", s)
	}
	bad := fig(100, se)
	bad.Median = math.NaN()
	one := fig(100, se)
	one.Blocks = 1
	old := own
	old.Method = ""
	for _, c := range []Change{
		SittingChange(bad, fig(100, se), own, 0.05),
		SittingChange(fig(100, se), one, own, 0.05),
		SittingChange(fig(100, se), fig(100, se), Between{Sittings: 1}, 0.05),
		SittingChange(fig(100, se), fig(100, se), own, 0),
		SittingChange(fig(100, se), fig(100, se), old, 0.05),
	} {
		if c.OK || !math.IsNaN(c.Ratio) || c.Resolved {
			t.Errorf("unusable input gave %+v", c)
		}
	}
}
