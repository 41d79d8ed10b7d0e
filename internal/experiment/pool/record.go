package pool

// record.go: the engine's records (internal/workload/pool, in its own
// terms) written into the document's pools section. Where a record has
// exactly the schema's fields it is converted whole, so a field added on
// one side only stops the build; a window (whose counters are the process
// reader's types) is copied field by field, which record_test.go checks
// leaves none out.

import (
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// pools starts the section: the configuration as run, how each figure is
// obtained, what the figures depend on besides the machine, and what
// beginning the run found.
func pools(cfg result.PoolConfig, eng *pool.Engine) *result.Pools {
	m := eng.Method
	return &result.Pools{
		Config: cfg,
		Method: result.PoolMethod{
			Timing: m.Timing, Latency: m.Latency, PoolWait: m.PoolWait, ServerSwitches: m.ServerSwitches,
			ClientSwitches: m.ClientSwitches, CPUTime: m.CPUTime, Baseline: m.Baseline, Connections: m.Connections,
			ClientBound: m.ClientBound, Perf: m.Perf,
			Knee: "N95 = smallest pool whose median throughput reaches 95% of the observed peak; Kneedle (Satopää et " +
				"al. 2011, S=1) on a log2 pool axis over the rising part.",
			USL: "X(N) = λN / (1 + α(N−1) + βN(N−1)) fitted to median throughput by nonlinear least squares " +
				"(grid over α, β with λ profiled, then Levenberg–Marquardt); N* = √((1−α)/β).",
			Comparison: "pool 90 vs pool 10 with the same client, placement and workers: ratio of throughput " +
				"(Hodges–Lehmann over all window pairs) with the distribution-free interval inverting the " +
				"Mann–Whitney test; p from benchmath's Mann–Whitney U test.",
			IntervalsMedian: "per-point figures are medians over repeated windows; intervals are benchmath " +
				"AssumeNothing (order statistics) at 95%; with fewer than 6 windows the interval is [min, max] " +
				"at its own confidence 1 − 2·(1/2)^n, stated in the output.",
		},
		Environment: result.PoolEnvironment(eng.Environment),
		Warnings:    eng.Warnings,
		Swept:       eng.Swept,
	}
}

// server starts a server's record: what it is, and its idle baselines.
func server(srv *pool.Server) result.PoolServer {
	rec := result.PoolServer{Server: srv.Kind, Version: srv.Version, Embedded: srv.Embedded, ProcessCounters: srv.ProcessCounters}
	for _, b := range srv.Idle {
		rec.Baselines = append(rec.Baselines, result.PoolBaseline(b))
	}
	return rec
}

// window is a measured window as the document records it; seq is its
// place in the run's visiting order.
func window(w pool.Window, seq int) result.PoolWindow {
	out := result.PoolWindow{
		Rep: w.Rep, Seq: seq, Seconds: w.Seconds, Queries: w.Queries, QPS: w.QPS,
		PoolWaitNs: w.PoolWaitNs, PoolWaitP99Ns: w.PoolWaitP99Ns, HeldNs: w.HeldNs,
		ServerSeconds: w.ServerSeconds, CounterReadNs: w.CounterReadNs,
		Client: result.ProcRusage(w.Client), PerfSwitch: w.PerfSwitch, PerQuery: result.PoolPerQuery(w.PerQuery),
		ServerUtil: w.ServerUtil, ClientUtil: w.ClientUtil, ClientBound: w.ClientBound,
		ForeignUtil: w.ForeignUtil, StealUtil: w.StealUtil, QuietWaitNs: w.QuietWaitNs,
		Conns: result.PoolConnCheck(w.Conns), GOMAXPROCS: w.GOMAXPROCS,
	}
	l := w.Latency
	out.Latency.Mean, out.Latency.P50, out.Latency.P90, out.Latency.P99, out.Latency.P999, out.Latency.Max =
		l.Mean, l.P50, l.P90, l.P99, l.P999, l.Max
	if w.Serving != nil {
		s := result.ProcCounters(*w.Serving)
		out.Serving = &s
	}
	if w.Aux != nil {
		a := result.ProcCounters(*w.Aux)
		out.Aux = &a
	}
	return out
}
