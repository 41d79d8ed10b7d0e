package ladder

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
)

// A row on a counter of stated rate says how finely it was timed: the
// floor's always, any other below a tick, with the batch it averages;
// samples shorter than a thousand ticks, that they are; a row above a
// tick with long samples, and any row where the rate is not stated (the
// TSC), nothing.
func TestResolution(t *testing.T) {
	cntvct := result.TSCInfo{Counter: "CNTVCT_EL0", Hz: 25e6}
	row := func(median float64, iters uint64) *result.Result {
		r := &result.Result{Rung: "thread", HopsPerOp: 2, IterationsPerSample: iters}
		r.OneWayNS.Median = median
		return r
	}
	codes := func(r *result.Result) string {
		var c []string
		for _, w := range r.Warnings {
			c = append(c, w.Code)
		}
		return strings.Join(c, ",")
	}

	floor := row(1.05, 1<<20) // 2 Mi hops of 1.05 ns: 2.2 ms, 55,000 ticks
	floor.Rung = "floor"
	resolution(floor, cntvct)
	if codes(floor) != "counter-resolution" || !strings.Contains(floor.Warnings[0].Message, "CNTVCT_EL0 at 25.0 MHz, 40.0 ns a tick") ||
		!strings.Contains(floor.Warnings[0].Message, "0.0263 of a tick") {
		t.Errorf("floor: %+v", floor.Warnings)
	}
	short := row(1.05, 100) // 200 hops: 210 ns, 5 ticks
	resolution(short, cntvct)
	if codes(short) != "few-ticks" || !strings.Contains(short.Warnings[0].Message, "only 5.25 ticks") {
		t.Errorf("fixed iterations: %+v", short.Warnings)
	}
	pipe := row(2500, 400) // 800 hops of 2.5 µs: 2 ms
	resolution(pipe, cntvct)
	if codes(pipe) != "" {
		t.Errorf("a row above a tick: %+v", pipe.Warnings)
	}
	atomic := row(10, 1<<17) // not the floor, below a tick
	resolution(atomic, cntvct)
	if codes(atomic) != "counter-resolution" {
		t.Errorf("a row below a tick: %+v", atomic.Warnings)
	}
	fast := row(80, 1<<14) // the floor on a 1 GHz counter: 80 ticks a hop, still said
	fast.Rung = "floor"
	resolution(fast, result.TSCInfo{Counter: "CNTVCT_EL0", Hz: 1e9})
	if codes(fast) != "counter-resolution" || !strings.Contains(fast.Warnings[0].Message, "80.0 ticks of CNTVCT_EL0 at 1000 MHz, 1.00 ns a tick") {
		t.Errorf("the floor above a tick: %+v", fast.Warnings)
	}
	tsc := row(1.05, 100)
	resolution(tsc, result.TSCInfo{Counter: "TSC", HzMeasured: 2.6e9})
	if codes(tsc) != "" {
		t.Errorf("the TSC: %+v", tsc.Warnings)
	}
}
