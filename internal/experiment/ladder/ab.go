package ladder

import (
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// ABChanges pairs each cell's A and B rows (an interleaved A/B's) and
// takes the change from A to B from their blocks paired by round
// (stats.PairedChange): the rounds ran A and B side by side, so what the
// host did in a round reaches both and cancels in their ratio.
func ABChanges(rs []result.Result) []result.ABChange {
	type key struct{ name, placement string }
	sides := map[key][2]*result.Result{}
	var order []key
	for i := range rs {
		r := &rs[i]
		side := map[string]int{"A": 0, "B": 1}
		s, ok := side[r.Variant]
		if !ok {
			continue
		}
		k := key{r.Name, r.Placement}
		pair, seen := sides[k]
		if !seen {
			order = append(order, k)
		}
		pair[s] = r
		sides[k] = pair
	}
	var out []result.ABChange
	for _, k := range order {
		a, b := sides[k][0], sides[k][1]
		if a == nil || b == nil {
			continue
		}
		ch := stats.PairedChange(a.Samples, result.BlockSizes(a.BlockInfo), result.BlockRounds(a.BlockInfo),
			b.Samples, result.BlockSizes(b.BlockInfo), result.BlockRounds(b.BlockInfo))
		c := result.ABChange{Name: k.name, Placement: k.placement, AMedian: a.OneWayNS.Median, BMedian: b.OneWayNS.Median, Rounds: ch.N1}
		if ch.OK {
			c.Change, c.Low, c.High, c.Confidence, c.Resolved = ch.Ratio-1, ch.Lo-1, ch.Hi-1, ch.Confidence, ch.Resolved
		}
		out = append(out, c)
	}
	return out
}
