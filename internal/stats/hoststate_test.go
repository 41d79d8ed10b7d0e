package stats

import (
	"fmt"
	"math"
	"math/rand"
	"testing"
)

// hostSim is a cell on a host like the reference machine's: blocks scatter
// by sdBlock, samples by sdSample; the host is in a slow state for a run
// of blocks now and then (entering with pEnter per block, staying with
// pStay), a slow state raising the probe's log reading by 0.1–0.5 and the
// hop's by beta times that; the probe reads its state with probeNoise.
type hostSim struct {
	sdBlock, sdSample, probeNoise float64
	pEnter, pStay, beta           float64
	blocks, perBlock              int
}

var referenceHost = hostSim{sdBlock: 0.02, sdSample: 0.03, probeNoise: 0.01, pEnter: 0.08, pStay: 0.85, beta: 0.75, blocks: 10, perBlock: 4}

// sitting is one sitting's figure, block medians and probes; shift is a
// real change (log), slowAll forces every block into one slow state.
func (h hostSim) sitting(rng *rand.Rand, shift float64, slowAll float64) (SittingFigure, []float64, []float64) {
	var v []float64
	sizes := make([]int, h.blocks)
	probes := make([]float64, h.blocks)
	state := 0.0
	for b := range sizes {
		switch {
		case slowAll > 0:
			state = slowAll
		case state > 0 && rng.Float64() < h.pStay:
		case rng.Float64() < h.pEnter:
			state = 0.1 + 0.4*rng.Float64()
		default:
			state = 0
		}
		probes[b] = 280000 * math.Exp(state+h.probeNoise*rng.NormFloat64())
		level := shift + h.beta*state + h.sdBlock*rng.NormFloat64()
		for range h.perBlock {
			v = append(v, 2400*math.Exp(level+h.sdSample*studentT3(rng)))
		}
		sizes[b] = h.perBlock
	}
	s := SummarizeBlocks(v, sizes)
	return FigureOf(s), BlockMedians(v, sizes), probes
}

// The slope within cells recovers the host's effect: its 95% interval holds
// the true beta in 90–98% of 600 simulated histories (6 sittings of 3
// cells; the probe's own noise pulls an ordinary least-squares slope a
// little towards zero, so it holds slightly less than 95%), and with no
// effect (beta 0) it is applied in at most 8%.
func TestHostSlope(t *testing.T) {
	for _, beta := range []float64{0.75, 0} {
		h := referenceHost
		h.beta = beta
		rng := rand.New(rand.NewSource(1100))
		held, applied := 0, 0
		const trials = 600
		for range trials {
			var groups [][]ProbePoint
			for range 3 {
				var g []ProbePoint
				for range 6 {
					_, meds, probes := h.sitting(rng, 0, 0)
					for b := range meds {
						g = append(g, ProbePoint{Median: meds[b], Probe: probes[b]})
					}
				}
				groups = append(groups, g)
			}
			s := HostSlope(groups)
			if !s.OK || s.N != 180 || s.DF != 176 {
				t.Fatalf("slope %+v", s)
			}
			if s.Lo <= beta && beta <= s.Hi {
				held++
			}
			if s.Applied != 0 {
				applied++
			}
		}
		cover, rate := float64(held)/trials, float64(applied)/trials
		t.Logf("beta %.2f: interval held it in %.3f, applied in %.3f", beta, cover, rate)
		if cover < 0.90 || cover > 0.98 {
			t.Errorf("beta %.2f: the slope's interval held it in %.1f%%, want 90–98%%", beta, 100*cover)
		}
		if beta == 0 && rate > 0.08 {
			t.Errorf("no host effect, yet a slope was applied in %.1f%%", 100*rate)
		}
	}
	if s := HostSlope([][]ProbePoint{{{1, 2}, {1, 2}}}); s.OK || s.Applied != 0 {
		t.Errorf("two points: %+v", s)
	}
	flat := make([]ProbePoint, 20)
	for i := range flat {
		flat[i] = ProbePoint{Median: float64(100 + i), Probe: 5}
	}
	if s := HostSlope([][]ProbePoint{flat}); s.OK {
		t.Errorf("no spread in the probe: %+v", s)
	}
}

