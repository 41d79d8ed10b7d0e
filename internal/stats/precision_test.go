package stats

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// shape is how the blocks of one sitting differ, on the log scale: block(b)
// is block b's level; samples scatter about it by sdSample with a Student t3
// tail. The truth a precision interval must hold is the median of the
// samples' whole distribution (the figure an endless sitting of that shape
// would report), found by simulating many blocks.
type shape struct {
	name     string
	block    func(rng *rand.Rand, b int) float64
	sdSample float64
	iid      bool // blocks independent: the interval must hold its level
}

// hostShapes are the block shapes of the reference machine (AMD EPYC,
// 2-vCPU Firecracker/KVM guest): blocks scatter by about 3%; a host state
// slows some blocks by 18% (here 10% or 30% of them, independently); a
// heavy tail; a drift across the sitting (±4%, which every sitting meets
// alike); and a host state that persists from block to block, which no
// interval built from one sitting can see (logged, not asserted: the
// reproducibility interval and the host probe are for it).
func hostShapes() []shape {
	slow := math.Log(1.18)
	persist := 0
	return []shape{
		{"independent, 3% blocks", func(r *rand.Rand, _ int) float64 { return 0.03 * r.NormFloat64() }, 0.03, true},
		{"10% of blocks 18% slow", func(r *rand.Rand, _ int) float64 {
			if r.Float64() < 0.1 {
				return slow + 0.01*r.NormFloat64()
			}
			return 0.01 * r.NormFloat64()
		}, 0.03, true},
		{"30% of blocks 18% slow", func(r *rand.Rand, _ int) float64 {
			if r.Float64() < 0.3 {
				return slow + 0.01*r.NormFloat64()
			}
			return 0.01 * r.NormFloat64()
		}, 0.03, true},
		{"heavy-tailed blocks", func(r *rand.Rand, _ int) float64 { return 0.02 * studentT3(r) }, 0.05, true},
		{"drift ±4%", func(r *rand.Rand, b int) float64 { return 0.08*(float64(b%10)/9-0.5) + 0.015*r.NormFloat64() }, 0.03, false},
		{"slow state persisting", func(r *rand.Rand, b int) float64 {
			if b%10 == 0 {
				persist = 0
				if r.Float64() < 0.3 {
					persist = 1
				}
			} else if r.Float64() < 0.15 {
				persist = 1 - persist
			}
			return float64(persist)*slow + 0.01*r.NormFloat64()
		}, 0.03, false},
	}
}

func (s shape) sitting(rng *rand.Rand, blocks, per int) ([]float64, []int) {
	v := make([]float64, 0, blocks*per)
	sizes := make([]int, blocks)
	for b := range sizes {
		level := s.block(rng, b)
		for range per {
			v = append(v, 2400*math.Exp(level+s.sdSample*studentT3(rng)))
		}
		sizes[b] = per
	}
	return v, sizes
}

func (s shape) truth(rng *rand.Rand) float64 {
	v, _ := s.sitting(rng, 100000, 4)
	return Median(v)
}

