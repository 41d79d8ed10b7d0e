package pool

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// Run performs the experiment described by cfg. It starts (or connects to) each server
// in turn, measures, and tears everything down before returning — also when ctx is
// cancelled (the caller turns SIGINT/SIGTERM into a cancellation) or a window fails.
// The calling process's threads are pinned during the run and restored afterwards.
// prog may be nil.
func Run(ctx context.Context, cfg Config, prog Progress) (res *Result, err error) {
	if prog == nil {
		prog = NoProgress{}
	}
	if err := Validate(&cfg); err != nil {
		return nil, err
	}
	// go-redis logs background dial failures (a pool refilling after the server died) to
	// stderr; every failure that matters reaches Run as an error, so keep stderr clean.
	redis.SetLogger(quietLogger{})
	allowed, err := procs.Allowed()
	if err != nil {
		return nil, err
	}
	scpu, ccpu, err := configCPUs(&cfg, allowed)
	if err != nil {
		return nil, err
	}
	pls := map[string]placement{
		CrossCPU: {CrossCPU, []int{scpu}, []int{ccpu}},
		SameCPU:  {SameCPU, []int{ccpu}, []int{ccpu}},
		Unpinned: {Unpinned, allowed, allowed},
	}

	res = &Result{Config: cfg, Method: methods()}
	perfOK, perfWhy := procs.PerfUsable()
	res.Environment = Environment{
		GoVersion:   runtime.Version(),
		NumCPU:      runtime.NumCPU(),
		AllowedCPUs: allowed,
		GOMAXPROCS:  runtime.GOMAXPROCS(0),
		ServerCPU:   scpu,
		ClientCPU:   ccpu,
		Schedstat:   procs.HaveSchedstat(),
		PerfUsable:  perfOK,
		PerfReason:  perfWhy,
	}
	res.Environment.PgxVersion, res.Environment.RedisVersion = libVersions()
	if cfg.Perf && !perfOK {
		res.Warnings = append(res.Warnings, "perf cross-check requested but unavailable: "+perfWhy)
	}

	swept, err := serverdir.Sweep()
	res.Swept = swept
	if len(swept) > 0 {
		prog.Stage(fmt.Sprintf("removed %d stale server directories of earlier runs", len(swept)))
	}
	if err != nil {
		res.Warnings = append(res.Warnings, "sweeping stale servers: "+err.Error())
	}

	defer func() {
		perr := procs.PinSelf(allowed)
		runtime.SetDefaultGOMAXPROCS()
		if perr != nil && err == nil {
			err = fmt.Errorf("restore client affinity: %w", perr)
		}
	}()

	r := &runner{cfg: &cfg, perfOK: perfOK}
	total := 0
	for _, kind := range cfg.Servers {
		total += len(r.plan(kind, 0))
	}
	done := 0
	for i, kind := range cfg.Servers {
		sr, err := r.runServer(ctx, kind, uint64(i), pls, prog, &done, total)
		if err != nil {
			return nil, err
		}
		res.Servers = append(res.Servers, *sr)
	}
	res.Warnings = append(res.Warnings, r.retried...)
	analyze(res)
	return res, nil
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// testHookStarted lets tests learn each started server (to check it is gone later).
var testHookStarted func(*target)

// testHookWindow lets tests fail a window (on a live server) before it runs.
var testHookWindow func(WindowSpec) error

func (r *runner) clients(kind string) []string {
	if kind == Redis {
		return []string{ClientGoRedis}
	}
	return r.cfg.PGClients
}

// plan lists the server's windows: every repetition visits every point once, in its own
// random order (seeded), so slow drift of the machine spreads over all points.
func (r *runner) plan(kind string, salt uint64) []WindowSpec {
	var points []WindowSpec
	for _, cl := range r.clients(kind) {
		for _, pl := range r.cfg.Placements {
			for _, wk := range r.cfg.Workers {
				for _, p := range r.cfg.PoolSizes {
					points = append(points, WindowSpec{Server: kind, Client: cl, Placement: pl, Pool: p, Workers: wk})
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(r.cfg.Seed, 0x5eed+salt))
	var out []WindowSpec
	for rep := 1; rep <= r.cfg.Repetitions; rep++ {
		order := slices.Clone(points)
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, s := range order {
			s.Rep = rep
			out = append(out, s)
		}
	}
	return out
}

type windowRecord struct {
	spec WindowSpec
	w    Window
}

func (r *runner) runServer(ctx context.Context, kind string, salt uint64, pls map[string]placement, prog Progress, done *int, total int) (sr *ServerResult, err error) {
	t, err := startTarget(ctx, r.cfg, kind, pls[r.cfg.Placements[0]].server, prog)
	if err != nil {
		return nil, err
	}
	defer func() {
		prog.Stage("stopping " + t.version)
		if serr := t.stop(); serr != nil {
			err = errors.Join(err, fmt.Errorf("stop %s: %w", kind, serr))
			sr = nil
		}
	}()
	if testHookStarted != nil {
		testHookStarted(t)
	}
	t.recordAux()
	sr = &ServerResult{Server: kind, Version: t.version, Embedded: t.embedded, ProcessCounters: t.hasProcs()}

	bases := map[string]Baseline{}
	for _, name := range r.cfg.Placements {
		prog.Stage(fmt.Sprintf("idle baseline, %s, %s", t.version, name))
		b, err := r.baseline(ctx, t, pls[name])
		if err != nil {
			return nil, fmt.Errorf("idle baseline (%s): %w", name, err)
		}
		bases[name] = b
		sr.Baselines = append(sr.Baselines, b)
	}

	var recs []windowRecord
	for i, spec := range r.plan(kind, salt) {
		*done++
		prog.Window(*done, total, spec)
		w, err := r.window(ctx, t, spec, pls[spec.Placement], bases[spec.Placement])
		recoverable := func() bool { return ctx.Err() == nil && t.alive() == nil && !strings.Contains(err.Error(), "hung") }
		where := fmt.Sprintf("%s, %s, %s, pool %d, %s, rep %d", t.version, spec.Client, spec.Placement, spec.Pool, workersText(spec.Workers), spec.Rep)
		if err != nil && recoverable() {
			// One retry: a long sweep should not be lost to one transient failure; the
			// failure is kept in the warnings.
			r.retried = append(r.retried, fmt.Sprintf("%s: retried after: %v", where, err))
			w, err = r.window(ctx, t, spec, pls[spec.Placement], bases[spec.Placement])
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !recoverable() { // the server died or hung: nothing after this would be honest
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			// Failed twice on a live server: keep the rest of the sweep.
			sr.FailedWindows = append(sr.FailedWindows, fmt.Sprintf("%s: %v", where, err))
			continue
		}
		w.Seq = i + 1
		recs = append(recs, windowRecord{spec, w})
	}
	sr.Series = buildSeries(kind, recs, pls)
	return sr, nil
}

func workersText(w int) string {
	if w == 0 {
		return "workers = pool"
	}
	return fmt.Sprintf("%d workers", w)
}

// libVersions reads the client libraries' module versions from the build.
func libVersions() (pgx, goredis string) {
	pgx, goredis = "unknown", "unknown" // test binaries carry no dependency list
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return pgx, goredis
	}
	for _, d := range bi.Deps {
		switch d.Path {
		case "github.com/jackc/pgx/v5":
			pgx = d.Version
		case "github.com/redis/go-redis/v9":
			goredis = d.Version
		}
	}
	return pgx, goredis
}

func methods() Method {
	return Method{
		Timing: "fixed-duration windows: connections opened and the query prepared on each before timing, then warm-up " +
			"with the full load, then the measured window; the workers never stop between warm-up and window. " +
			"Throughput = queries completed inside the window / window length. Windows are repeated and visited in a " +
			"seeded random order per repetition.",
		Latency: "client-measured per query (time.Now around the library call, pool wait included) into per-worker " +
			"log-linear histograms (3% bucket resolution, exact max).",
		PoolWait: "pgxpool: each Acquire timed; database/sql: DB.Stats().WaitDuration delta / queries; go-redis: " +
			"PoolStats().WaitDurationNs delta / queries. held = mean latency − mean wait (server time + round trip + " +
			"client scheduling delay).",
		ServerSwitches: "per-thread /proc/<pid>/task/<tid>/status voluntary_ctxt_switches and " +
			"nonvoluntary_ctxt_switches, summed over the serving tasks (PostgreSQL: the pool's backends, identified by " +
			"pg_backend_pid; Redis: the event-loop thread) and separately over auxiliary tasks (postmaster, " +
			"checkpointer, background writer, walwriter, launchers; Redis bio threads), read at both ends of the " +
			"window while every process is alive (an exited task's counts would be lost).",
		ClientSwitches: "getrusage(RUSAGE_SELF) ru_nvcsw/ru_nivcsw of the client process (all threads, exited ones " +
			"included) over the window.",
		CPUTime: procs.CPUMethod() + " for the server; getrusage utime+stime for the client. Utilisation = CPU time " +
			"/ (window × CPUs of the placement).",
		Baseline: "an idle window per server and placement (server up, no pool, client idle); its per-second " +
			"switch and CPU rates times the window length are subtracted from the client, auxiliary and Redis " +
			"event-loop figures before dividing by queries (clamped at 0).",
		Connections: "before and after each window all n connections are held at once and their server-side ids " +
			"read (backend pids / CLIENT ID): the sets must be equal; the library must report no opened or closed " +
			"connection (pgxpool NewConnsCount, database/sql MaxIdleClosed etc., go-redis pool stats); PostgreSQL's " +
			"process list and Redis's total_connections_received must not change.",
		ClientBound: fmt.Sprintf("a point is client-bound when the client used >= %.0f%% of its CPUs: its "+
			"throughput then describes the client, not the server.", clientBoundUtil*100),
		Perf: "optional: the perf software event context-switches opened on the server's CPU (perf_event_open, " +
			"pid −1), read exactly at the window's edges; it counts every switch on that CPU including switches " +
			"away from idle and from unrelated tasks, so it differs from the per-task count by design.",
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
	}
}
