package testdoc

// sections.go: synthetic sections of ctxbench load, aa and ab, with the
// shape a dry run gives them, for the views' golden files and the report's
// tests. Nothing here measures anything.

import (
	"github.com/ctxbench/ctxbench/internal/result"
)

// pct is a percentile of ns with a ±2% interval at 95%.
func pct(ns float64) *result.Percentile {
	lo, hi := 0.98*ns, 1.02*ns
	return &result.Percentile{NS: ns, CILow: &lo, CIHigh: &hi, Confidence: 0.95}
}

// latency is a latency whose four percentiles are p50 times these factors.
func latency(p50 float64, f90, f99, f999 float64, maxNS float64) result.LoadLatency {
	return result.LoadLatency{Count: 20000, MeanNS: 1.2 * p50, MaxNS: maxNS, P50: pct(p50), P90: pct(f90 * p50), P99: pct(f99 * p50), P99_9: pct(f999 * p50)}
}

func ptr(v float64) *float64 { return &v }

// Loads is one series of ctxbench load: threads at one CPU swept over five
// utilisations, the last of which fell behind its schedule; one level
// flagged, with its slow wake-ups captured when capture is set; the knee
// with its interval and the reference hop.
func Loads(capture bool) []result.LoadSeries {
	type lv struct {
		util, rate, wake, req, sw float64
		hops                      uint64
	}
	levels := []lv{{0.25, 10900, 3360, 26800, 0.84, 16000}, {0.5, 22100, 5120, 28500, 0.68, 11800},
		{0.75, 32500, 9860, 33300, 0.54, 8000}, {0.9, 38500, 22000, 45300, 0.45, 5800}}
	s := result.LoadSeries{Name: "load/thread", Kind: "thread", Placement: "same-cpu", CPUGenerator: 1, CPUContexts: 1, LoadCPUs: 1,
		Label:     "4 threads of one process woken through futexes by an open-loop generator (Poisson arrivals), 20.0 µs of work per request; same CPU (pinned to CPU 1), the generator on the contexts' CPU; " + Host + " (dry run: synthetic figures)",
		Mechanism: "futex", Contexts: 4, Arrivals: "poisson", WorkNS: 20000, WorkIters: 4000, WorkNSPerIter: 5, BlockNS: 1e9, WarmupNS: 1e8, Sweep: "utilization",
		Knee:      &result.LoadKnee{Metric: "request_corrected_p99", Factor: 2, BaseNS: 37400, Utilization: ptr(0.79), Low: ptr(0.78), High: ptr(0.8), Confidence: 0.95, Resamples: 1000},
		Reference: &result.LoadReference{Name: "thread/futex", Placement: "same-cpu", HopNS: 3120, HopCILow: 3080, HopCIHigh: 3150, Utilization: 0.252, WakeupP50NS: 3360, Ratio: 1.08},
		Flags:     []result.Flag{{Code: "non-monotone", Message: "the corrected p99 falls from 88.0 µs at 90% to 80.1 µs at 95%, beyond both intervals: the tail moved with something other than the load (synthetic)"}},
	}
	for _, l := range levels {
		lag := latency(1500, 2, 4.3, 6, 40000)
		lvl := result.LoadLevel{TargetUtilization: ptr(l.util), TargetRate: l.rate, AchievedRate: l.rate, AchievedUtilization: l.util + 0.004,
			AchievedUtilizationLow: l.util - 0.01, AchievedUtilizationHigh: l.util + 0.01, CPUBusy: l.util + 0.02, Status: result.LoadOK,
			Requests:     result.LoadCount{Scheduled: 200000, Posted: 200000, Measured: 20000, Hops: l.hops, Queued: 20000 - l.hops},
			GeneratorLag: lag, Wakeup: latency(l.wake, 2.15, 4, 6.3, 30*l.wake),
			Corrected: latency(l.req, 1.2, 1.4, 1.67, 2.9*l.req), Uncorrected: latency(0.91*l.req, 1.2, 1.43, 1.72, 2.9*l.req),
			Switches: result.LoadSwitches{Voluntary: l.sw - 0.02, Involuntary: 0.02}, MeanWaitNS: 2 * l.wake, Flags: []result.Flag{}}
		s.Levels = append(s.Levels, lvl)
	}
	s.Levels[2].Flags = []result.Flag{{Code: "omission", Message: "the uncorrected p99.9 (52.1 µs) leaves out 3.50 µs that the corrected one (55.6 µs) holds: the generator was held back (lag up to 40.0 µs), and latency measured from the post does not see the wait before it (coordinated omission) (synthetic)"}}
	if capture {
		s.Levels[3].Capture = Capture(false)
	}
	behind := result.LoadLevel{TargetUtilization: ptr(0.95), TargetRate: 40600, AchievedRate: 31000, AchievedUtilization: 0.76, Status: result.LoadBehind,
		StatusReason: "the generator fell 12 ms behind its schedule (synthetic)", GeneratorLag: latency(900000, 2, 4, 5, 1.2e7)}
	behind.Flags = []result.Flag{{Code: "behind", Message: "the schedule was not kept: " + behind.StatusReason + "; this level's latencies are not reported"}}
	s.Levels = append(s.Levels, behind)
	return []result.LoadSeries{s}
}

