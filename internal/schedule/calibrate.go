package schedule

import (
	"context"
	"math"
	"slices"
	"time"
)

// calibrate finds the ops per sample that make a sample last about MinTime.
// Each probe is a real block of 3 samples (after 1 warm-up) in a worker; a
// probe whose median sample reaches a quarter of the target is scaled to
// it, a shorter one grows the ops (at most 1000x) and probes again, up to
// six probes.
func calibrate(ctx context.Context, ex Executor, c Cell, o Options) (uint64, error) {
	const probes = 6
	iters := c.Bench.StartIters
	if iters == 0 {
		iters = 64
	}
	target := float64(o.MinTime.Nanoseconds())
	timeout := o.CalibrationTimeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	for attempt := 1; ; attempt++ {
		resp, err := ex.Block(ctx, c, c.Request(iters, 3, 1, false), timeout)
		if err != nil {
			return 0, err
		}
		if err := CheckSamples(resp, 3); err != nil {
			return 0, err
		}
		ns := make([]float64, len(resp.NS))
		for i, v := range resp.NS {
			ns[i] = float64(v)
		}
		slices.Sort(ns)
		med := ns[1]
		scale := target / med
		if med >= target/4 || attempt == probes {
			return max(1, uint64(math.Ceil(float64(iters)*scale))), nil
		}
		iters = uint64(math.Ceil(float64(iters) * math.Min(scale, 1000)))
	}
}