// Comparing two sittings that met the host in different states — the base
// in its usual state, the new one slowed throughout (the probe 30% up) —
// with a history of 10 ordinary sittings: on the measured figures the
// host's slowness reads as a change (identical code called slower in over
// a fifth of pairs even against the wide spread the host gives the
// measured history); on the host-adjusted figures (the slope estimated from the
// history's blocks) identical sittings are called different in at most 8%,
// and a real −17% and +12% are found in at least 80%.
func TestAdjustedComparisonKeepsTheHostOut(t *testing.T) {
	h := referenceHost
	rng := rand.New(rand.NewSource(1200))
	const trials = 500
	var fpMeasured, fpAdjusted, found17, found12 int
	var sdM, sdA float64
	for range trials {
		var hist []Sitting
		var points []ProbePoint
		var raw [][3][]float64
		for range 10 {
			f, meds, probes := h.sitting(rng, 0, 0)
			hist = append(hist, Sitting{SittingFigure: f})
			raw = append(raw, [3][]float64{{f.Median, f.CILow, f.CIHigh}, meds, probes})
			for b := range meds {
				points = append(points, ProbePoint{Median: meds[b], Probe: probes[b]})
			}
		}
		slope := HostSlope([][]ProbePoint{points})
		ref := 280000.0
		adjust := func(f SittingFigure, meds, probes []float64) SittingFigure {
			a, ok := Adjusted(f, meds, probes, ref, slope.Applied)
			if !ok {
				t.Fatalf("cannot adjust %+v", f)
			}
			return a
		}
		var adjHist []Sitting
		for i, s := range hist {
			adjHist = append(adjHist, Sitting{SittingFigure: adjust(s.SittingFigure, raw[i][1], raw[i][2])})
		}
		bm, ba := BetweenSittings(hist), BetweenSittings(adjHist)
		sdM += math.Sqrt(bm.Var) / trials
		sdA += math.Sqrt(ba.Var) / trials
		a, am, ap := h.sitting(rng, 0, 0)
		for _, c := range []struct {
			shift float64
			count *int
		}{{0, nil}, {math.Log(0.83), &found17}, {math.Log(1.12), &found12}} {
			b, bmeds, bprobes := h.sitting(rng, c.shift, math.Log(1.3))
			adj := SittingChange(adjust(a, am, ap), adjust(b, bmeds, bprobes), ba, 0.05)
			if c.count == nil {
				if SittingChange(a, b, bm, 0.05).Resolved {
					fpMeasured++
				}
				if adj.Resolved {
					fpAdjusted++
				}
				continue
			}
			if adj.Resolved && (adj.Ratio > 1) == (c.shift > 0) {
				*c.count++
			}
		}
	}
	rate := func(n int) float64 { return float64(n) / trials }
	summary := fmt.Sprintf("identical code, slowed host: measured called different %.3f, adjusted %.3f; adjusted found -17%% %.3f, +12%% %.3f",
		rate(fpMeasured), rate(fpAdjusted), rate(found17), rate(found12))
	t.Log(summary)
	t.Logf("sd of sittings: measured %.4f adjusted %.4f", sdM, sdA)
	if rate(fpMeasured) < 0.2 {
		t.Errorf("the simulated host hardly moved the measured figures: %s", summary)
	}
	if rate(fpAdjusted) > 0.08 || rate(found17) < 0.8 || rate(found12) < 0.8 {
		t.Errorf("adjusted comparison: %s; want ≤ 8%% false, ≥ 80%% found", summary)
	}
}

// The usual reading is the lower quartile of the positive readings: it
// stays on the host's fast reading while up to three quarters of the
// blocks ran slow, moves once more than that did, and is 0 without a
// reading.
func TestUsualReading(t *testing.T) {
	fast, slow := 100.0, 150.0
	readings := func(nFast, nSlow int) []float64 {
		var r []float64
		for range nSlow {
			r = append(r, slow)
		}
		for range nFast {
			r = append(r, fast)
		}
		return append(r, 0, -1) // unread blocks
	}
	if u := UsualReading(readings(3, 9)); u != fast {
		t.Errorf("3 fast, 9 slow: usual %v, want the fast reading %v", u, fast)
	}
	if u := UsualReading(readings(2, 10)); u != slow {
		t.Errorf("2 fast, 10 slow: usual %v, want %v (more than three quarters slow)", u, slow)
	}
	if u := UsualReading([]float64{0, -5}); u != 0 {
		t.Errorf("no reading: usual %v, want 0", u)
	}
	in := []float64{130, 110, 120}
	UsualReading(in)
	if in[0] != 130 || in[1] != 110 {
		t.Errorf("the caller's readings were reordered: %v", in)
	}
}
