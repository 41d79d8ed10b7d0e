package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// poolFlags are pool's flags; config turns them into the sweep.
type poolFlags struct {
	servers, clients, placements, workers []string
	pools                                 []int
	cpus, exportJSON                      string
	quick, quiet, noPerf, noIndex         bool
	duration, warmupTime, quietWait       time.Duration
	runs                                  int
	seed                                  seedValue
	pgDSN, redisURL                       string
	lf                                    lockFlags
	// custom says a flag changed how each point is sampled (window
	// length, warm-up, repetitions): the record's preset is then "custom".
	custom bool
}

func newPool(stdout, stderr io.Writer) *cobra.Command {
	pf := &poolFlags{}
	cmd := &cobra.Command{
		Use:   "pool",
		Short: "connection pools against real PostgreSQL and Redis: pool size vs switches, latency, throughput",
		Long: `Pool runs the connection-pool experiment against real servers. With no
configuration it starts a throwaway PostgreSQL and a throwaway Redis (unix socket
only, private temporary directory, removed afterwards), and sweeps pool sizes
1..256 in powers of two plus the published 10 and 90, with 1000 workers and with
as many workers as connections, for each placement. Per point it reports
throughput, latency, pool wait vs time holding a connection, context switches
per query (server voluntary/involuntary, server auxiliary, client) and CPU time
per query; per curve the knee (N95, Kneedle), a Universal Scalability Law fit,
and pool 90 against pool 10 with a confidence interval. docs/pool.md has the
method. Needs: apt-get install -y postgresql redis-server`,
		Example: `  ctxbench pool                                   # the full sweep (~30 min on 2 CPUs)
  ctxbench pool --quick                           # a smoke test (~2 min)
  ctxbench pool --server redis --pool-sizes 1,4,16,64 --workers 1000
  ctxbench pool --server postgres --clients database/sql --pool-sizes 10,90 -p cross-cpu
  ctxbench pool --server redis --runs 10 --warmup-time 1s --seed 42
  ctxbench pool --postgres-dsn 'host=/run/postgresql dbname=bench' --server postgres
  ctxbench pool --export-json pools.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := pf.config(cmd.Flags())
			if err != nil {
				return err
			}
			return runPool(cmd.Context(), pf, cfg, stdout, stderr)
		},
	}
	pf.register(cmd)
	return cmd
}

func (pf *poolFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringSliceVar(&pf.servers, "server", nil, "postgres and/or redis (default: both)")
	fl.StringSliceVar(&pf.clients, "clients", nil, "PostgreSQL clients: pgxpool and/or database/sql (default: both)")
	fl.IntSliceVar(&pf.pools, "pool-sizes", nil, "pool sizes (default: 1,2,4,8,10,16,32,64,90,128,256)")
	fl.StringSliceVar(&pf.workers, "workers", nil, "worker counts; \"pool\" means as many workers as connections (default: 1000,pool)")
	fl.StringSliceVarP(&pf.placements, "placement", "p", nil, "cross-cpu, same-cpu and/or unpinned (default: all three)")
	fl.StringVar(&pf.cpus, "cpus", "", "CPUs to use: the server gets the first, the client the last; same-cpu uses the last")
	fl.DurationVar(&pf.duration, "duration", 0, "length of each measured window")
	fl.Lookup("duration").DefValue = "1s; --quick 500ms" // DefaultConfig's, unless given
	// A warm-up here is a time under load, not a count of samples as
	// --warmup is in every other command: hence its own name.
	fl.DurationVar(&pf.warmupTime, "warmup-time", 0, "load before each window, connections already open")
	fl.Lookup("warmup-time").DefValue = "500ms; --quick 200ms"
	fl.DurationVar(&pf.warmupTime, "warmup", 0, "the old spelling of --warmup-time")
	rename(fl, "warmup", "warmup-time")
	fl.IntVarP(&pf.runs, "runs", "r", 0, "measured windows per point, each round of them in a new random order")
	fl.Lookup("runs").DefValue = "5; --quick 3"
	fl.IntVar(&pf.runs, "repetitions", 0, "the old spelling of --runs")
	rename(fl, "repetitions", "runs")
	fl.DurationVar(&pf.quietWait, "wait-quiet", 0, "before each window, wait up to this long until other processes leave its CPUs (a shared machine)")
	fl.Var(&pf.seed, "seed", "seed of the visiting order and the random ids, 0 or more (default: from the clock, recorded in the results)")
	fl.BoolVar(&pf.quick, "quick", false, "a smoke test: pgxpool only, 7 pool sizes, 1000 workers, cross-cpu, short windows")
	fl.BoolVarP(&pf.quiet, "quiet", "q", false, "print no table or progress; only errors")
	fl.BoolVar(&pf.noPerf, "no-perf-check", false, "skip the per-CPU perf context-switch count beside the per-task counts")
	fl.BoolVar(&pf.noIndex, "no-index", false, "the published schema: no primary key, every lookup scans the table")
	fl.StringVar(&pf.pgDSN, "postgres-dsn", "", "use this existing PostgreSQL instead of a throwaway one (creates and drops table ctxbench_names)")
	fl.StringVar(&pf.redisURL, "redis-url", "", "use this existing Redis instead of a throwaway one (sets and deletes ctxbench:name:* keys)")
	fl.StringVar(&pf.exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	pf.lf.register(cmd)
}

// config is the sweep the flags ask for: the full sweep or --quick's, then
// every flag given, validated, with the seed (from the clock unless given)
// that the document records.
func (pf *poolFlags) config(f *pflag.FlagSet) (suite.PoolConfig, error) {
	cfg := suite.PoolDefaults(pf.quick)
	if f.Changed("server") {
		cfg.Servers = pf.servers
	}
	if f.Changed("clients") {
		cfg.PGClients = pf.clients
	}
	if f.Changed("pool-sizes") {
		cfg.PoolSizes = pf.pools
	}
	if f.Changed("workers") {
		cfg.Workers = nil
		for _, w := range pf.workers {
			if w == "pool" {
				cfg.Workers = append(cfg.Workers, 0)
				continue
			}
			n, err := strconv.Atoi(w)
			if err != nil {
				return cfg, usagef("--workers: %q is neither a number nor \"pool\"", w)
			}
			cfg.Workers = append(cfg.Workers, n)
		}
	}
	if f.Changed("placement") {
		cfg.Placements = pf.placements
	}
	if f.Changed("duration") {
		cfg.Duration, pf.custom = pf.duration, true
	}
	if givenAs(f, "warmup-time", "warmup") != "" {
		cfg.Warmup, pf.custom = pf.warmupTime, true
	}
	if as := givenAs(f, "runs", "repetitions"); as != "" {
		if pf.runs < 1 || pf.runs > 100000 {
			return cfg, usagef("%s must be between 1 and 100000, got %d", as, pf.runs)
		}
		cfg.Repetitions, pf.custom = pf.runs, true
	}
	if pf.quietWait < 0 {
		return cfg, usagef("--wait-quiet must not be negative, got %v", pf.quietWait)
	}
	cfg.QuietWait = pf.quietWait
	// As run's: a seed not given comes from the clock and is recorded (in
	// the settings and the pools' config), so --seed can replay the order.
	cfg.Seed = uint64(time.Now().UnixNano() & (1<<63 - 1)) // within --seed's range, so it can be given back
	if f.Changed("seed") {
		cfg.Seed = uint64(pf.seed)
	}
	cfg.Perf = cfg.Perf && !pf.noPerf
	cfg.NoIndex = pf.noIndex
	cfg.PostgresDSN, cfg.RedisURL = pf.pgDSN, pf.redisURL
	if pf.cpus != "" {
		list, err := resolveCPUs(pf.cpus)
		if err != nil {
			return cfg, err
		}
		cfg.ServerCPU, cfg.ClientCPU = list[0], list[len(list)-1]
	}
	if err := suite.ValidatePool(&cfg); err != nil {
		return cfg, usagef("%v", err)
	}
	return cfg, checkExports([2]string{"--export-json", pf.exportJSON})
}

// runPool measures the sweep and reports it. The sweep tells its own
// progress (prog): the session's progress bar and log stay off.
func runPool(ctx context.Context, pf *poolFlags, cfg suite.PoolConfig, stdout, stderr io.Writer) error {
	var prog suite.PoolProgress // nil: quiet
	if !pf.quiet && isTTY(stderr) {
		prog = &poolProgress{w: stderr, start: time.Now()}
	} else if !pf.quiet {
		prog = &poolLog{w: stderr}
	}
	ms := measurement{settings: pf.settings(cfg), lock: &pf.lf, quiet: pf.quiet, exports: onlyJSON(pf.exportJSON)}
	ms.compose = func(spec session.Spec) (session.Spec, error) {
		spec.Progress, spec.Log = nil, io.Discard
		return suite.Pool(spec, cfg, prog), nil
	}
	if p, ok := prog.(*poolProgress); ok {
		ms.after = p.end
	}
	ms.show = func(w io.Writer, doc *result.Document) {
		render.Pools(w, doc.Pools)
		render.Missing(w, doc)
	}
	ms.failures = func(doc *result.Document) error {
		windows := 0
		for _, s := range doc.Pools.Servers {
			for _, se := range s.Series {
				for _, p := range se.Points {
					windows += len(p.Windows)
				}
			}
		}
		return failed(doc, "windows", windows+len(doc.Failures))
	}
	return ms.run(ctx, stdout, stderr)
}

// settings is the settings record of a sweep: its preset, placements and
// seed. As run's, a preset whose sampling a flag changed (window length,
// warm-up, repetitions) is recorded as "custom", never as the preset it no
// longer is.
func (pf *poolFlags) settings(cfg suite.PoolConfig) result.Settings {
	preset := "default"
	switch {
	case pf.custom:
		preset = "custom"
	case pf.quick:
		preset = "quick"
	}
	return result.Settings{Preset: preset, Placements: cfg.Placements, Seed: int64(cfg.Seed)}
}

// poolProgress draws one \r-updated line (hand-written like progressBar).
type poolProgress struct {
	w     io.Writer
	start time.Time
	stage string
}

func (p *poolProgress) Stage(msg string) {
	p.stage = msg
	fmt.Fprintf(p.w, "\r\x1b[K%s", msg)
}

func (p *poolProgress) Window(i, n int, s suite.PoolWindow) {
	const width = 24
	filled := width * (i - 1) / max(n, 1)
	eta := ""
	if i > 1 {
		left := time.Duration(float64(time.Since(p.start)) / float64(i-1) * float64(n-i+1))
		eta = fmt.Sprintf(" ~%s left", left.Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d %s %s %s pool %d, %s%s", strings.Repeat("=", filled), strings.Repeat(" ", width-filled),
		i, n, s.Server, s.Client, s.Placement, s.Pool, poolWorkers(s.Workers), eta)
}

func (p *poolProgress) end() { fmt.Fprint(p.w, "\r\x1b[K") }

// poolLog reports stages and every 5% of the windows, for a non-terminal stderr.
type poolLog struct{ w io.Writer }

func (l *poolLog) Stage(msg string) { fmt.Fprintln(l.w, "ctxbench pool: "+msg) }

func (l *poolLog) Window(i, n int, _ suite.PoolWindow) {
	if step := max(n/20, 1); i%step == 0 || i == n {
		fmt.Fprintf(l.w, "ctxbench pool: window %d of %d\n", i, n)
	}
}

func poolWorkers(w int) string { return render.PoolWorkers(w) }
