// Package hist is a fixed-size log-linear histogram of durations in nanoseconds, so the
// load generator records every operation without allocating during a measured window.
//
// Hand-written rather than an HDR histogram library because the module carries no such
// dependency and this needs ~60 lines: values below 64 ns are exact; above, each power
// of two is split into 32 buckets, so a reported quantile is within 1/32 (3.1%) of the
// true value (the bucket's midpoint is reported). The exact maximum and sum are kept.
package hist

import (
	"math"
	"math/bits"
)

const (
	subBits = 5
	sub     = 1 << subBits // buckets per power of two
	exact   = 2 * sub      // values below this have their own bucket
	maxExp  = 44           // ~4.9 hours; larger values go to the last bucket
	nBucket = exact + (maxExp-subBits-1)*sub
)

// H is a histogram. The zero value is empty and ready to use. It is not safe for
// concurrent use: give each goroutine its own and Merge them.
type H struct {
	counts [nBucket]uint32
	n      uint64
	sum    uint64
	max    uint64
}

func index(v uint64) int {
	if v < exact {
		return int(v)
	}
	shift := bits.Len64(v) - subBits - 1 // >= 1
	i := exact + (shift-1)*sub + int(v>>uint(shift)) - sub
	if i >= nBucket {
		return nBucket - 1
	}
	return i
}

// value returns the midpoint of bucket i.
func value(i int) float64 {
	if i < exact {
		return float64(i)
	}
	shift := (i-exact)/sub + 1
	top := uint64((i-exact)%sub + sub)
	lo := top << uint(shift)
	return float64(lo) + float64(uint64(1)<<uint(shift))/2
}

// Record adds one value in nanoseconds (negative values count as 0).
func (h *H) Record(ns int64) {
	if ns < 0 {
		ns = 0
	}
	v := uint64(ns)
	h.counts[index(v)]++
	h.n++
	h.sum += v
	if v > h.max {
		h.max = v
	}
}

// Merge adds o into h.
func (h *H) Merge(o *H) {
	for i, c := range o.counts {
		h.counts[i] += c
	}
	h.n += o.n
	h.sum += o.sum
	if o.max > h.max {
		h.max = o.max
	}
}

// Reset empties h.
func (h *H) Reset() { *h = H{} }

// Count is the number of recorded values.
func (h *H) Count() uint64 { return h.n }

// Max is the largest recorded value, exactly.
func (h *H) Max() float64 { return float64(h.max) }

// Mean is the exact mean (NaN when empty).
func (h *H) Mean() float64 {
	if h.n == 0 {
		return math.NaN()
	}
	return float64(h.sum) / float64(h.n)
}

// Quantile returns the value at quantile q in [0,1] (NaN when empty); q = 1 is the
// exact maximum.
func (h *H) Quantile(q float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	if q >= 1 {
		return float64(h.max)
	}
	rank := uint64(math.Ceil(q * float64(h.n)))
	if rank == 0 {
		rank = 1
	}
	var cum uint64
	for i, c := range h.counts {
		cum += uint64(c)
		if cum >= rank {
			return math.Min(value(i), float64(h.max))
		}
	}
	return float64(h.max)
}
