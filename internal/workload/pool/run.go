package pool

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/redis/go-redis/v9"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// Engine is a started connection-pool run: the configuration validated,
// the CPUs resolved, stale server directories of killed runs swept, and the
// calling process ready to be pinned. The experiment (internal/experiment/
// pool) drives it: for each server Start, Baselines, then one Window per
// point and repetition in the scheduler's order, then Stop; End restores
// the process's affinity. Every server started is torn down by Stop — also
// when ctx is cancelled (the caller turns SIGINT/SIGTERM into a
// cancellation) or a window fails. The published replay (published.go)
// starts the same way.
type Engine struct {
	cfg     Config
	allowed []int
	pls     map[string]placement
	prog    Progress
	r       *runner
	// Method, Environment, Warnings and Swept are what the run records
	// besides the servers' curves: how each figure is obtained, what the
	// figures depend on besides the machine, conditions a reader must
	// know, and the directories of earlier killed runs that were removed.
	Method      Method
	Environment Environment
	Warnings    []string
	Swept       []string
}

// Begin validates cfg and prepares a run. prog may be nil.
func Begin(cfg Config, prog Progress) (*Engine, error) {
	if prog == nil {
		prog = NoProgress{}
	}
	if err := Validate(&cfg); err != nil {
		return nil, err
	}
	// go-redis logs background dial failures (a pool refilling after the server died) to
	// stderr; every failure that matters reaches the caller as an error, so keep stderr clean.
	redis.SetLogger(quietLogger{})
	allowed, err := procs.Allowed()
	if err != nil {
		return nil, err
	}
	scpu, ccpu, err := configCPUs(&cfg, allowed)
	if err != nil {
		return nil, err
	}
	e := &Engine{cfg: cfg, allowed: allowed, prog: prog, pls: map[string]placement{
		CrossCPU: {CrossCPU, []int{scpu}, []int{ccpu}},
		SameCPU:  {SameCPU, []int{ccpu}, []int{ccpu}},
		Unpinned: {Unpinned, allowed, allowed},
	}, Method: methods()}
	perfOK, perfWhy := procs.PerfUsable()
	e.Environment = Environment{
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
	e.Environment.PgxVersion, e.Environment.RedisVersion = libVersions()
	if cfg.Perf && !perfOK {
		e.Warnings = append(e.Warnings, "perf cross-check requested but unavailable: "+perfWhy)
	}
	swept, err := serverdir.Sweep()
	e.Swept = swept
	if len(swept) > 0 {
		prog.Stage(fmt.Sprintf("removed %d stale server directories of earlier runs", len(swept)))
	}
	if err != nil {
		e.Warnings = append(e.Warnings, "sweeping stale servers: "+err.Error())
	}
	e.r = &runner{cfg: &e.cfg, perfOK: perfOK}
	return e, nil
}

// End restores this process's affinity and GOMAXPROCS.
func (e *Engine) End() error {
	perr := procs.PinSelf(e.allowed)
	runtime.SetDefaultGOMAXPROCS()
	if perr != nil {
		return fmt.Errorf("restore client affinity: %w", perr)
	}
	return nil
}

// Placement is where a placement runs the server and the client.
type Placement struct {
	Name           string
	Server, Client []int
}

// Placement resolves a placement's CPUs.
func (e *Engine) Placement(name string) Placement {
	pl := e.pls[name]
	return Placement{Name: pl.name, Server: pl.server, Client: pl.client}
}

// Server is one started (or connected) server.
type Server struct {
	e     *Engine
	t     *target
	bases map[string]Baseline
	Kind  string
	// Version names the server ("PostgreSQL 16.4"); Embedded says it is a
	// throwaway one this run made; ProcessCounters says its processes can
	// be read from /proc (false for a remote server: server switch and CPU
	// figures are then absent).
	Version         string
	Embedded        bool
	ProcessCounters bool
	// Idle holds the idle baselines (Baselines), one per placement, in
	// the configuration's order.
	Idle []Baseline
}

// Start starts (or connects to) a server of kind, pinned to the first
// placement's server CPUs.
func (e *Engine) Start(ctx context.Context, kind string) (*Server, error) {
	t, err := startTarget(ctx, &e.cfg, kind, e.pls[e.cfg.Placements[0]].server, e.prog)
	if err != nil {
		return nil, err
	}
	if testHookStarted != nil {
		testHookStarted(t)
	}
	t.recordAux()
	return &Server{e: e, t: t, Kind: kind, bases: map[string]Baseline{},
		Version: t.version, Embedded: t.embedded, ProcessCounters: t.hasProcs()}, nil
}

// Baselines measures an idle window per placement.
func (s *Server) Baselines(ctx context.Context) error {
	for _, name := range s.e.cfg.Placements {
		s.e.prog.Stage(fmt.Sprintf("idle baseline, %s, %s", s.t.version, name))
		b, err := s.e.r.baseline(ctx, s.t, s.e.pls[name])
		if err != nil {
			return fmt.Errorf("idle baseline (%s): %w", name, err)
		}
		s.bases[name] = b
		s.Idle = append(s.Idle, b)
	}
	return nil
}

// Points lists a server's points: every client, placement, worker count
// and pool size of the configuration (Rep is left to the caller).
func (e *Engine) Points(kind string) []WindowSpec {
	var points []WindowSpec
	for _, cl := range e.r.clients(kind) {
		for _, pl := range e.cfg.Placements {
			for _, wk := range e.cfg.Workers {
				for _, p := range e.cfg.PoolSizes {
					points = append(points, WindowSpec{Server: kind, Client: cl, Placement: pl, Pool: p, Workers: wk})
				}
			}
		}
	}
	return points
}

// Window runs one measured window.
func (s *Server) Window(ctx context.Context, spec WindowSpec) (Window, error) {
	return s.e.r.window(ctx, s.t, spec, s.e.pls[spec.Placement], s.bases[spec.Placement])
}

// Recoverable says whether a failed window may be retried, or the rest of
// the sweep run: the server is alive and answers, and nothing hung.
func (s *Server) Recoverable(ctx context.Context, err error) bool {
	return ctx.Err() == nil && s.t.alive() == nil && !strings.Contains(err.Error(), "hung")
}

// Where names a window in messages.
func (s *Server) Where(spec WindowSpec) string {
	return fmt.Sprintf("%s, %s, %s, pool %d, %s, rep %d", s.t.version, spec.Client, spec.Placement, spec.Pool, WorkersText(spec.Workers), spec.Rep)
}

// Stop tears the server down.
func (s *Server) Stop() error {
	s.e.prog.Stage("stopping " + s.t.version)
	if err := s.t.stop(); err != nil {
		return fmt.Errorf("stop %s: %w", s.Kind, err)
	}
	return nil
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

// WorkersText names a worker rule: a count, or as many as connections.
func WorkersText(w int) string {
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

// methods says how the engine obtains each figure of a window.
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
			"throughput then describes the client, not the server.", ClientBoundUtil*100),
		Perf: "optional: the perf software event context-switches opened on the server's CPU (perf_event_open, " +
			"pid −1), read exactly at the window's edges; it counts every switch on that CPU including switches " +
			"away from idle and from unrelated tasks, so it differs from the per-task count by design.",
	}
}
