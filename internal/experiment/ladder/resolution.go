package ladder

import (
	"github.com/ctxbench/ctxbench/internal/host/counter"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// resolution says, where the reference counter's rate is stated (arm64's
// CNTVCT_EL0, often 25 MHz: 40 ns a tick, which CLOCK_MONOTONIC_RAW reads
// there too), how finely a row was timed (code counter-resolution): the
// floor's row always, and any row whose hop is shorter than a tick (a
// batch average: coroutines, atomics), says the counter's resolution and
// over how many ticks a sample ran; samples that spanned fewer than
// counter.MinSampleTicks (fixed --iterations) are said instead (code
// few-ticks). Nothing is said where the rate is not stated (the TSC, at
// GHz: a sample spans millions of its ticks).
func resolution(r *result.Result, t result.TSCInfo) {
	if t.Hz <= 0 || r.OneWayNS.Median <= 0 || r.IterationsPerSample == 0 || r.HopsPerOp <= 0 {
		return
	}
	tickNS := 1e9 / t.Hz
	hops := float64(r.IterationsPerSample) * r.HopsPerOp
	spanTicks := r.OneWayNS.Median * hops / tickNS
	clock := t.CounterName() + " at " + units.Sig(t.Hz/1e6) + " MHz, " + units.Time(tickNS) + " a tick"
	within := units.Percent(100/spanTicks, 3)
	if spanTicks < counter.MinSampleTicks {
		r.Warnings = append(r.Warnings, result.Warning{Code: "few-ticks",
			Message: "each sample spanned only " + units.Sig(spanTicks) + " ticks of " + clock + ": a sample reads within one tick, " + within,
			Fix:     "drop --iterations: the calibration makes every sample span at least " + units.Count(counter.MinSampleTicks) + " ticks"})
		return
	}
	if r.OneWayNS.Median >= tickNS && r.Rung != string(model.Floor) {
		return
	}
	what := units.Sig(r.OneWayNS.Median/tickNS) + " ticks"
	if r.OneWayNS.Median < tickNS {
		what = units.Sig(r.OneWayNS.Median/tickNS) + " of a tick"
	}
	r.Warnings = append(r.Warnings, result.Warning{Code: "counter-resolution",
		Message: "one hop is " + what + " of " + clock + ": the figure is a batch average, each sample timing " +
			units.Count(hops) + " hops over " + units.Count(spanTicks) + " ticks, so a sample reads within one tick, " + within,
		Fix: "nothing to do; a finer counter (1 GHz from Armv8.6) resolves shorter samples"})
}
