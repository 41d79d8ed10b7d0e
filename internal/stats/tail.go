package stats

// tail.go: the interval of a percentile (p50 ... p99.9) of latencies
// recorded in blocks, blocks as the unit. Each block's own percentile is
// an estimate; their spread says how far the pooled percentile (the
// figure: the percentile of every value of every block together) may lie
// from the percentile of the process that made them. On the log scale, the
// pooled estimate ± t(B−1) · sd(block log-percentiles)/√B: the blocks'
// spread carries both the sampling error of a percentile and what differs
// between blocks (a process's page placement, a stretch of host noise), as
// a figure's block-median interval does (docs/methodology.md). Tested on
// simulated two-level data with a known percentile (tail_test.go).
//
// A percentile needs values beyond it: with fewer than MinBeyondPooled
// values above it in all blocks together it is not reported (Lancet's rule
// of refusing an unmeasurable tail: Kogias et al., "Lancet: A
// self-correcting Latency Measuring Tool", USENIX ATC 2019), and with fewer
// than MinBeyondBlock in some block the blocks' own percentiles are mostly
// their maxima, whose spread does not describe the pooled figure's: it is
// reported without an interval, and says why.

import (
	"fmt"
	"math"
)

// The fewest values beyond a percentile for it to be reported at all, and
// for it to get an interval from its blocks.
const (
	MinBeyondPooled = 10
	MinBeyondBlock  = 5
)

// TailEstimate is a percentile with its interval. OK says the value is
// reported; HasInterval that [Lo, Hi] is its interval at Confidence; Why
// says what is missing and why.
type TailEstimate struct {
	Value, Lo, Hi, Confidence float64
	OK, HasInterval           bool
	Why                       string
}

// TailInterval is percentile q (0 < q < 1) estimated as pooled from all
// values of the blocks, whose own percentiles are blocks and sizes how many
// values each holds.
func TailInterval(q, pooled float64, blocks []float64, sizes []uint64) TailEstimate {
	e := TailEstimate{Value: pooled}
	var n uint64
	for _, s := range sizes {
		n += s
	}
	name := fmt.Sprintf("p%g", 100*q)
	if beyond := float64(n) * (1 - q); beyond < MinBeyondPooled {
		e.Why = fmt.Sprintf("%s needs %d values beyond it and %d values hold %.1f: not measured", name, MinBeyondPooled, n, beyond)
		return e
	}
	if !(pooled > 0) {
		e.Why = name + " is not positive"
		return e
	}
	e.OK = true
	if len(blocks) < 2 || len(blocks) != len(sizes) {
		e.Why = fmt.Sprintf("%d block(s): no interval", len(blocks))
		return e
	}
	var sum, sum2 float64
	for i, v := range blocks {
		if beyond := float64(sizes[i]) * (1 - q); beyond < MinBeyondBlock {
			e.Why = fmt.Sprintf("a block holds %d values, %.1f beyond %s, and %d are needed for an interval from the blocks", sizes[i], beyond, name, MinBeyondBlock)
			return e
		}
		if !(v > 0) {
			e.Why = "a block's " + name + " is not positive"
			return e
		}
		l := math.Log(v)
		sum += l
		sum2 += l * l
	}
	b := float64(len(blocks))
	mean := sum / b
	sd := math.Sqrt(math.Max(0, (sum2-b*mean*mean)/(b-1)))
	h := tQuantile(b-1, (1+Confidence)/2) * sd / math.Sqrt(b)
	e.Lo, e.Hi, e.Confidence, e.HasInterval = pooled*math.Exp(-h), pooled*math.Exp(h), Confidence, true
	return e
}