// AA is an A/A self-test of three cells in six sittings, each cell's
// reproducibility learned, and the cells told apart.
func AA() *result.AA {
	cell := func(name string, m float64, repro int) result.AACell {
		meds := []float64{m, 0.997 * m, 1.002 * m, 1.004 * m, 0.999 * m, 1.01 * m}
		return result.AACell{Name: name, Placement: "same-cpu", Medians: meds, RunToRun: 0.004, HalfWidth: 0.016, Coverage: 0.97, Pairs: 30,
			FalsePositives: 0, Comparisons: 5, Resolvable: 0.022, PrecisionResolvable: 0.019, BetweenBlocks: 0.38,
			ReproCoverage: 0.95, ReproPairs: repro, ReproFalsePositives: 0, ReproComparisons: 5, BetweenCV: 0.031, ReproHalfWidth: 0.062}
	}
	a := &result.AA{Sittings: 6, Alpha: 0.05, SittingSeconds: []float64{18, 18, 19, 18, 18, 18},
		Cells:    []result.AACell{cell("thread/pipe", 3170, 20), cell("process/pipe", 2820, 20), cell("thread/futex", 3640, 0)},
		Coverage: 0.98, Pairs: 90, FalsePositives: 0, Comparisons: 15, Resolvable: 0.019, ReproCoverage: 0.95, ReproPairs: 40, ReproComparisons: 10,
		Distinct: []result.AADistinct{{Base: "thread/pipe same-cpu", Other: "process/pipe same-cpu", Resolved: 6, Sittings: 6, Change: -0.112},
			{Base: "thread/pipe same-cpu", Other: "thread/futex same-cpu", Resolved: 6, Sittings: 6, Change: 0.148}}}
	a.Cells[2].Contended = 1
	return a
}

// AB is an interleaved A/B of three cells: one change resolved, one not,
// one without an interval.
func AB() *result.AB {
	return &result.AB{SetupA: "echo 0 > /sys/kernel/tracing/events/sched/sched_switch/enable",
		SetupB: "echo 1 > /sys/kernel/tracing/events/sched/sched_switch/enable", Cleanup: "echo 0 > /sys/kernel/tracing/events/sched/sched_switch/enable",
		Changes: []result.ABChange{
			{Name: "thread/pipe", Placement: "same-cpu", AMedian: 2990, BMedian: 3210, Change: 0.071, Low: 0.04, High: 0.103, Confidence: 0.951, Resolved: true, Rounds: 10},
			{Name: "process/pipe", Placement: "same-cpu", AMedian: 2910, BMedian: 2915, Change: 0.002, Low: -0.011, High: 0.014, Confidence: 0.951, Rounds: 10},
			{Name: "thread/futex", Placement: "same-cpu", AMedian: 2700, BMedian: 2750, Change: 0.018, Rounds: 1},
		}}
}
