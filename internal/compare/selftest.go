package compare

// selftest.go: the A/A self-test's arithmetic. Given the same cells measured
// in several independent sittings, it asks of the method what a user would:
// did one run's interval hold the next run's figure, did compare call two
// identical runs different, what change could a run resolve — and of the
// machine, how much a figure moves from run to run.

import (
	"math"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// SelfTest derives what the A/A self-test's sittings say (aa.Runs, each
// one sitting's results in sitting order, as the experiment measured them
// and the session merged them) at significance level alpha; hs is the
// run's host state (nil: none), with which compare would adjust the
// sittings' figures. It sets every derived field of aa afresh and leaves
// what was measured (the sittings, their wall times, their results)
// as it is: the document and its sections are the session's to build.
func SelfTest(aa *result.AA, alpha float64, hs *result.HostState) {
	*aa = result.AA{Sittings: aa.Sittings, SittingSeconds: aa.SittingSeconds, Runs: aa.Runs, Alpha: alpha}
	order, byKey := cellsOf(aa.Runs)
	var hits, reproHits int
	var resolvable []float64
	for _, k := range order {
		cell, hit, reproHit, res := checkCell(k, byKey[k], alpha, hs)
		hits += hit
		reproHits += reproHit
		resolvable = append(resolvable, res...)
		aa.Pairs += cell.Pairs
		aa.FalsePositives += cell.FalsePositives
		aa.Comparisons += cell.Comparisons
		aa.ReproPairs += cell.ReproPairs
		aa.ReproComparisons += cell.ReproComparisons
		aa.ReproFalsePositives += cell.ReproFalsePositives
		aa.Cells = append(aa.Cells, cell)
	}
	if aa.ReproPairs > 0 {
		aa.ReproCoverage = float64(reproHits) / float64(aa.ReproPairs)
	}
	if aa.Pairs > 0 {
		aa.Coverage = float64(hits) / float64(aa.Pairs)
	}
	if aa.Comparisons > 0 {
		aa.FalseRate = float64(aa.FalsePositives) / float64(aa.Comparisons)
	}
	aa.Resolvable = stats.Median(resolvable)
	if math.IsNaN(aa.Resolvable) {
		aa.Resolvable = 0
	}
	aa.Distinct = distinctCells(order, byKey, len(aa.Runs))
}

// cellKey names a cell of the self-test.
type cellKey struct{ name, placement string }

// cellsOf gathers the sittings by cell: the cells in the order they first
// come, and per cell one result per sitting (nil: not measured).
func cellsOf(sittings [][]result.Result) ([]cellKey, map[cellKey][]*result.Result) {
	var order []cellKey
	byKey := map[cellKey][]*result.Result{}
	for s, rs := range sittings {
		for i := range rs {
			k := cellKey{rs[i].Name, rs[i].Placement}
			if _, ok := byKey[k]; !ok {
				order = append(order, k)
				byKey[k] = make([]*result.Result, len(sittings))
			}
			byKey[k][s] = &rs[i]
		}
	}
	return order, byKey
}

// checkCell asks of one cell's sittings what SelfTest asks: how far its
// figure moves, whether one sitting's precision interval held another's
// median (hit counts those that did), whether compare called adjacent
// sittings different, and the same of the reproducibility intervals
// (reproHit). resolvable is what the cell adds to the run's median of
// resolvable changes.
func checkCell(k cellKey, rs []*result.Result, alpha float64, hs *result.HostState) (cell result.AACell, hit, reproHit int, resolvable []float64) {
	cell = result.AACell{Name: k.name, Placement: k.placement}
	// A contended figure is flagged as no clean measurement: it is
	// counted, not tested.
	var present []*result.Result
	for _, r := range rs {
		switch {
		case r == nil || r.OneWayNS.Median <= 0:
		case r.Contended():
			cell.Contended++
		default:
			present = append(present, r)
		}
	}
	spread(&cell, present)
	hit = coverage(&cell, present)
	res := precisionChecks(&cell, present, alpha)
	reproHit = reproChecks(&cell, present, alpha, hs)
	cell.PrecisionResolvable = stats.Median(res)
	if cell.ReproComparisons > 0 {
		return cell, hit, reproHit, []float64{cell.Resolvable}
	}
	cell.Resolvable = cell.PrecisionResolvable
	return cell, hit, reproHit, res
}

// spread is how far a cell's figure moves from sitting to sitting against
// how wide its intervals are, and the share of its variance between blocks.
func spread(cell *result.AACell, present []*result.Result) {
	var widths, between []float64
	for _, r := range present {
		s := r.OneWayNS
		cell.Medians = append(cell.Medians, s.Median)
		widths = append(widths, math.Max(s.CIHigh-s.Median, s.Median-s.CILow)/s.Median)
		if sp := stats.Spread(r.Samples, result.BlockSizes(r.BlockInfo)); sp.OK {
			between = append(between, sp.Between)
		}
	}
	cell.RunToRun = stats.Summarize(cell.Medians).CV
	cell.HalfWidth = stats.Summarize(widths).Mean
	cell.BetweenBlocks = stats.Median(between)
}

// coverage counts the ordered pairs of sittings (i, j), i ≠ j, and returns
// how many of them held sitting j's median inside sitting i's precision
// interval.
func coverage(cell *result.AACell, present []*result.Result) int {
	hit := 0
	for i, a := range present {
		for j, b := range present {
			if i == j {
				continue
			}
			cell.Pairs++
			if a.OneWayNS.CILow <= b.OneWayNS.Median && b.OneWayNS.Median <= a.OneWayNS.CIHigh {
				hit++
			}
		}
	}
	if cell.Pairs > 0 {
		cell.Coverage = float64(hit) / float64(cell.Pairs)
	}
	return hit
}

// precisionChecks compares adjacent sittings on their blocks alone (every
// call of a difference is a false positive: the runs are identical) and
// returns the smallest change each comparison could resolve.
func precisionChecks(cell *result.AACell, present []*result.Result, alpha float64) []float64 {
	var res []float64
	for i := 1; i < len(present); i++ {
		a, b := present[i-1], present[i]
		ch := stats.CompareBlocks(a.Samples, result.BlockSizes(a.BlockInfo), b.Samples, result.BlockSizes(b.BlockInfo), alpha)
		if !ch.OK {
			continue
		}
		cell.Comparisons++
		if ch.Resolved {
			cell.FalsePositives++
		}
		res = append(res, ch.Resolvable)
	}
	return res
}

// distinctCells asks, of every two different cells within each sitting,
// whether the method could tell them apart (paired by round, as every
// within-run contrast should be).
func distinctCells(order []cellKey, byKey map[cellKey][]*result.Result, sittings int) []result.AADistinct {
	var out []result.AADistinct
	for i, ka := range order {
		for _, kb := range order[i+1:] {
			d := result.AADistinct{Base: ka.name + " " + ka.placement, Other: kb.name + " " + kb.placement}
			var changes []float64
			for s := range sittings {
				a, b := byKey[ka][s], byKey[kb][s]
				if a == nil || b == nil || a.Contended() || b.Contended() {
					continue
				}
				// Blocks of one round ran side by side: pair them.
				ch := stats.PairedChange(a.Samples, result.BlockSizes(a.BlockInfo), result.BlockRounds(a.BlockInfo),
					b.Samples, result.BlockSizes(b.BlockInfo), result.BlockRounds(b.BlockInfo))
				if !ch.OK {
					continue
				}
				d.Sittings++
				if ch.Resolved {
					d.Resolved++
				}
				changes = append(changes, ch.Ratio-1)
			}
			if d.Sittings > 0 {
				d.Change = stats.Median(changes)
				out = append(out, d)
			}
		}
	}
	return out
}

// reproChecks asks of the reproducibility intervals what SelfTest asks of
// the precision intervals, over the sittings of one cell that had one, and
// only of what each had not seen: whether sitting i's interval held the
// median of every later sitting j (the next sitting's figure is what it
// promises), and whether compare, testing adjacent sittings against the
// component learned before the later one, called them different. It
// returns the hits of the coverage check.
//
// The comparisons are compare's own (decide): on host-adjusted figures
// where the sittings have them, and cell.Resolvable is the median over the
// adjacent pairs of the smallest change compare could resolve between
// them — what aa promises is what compare decides.
func reproChecks(cell *result.AACell, present []*result.Result, alpha float64, hs *result.HostState) int {
	hit := 0
	var widths []float64
	for i, a := range present {
		rp := a.OneWayNS.Reproducibility
		if rp == nil {
			continue
		}
		widths = append(widths, rp.Half(a.OneWayNS.Median))
		cell.BetweenCV = rp.BetweenCV
		for _, b := range present[i+1:] {
			cell.ReproPairs++
			if rp.Low <= b.OneWayNS.Median && b.OneWayNS.Median <= rp.High {
				hit++
			}
		}
	}
	if cell.ReproPairs > 0 {
		cell.ReproCoverage = float64(hit) / float64(cell.ReproPairs)
	}
	if len(widths) > 0 {
		cell.ReproHalfWidth = stats.Summarize(widths).Mean
	}
	var res []float64
	for i := 1; i < len(present); i++ {
		a, b := present[i-1], present[i]
		ch, adjusted := decide(hs, cellOf(a), cellOf(b), alpha)
		if !ch.OK || ch.Method != stats.UnitSittings {
			continue
		}
		cell.ReproComparisons++
		if adjusted {
			cell.HostAdjusted++
		}
		if ch.Resolved {
			cell.ReproFalsePositives++
		}
		res = append(res, ch.Resolvable)
	}
	cell.Resolvable = stats.Median(res)
	return hit
}

// cellOf is a ladder row as compare reads it.
func cellOf(r *result.Result) Cell {
	return Cell{Present: true, Placement: r.Placement, Summary: r.OneWayNS.Summary, Samples: r.Samples, Sizes: result.BlockSizes(r.BlockInfo),
		Repro: r.OneWayNS.Reproducibility, CPUs: result.CellCPUs(r), Adjusted: r.HostAdjusted, Probes: result.BlockProbes(r.BlockInfo)}
}