// The precision interval (SummarizeBlocks: the interpolated order
// statistics of the block medians' median, widened to hold the figure)
// holds the truth at its level on each side — each side missed in 0.5–4%
// of 4,000 sittings — for every shape with independent blocks, and in at
// most 7% on the slow side where 30% of blocks are slow (the median itself
// jumps there, and interpolating between order statistics across the gap
// between the two states reaches a little less far than 95% would); the
// order statistics (before 26 November 2026) and the signed-rank interval
// of the log block medians (for a day) are logged beside it.
func TestPrecisionIntervalHoldsItsLevelOnBothSides(t *testing.T) {
	const sims = 4000
	var table strings.Builder
	for i, sh := range hostShapes() {
		rng := rand.New(rand.NewSource(int64(900 + i)))
		truth := sh.truth(rng)
		var lo, hi, osLo, osHi, srLo, srHi int
		var width, osWidth, srWidth float64
		for range sims {
			v, sizes := sh.sitting(rng, 10, 4)
			s := SummarizeBlocks(v, sizes)
			if s.Interval != IntervalBlocks || s.Blocks != 10 || s.Confidence != 0.95 {
				t.Fatalf("%s: summary %+v, want the interpolated interval at 95%% from 10 blocks", sh.name, s)
			}
			if !(s.CILow <= s.Median && s.Median <= s.CIHigh) {
				t.Fatalf("%s: the interval [%v, %v] does not hold its figure %v", sh.name, s.CILow, s.CIHigh, s.Median)
			}
			if truth < s.CILow {
				lo++
			}
			if truth > s.CIHigh {
				hi++
			}
			width += math.Log(s.CIHigh/s.CILow) / 2
			os := SummarizeWindows(BlockMedians(v, sizes))
			l, h := math.Min(os.Lo, s.Median), math.Max(os.Hi, s.Median)
			if truth < l {
				osLo++
			}
			if truth > h {
				osHi++
			}
			osWidth += math.Log(h/l) / 2
			sr := CentreInterval(BlockMedians(v, sizes))
			l, h = math.Min(sr.Lo, s.Median), math.Max(sr.Hi, s.Median)
			if truth < l {
				srLo++
			}
			if truth > h {
				srHi++
			}
			srWidth += math.Log(h/l) / 2
		}
		pl, ph := float64(lo)/sims, float64(hi)/sims
		fmt.Fprintf(&table, "\n%-26s interpolated 95%%: missed below %4.1f%%, above %4.1f%%, ±%4.1f%% | order statistics 97.9%%: %4.1f%%, %4.1f%%, ±%4.1f%% | signed-rank 95.1%%: %4.1f%%, %4.1f%%, ±%4.1f%%",
			sh.name, 100*pl, 100*ph, 100*width/sims, 100*float64(osLo)/sims, 100*float64(osHi)/sims, 100*osWidth/sims,
			100*float64(srLo)/sims, 100*float64(srHi)/sims, 100*srWidth/sims)
		most := 0.04
		if sh.name == "30% of blocks 18% slow" {
			most = 0.07
		}
		if sh.iid && (pl < 0.005 || pl > most || ph < 0.005 || ph > most) {
			t.Errorf("%s: missed the truth below in %.1f%% and above in %.1f%% of sittings, want 0.5–%.0f%% each", sh.name, 100*pl, 100*ph, 100*most)
		}
		if sh.iid && width > osWidth {
			t.Errorf("%s: the interpolated interval (±%.1f%%) is wider than the order statistics' (±%.1f%%) at a lower level", sh.name, 100*width/sims, 100*osWidth/sims)
		}
	}
	t.Logf("precision intervals of 10 blocks × 4 samples, %d sittings a shape:%s", sims, table.String())
}

// CentreInterval by hand: 10 values give [W(9), W(47)] of the 55 sorted
// Walsh averages at 1 − 2·25/1024; fewer than 6 give the widest, at its own
// level; non-positive values are dropped.
func TestCentreIntervalByHand(t *testing.T) {
	v := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	var walsh []float64
	for i := range v {
		for j := i; j < len(v); j++ {
			walsh = append(walsh, (math.Log(v[i])+math.Log(v[j]))/2)
		}
	}
	slices.Sort(walsh)
	w := CentreInterval(v)
	if !w.OK || !near9(w.Lo, math.Exp(walsh[8])) || !near9(w.Hi, math.Exp(walsh[46])) || !near9(w.Confidence, 1-2*25.0/1024) || w.N != 10 {
		t.Errorf("10 values: %+v", w)
	}
	if f := CentreInterval([]float64{4, 2, -1, 0, 8}); !f.OK || f.N != 3 || !near9(f.Lo, 2) || !near9(f.Hi, 8) || f.Confidence != 0.75 {
		t.Errorf("three usable values: %+v, want [2, 8] at 75%%", f)
	}
	if f := CentreInterval([]float64{3}); f.OK {
		t.Errorf("one value: %+v", f)
	}
}
