package session

// hoststate.go: the host's state, seen per block by the host probe, kept out
// of comparisons between sittings (docs/methodology.md, "The host's state").
// The reference reading and the slope are the machine's: learned from every
// probed block it has recorded, of every build, and this run's.

import (
	"fmt"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/store"
)

// hostModel is how a run reads the host's state: the reference reading
// and the applied slope (0: nothing is adjusted), and what the document
// says of it (nil: no block was probed).
type hostModel struct {
	ref, beta float64
	state     *result.HostState
}

// hostModel estimates the reference reading and the slope from the
// machine's recorded blocks and the document's sittings: the slope within
// each cell of each build (stats.HostSlope), the reference the usual
// reading (stats.UsualReading).
func (hs *history) hostModel(sittings [][]result.Result) hostModel {
	groups := map[string][]stats.ProbePoint{}
	var readings []float64
	bySitting := map[string]bool{}
	add := func(build string, key store.CellKey, sitting string, meds, probes []float64) {
		if len(meds) != len(probes) {
			return
		}
		g := build + "\x00" + key.Name + "\x00" + key.Placement + "\x00" + key.CPUs
		for i, m := range meds {
			if probes[i] > 0 && m > 0 {
				groups[g] = append(groups[g], stats.ProbePoint{Median: m, Probe: probes[i]})
				readings = append(readings, probes[i])
				bySitting[sitting] = true
			}
		}
	}
	for key, ps := range hs.past {
		for _, p := range ps {
			if !p.Contended {
				add(p.Fingerprint, key, fmt.Sprint(p.SittingID), p.BlockMedians, p.BlockProbes)
			}
		}
	}
	for k, rs := range sittings {
		for i := range rs {
			r := &rs[i]
			key, ok := cellKey(r)
			if !ok || r.Contended() {
				continue
			}
			meds := stats.BlockMedians(r.Samples, result.BlockSizes(r.BlockInfo))
			add(hs.fp, key, fmt.Sprint("this", k), meds, result.BlockProbes(r.BlockInfo))
		}
	}
	if len(readings) == 0 {
		return hostModel{}
	}
	var gs [][]stats.ProbePoint
	keys := make([]string, 0, len(groups))
	for g := range groups {
		keys = append(keys, g)
	}
	slices.Sort(keys) // a stable order: the slope's sums do not depend on map order
	for _, g := range keys {
		gs = append(gs, groups[g])
	}
	slope := stats.HostSlope(gs)
	st := &result.HostState{ReferenceNS: stats.UsualReading(readings), Slope: slope, Sittings: len(bySitting)}
	switch {
	case !slope.OK:
		st.Note = fmt.Sprintf("no host effect could be estimated: %d probed blocks with too little spread in the host's speed; figures are not adjusted", slope.N)
	case slope.Applied == 0:
		st.Note = fmt.Sprintf("no host effect resolved: the blocks' figures did not move with the host's speed (slope %.2f [%.2f, %.2f] at 95%%); figures are not adjusted", slope.Beta, slope.Lo, slope.Hi)
	}
	return hostModel{ref: st.ReferenceNS, beta: slope.Applied, state: st}
}

// adjusted is a recorded sitting's figure with the host's state taken out
// (false where its blocks were not probed).
func (hm hostModel) adjusted(p store.Past) (stats.SittingFigure, bool) {
	f, ok := measured(p)
	if !ok || !probed(p.BlockProbes) {
		return f, false
	}
	return stats.Adjusted(f, p.BlockMedians, p.BlockProbes, hm.ref, hm.beta)
}

// adjust is r's host-adjusted figure and its reproducibility over the
// machine's adjusted sittings; nil where nothing is adjusted (no slope
// resolved, blocks not probed, a figure without blocks).
func (hm hostModel) adjust(past map[store.CellKey][]store.Past, key store.CellKey, build string, r *result.Result) *result.HostAdjusted {
	probes := result.BlockProbes(r.BlockInfo)
	meds := stats.BlockMedians(r.Samples, result.BlockSizes(r.BlockInfo))
	if hm.beta == 0 || !probed(probes) || len(meds) < 2 {
		return nil
	}
	f, ok := stats.Adjusted(stats.FigureOf(r.OneWayNS.Summary), meds, probes, hm.ref, hm.beta)
	if !ok {
		return nil
	}
	var ps []float64
	slow := 0
	for _, p := range probes {
		if p > 0 {
			ps = append(ps, p)
			if p >= hm.ref*(1+result.SlowThreshold) {
				slow++
			}
		}
	}
	probe := stats.Median(ps)
	out := &result.HostAdjusted{ProbeNS: probe, Slow: probe/hm.ref - 1, SlowBlocks: slow,
		Median: f.Median, CILow: f.CILow, CIHigh: f.CIHigh, Confidence: f.Confidence}
	out.Reproducibility = reproduce(past, key, build, f, r.Contended(), hm.adjusted)
	return out
}

// probed says every block has a reading.
func probed(probes []float64) bool {
	if len(probes) == 0 {
		return false
	}
	for _, p := range probes {
		if !(p > 0) || math.IsInf(p, 0) {
			return false
		}
	}
	return true
}

// promise says, before a run measures its cells, the smallest change
// between it and another sitting of this machine that compare will
// resolve (the median over the cells of stats.Between.Resolvable: on the
// host-adjusted figures' spread where the history has one, as compare
// tests them), in one line and in the document's history.
func (hs *history) promise(cells [][2]string) {
	hm := hs.hostModel(nil)
	var res []float64
	adjusted, sittings := 0, 0
	for _, c := range cells {
		key := hs.bestKey(c[0], c[1])
		b, _ := choose(hs.past, key, nil, measured)
		if hm.beta > 0 {
			if ab, _ := choose(hs.past, key, nil, hm.adjusted); ab.OK {
				b = ab
				adjusted++
			}
		}
		if b.OK {
			res = append(res, b.Resolvable(0.05))
			sittings = max(sittings, b.Sittings)
		}
	}
	if len(res) == 0 {
		return
	}
	r := stats.Median(res)
	hs.h.Resolvable = r
	how := "on the measured figures"
	if adjusted > 0 {
		how = "on host-adjusted figures"
	}
	fmt.Fprintf(hs.log, "ctxbench: this machine's history (up to %d sittings a cell) lets compare resolve a change of about ±%.1f%% between this run and another (median over %d cells, %s, α = 0.05); --target-ci aims at a given resolution\n",
		sittings, 100*r, len(res), how)
}
