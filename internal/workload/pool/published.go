package pool

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// PublishedConfig replays the published experiment's own procedure ("Cost of Context
// Switches", Michael Mwangi's blog, 2019-10-21, code at
// https://github.com/michaelmwangi/blog/tree/master/contextswitch): a fresh
// database/sql pool with SetMaxOpenConns(pool) and the default MaxIdleConns, warmed by
// `pool` concurrent dummy queries, then 1000 goroutines issuing one query each, timed
// from first launch to last completion; PostgreSQL on one CPU, the client on another;
// the server CPU's switches counted by perf over a 1 s window opened when the program
// starts, as `perf stat -C 0 -- sleep 1` did. Beside it, the same run with the count
// bracketing the timed phase exactly, and the same run with MaxIdleConns = pool.
type PublishedConfig struct {
	Pools   []int `json:"pools"`
	Workers int   `json:"workers"`
	// Runs is the number of one-shot runs per pool and variant (interleaved, seeded).
	Runs int    `json:"runs"`
	Seed uint64 `json:"seed"`
	// BlogWindow is the length of the published perf window.
	BlogWindow     time.Duration `json:"blog_window_ns"`
	ServerCPU      int           `json:"server_cpu"`
	ClientCPU      int           `json:"client_cpu"`
	Rows           int           `json:"rows"`
	PostgresDSN    string        `json:"-"`
	PostgresBinDir string        `json:"-"`
}

// DefaultPublishedConfig is pools 10 and 90, 1000 workers, 20 runs each per variant.
func DefaultPublishedConfig() PublishedConfig {
	return PublishedConfig{Pools: []int{10, 90}, Workers: 1000, Runs: 20, Seed: 1,
		BlogWindow: time.Second, ServerCPU: -1, ClientCPU: -1, Rows: 10000}
}

// Variant names.
const (
	VariantPublished = "published"  // default MaxIdleConns (2), as the blog ran it
	VariantIdleFixed = "idle-fixed" // MaxIdleConns = pool: no reconnects while timed
)

// PublishedRun is one one-shot run.
type PublishedRun struct {
	Variant string  `json:"variant"`
	Pool    int     `json:"pool"`
	Seq     int     `json:"seq"`
	Millis  float64 `json:"elapsed_ms"`
	// Opened is how many connections database/sql opened during the timed phase
	// (each one a backend fork, authentication and a new prepared statement).
	Opened int64 `json:"opened_while_timed"`
	// PerfTimed counts switches on the server CPU over exactly the timed phase;
	// PerfBlog over the published 1 s window opened before the pool was made.
	PerfTimed *uint64 `json:"perf_timed"`
	PerfBlog  *uint64 `json:"perf_blog_window"`
}

// PublishedPoint summarises the runs of one variant and pool.
type PublishedPoint struct {
	Variant   string   `json:"variant"`
	Pool      int      `json:"pool"`
	Millis    Estimate `json:"elapsed_ms"`
	Opened    float64  `json:"opened_while_timed"` // median
	PerfTimed *float64 `json:"perf_timed"`         // median
	PerfBlog  *float64 `json:"perf_blog_window"`   // median
	// BlogWindowIdle is the idle baseline's count for a window of BlogWindow.
	BlogWindowIdle *float64 `json:"blog_window_idle"`
}

// PublishedResult is the replay's outcome.
type PublishedResult struct {
	Config      PublishedConfig  `json:"config"`
	Version     string           `json:"server_version"`
	ServerCPU   int              `json:"server_cpu"`
	ClientCPU   int              `json:"client_cpu"`
	PerfUsable  bool             `json:"perf_usable"`
	Points      []PublishedPoint `json:"points"`
	Comparisons []struct {
		Variant string `json:"variant"`
		// TimeRatio is elapsed(pool B)/elapsed(pool A) with its interval.
		TimeRatio Ratio   `json:"time_ratio"`
		P         float64 `json:"p_value"`
		PoolA     int     `json:"pool_a"`
		PoolB     int     `json:"pool_b"`
	} `json:"comparisons"`
	Runs    []PublishedRun `json:"runs"`
	Summary []string       `json:"summary"`
}

// RunPublished replays the published experiment against a throwaway (or the given)
// PostgreSQL, tearing it down before returning.
func RunPublished(ctx context.Context, pc PublishedConfig, prog Progress) (res *PublishedResult, err error) {
	if prog == nil {
		prog = NoProgress{}
	}
	if len(pc.Pools) == 0 || pc.Workers < 1 || pc.Workers > MaxWorkers || pc.Runs < 1 || pc.BlogWindow <= 0 || pc.Rows < 1 {
		return nil, bad("published: need pools, 1..%d workers, runs >= 1, a positive window and rows", MaxWorkers)
	}
	for _, p := range pc.Pools {
		if p < 1 || p > MaxPool {
			return nil, bad("published: pool size %d out of range 1..%d", p, MaxPool)
		}
	}
	cfg := DefaultConfig()
	cfg.Servers, cfg.PGClients, cfg.Placements = []string{Postgres}, []string{ClientDatabaseSQL}, []string{CrossCPU}
	cfg.PoolSizes, cfg.ServerCPU, cfg.ClientCPU, cfg.Rows = slices.Clone(pc.Pools), pc.ServerCPU, pc.ClientCPU, pc.Rows
	cfg.PostgresDSN, cfg.PostgresBinDir = pc.PostgresDSN, pc.PostgresBinDir
	if err := Validate(&cfg); err != nil {
		return nil, err
	}
	allowed, err := procs.Allowed()
	if err != nil {
		return nil, err
	}
	scpu, ccpu, err := configCPUs(&cfg, allowed)
	if err != nil {
		return nil, err
	}
	pl := placement{CrossCPU, []int{scpu}, []int{ccpu}}
	if _, err := serverdir.Sweep(); err != nil {
		prog.Stage("sweeping stale servers: " + err.Error())
	}
	defer func() {
		_ = procs.PinSelf(allowed)
		runtime.SetDefaultGOMAXPROCS()
	}()
	t, err := startTarget(ctx, &cfg, Postgres, pl.server, prog)
	if err != nil {
		return nil, err
	}
	if testHookStarted != nil {
		testHookStarted(t)
	}
	defer func() {
		prog.Stage("stopping " + t.version)
		if serr := t.stop(); serr != nil && err == nil {
			err, res = fmt.Errorf("stop postgres: %w", serr), nil
		}
	}()
	t.recordAux()
	r := &runner{cfg: &cfg}
	if err := r.apply(t, pl); err != nil {
		return nil, err
	}
	perfOK, _ := procs.PerfUsable()
	res = &PublishedResult{Config: pc, Version: t.version, ServerCPU: scpu, ClientCPU: ccpu, PerfUsable: perfOK}

	var idle *float64
	if perfOK {
		prog.Stage("idle baseline on the server CPU")
		c, err := procs.OpenCPUSwitches(scpu)
		if err == nil {
			a, _ := c.Read()
			if err := sleep(ctx, t, pc.BlogWindow); err != nil {
				c.Close()
				return nil, err
			}
			b, _ := c.Read()
			c.Close()
			v := float64(b - a)
			idle = &v
		}
	}

	type job struct {
		variant string
		pool    int
	}
	var jobs []job
	for i := 0; i < pc.Runs; i++ {
		for _, v := range []string{VariantPublished, VariantIdleFixed} {
			for _, p := range pc.Pools {
				jobs = append(jobs, job{v, p})
			}
		}
	}
	rng := rand.New(rand.NewPCG(pc.Seed, 0xb10c))
	rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })
	for i, j := range jobs {
		prog.Window(i+1, len(jobs), WindowSpec{Server: Postgres, Client: ClientDatabaseSQL + " (" + j.variant + ")", Placement: CrossCPU, Pool: j.pool, Workers: pc.Workers, Rep: i + 1})
		run, err := publishedOnce(ctx, t, pc, j.variant, j.pool, scpu, perfOK)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("published replay, %s, pool %d: %w", j.variant, j.pool, err)
		}
		run.Seq = i + 1
		res.Runs = append(res.Runs, run)
	}

	for _, v := range []string{VariantPublished, VariantIdleFixed} {
		byPool := map[int][]float64{}
		for _, p := range pc.Pools {
			var ms, opened, pt, pb []float64
			for _, r := range res.Runs {
				if r.Variant != v || r.Pool != p {
					continue
				}
				ms = append(ms, r.Millis)
				opened = append(opened, float64(r.Opened))
				if r.PerfTimed != nil {
					pt = append(pt, float64(*r.PerfTimed))
					pb = append(pb, float64(*r.PerfBlog))
				}
			}
			byPool[p] = ms
			pt0 := PublishedPoint{Variant: v, Pool: p, Millis: result.NewPoolEstimate(stats.SummarizeWindows(ms)), Opened: stats.Median(opened), BlogWindowIdle: idle}
			if len(pt) > 0 {
				a, b := stats.Median(pt), stats.Median(pb)
				pt0.PerfTimed, pt0.PerfBlog = &a, &b
			}
			res.Points = append(res.Points, pt0)
			line := fmt.Sprintf("%s, pool %d: %.1f ms for %d queries, %.0f connections opened while timed", v, p, pt0.Millis.Median, pc.Workers, pt0.Opened)
			if pt0.PerfTimed != nil {
				line += fmt.Sprintf("; server-CPU switches %.0f in the timed phase, %.0f in the published 1 s window", *pt0.PerfTimed, *pt0.PerfBlog)
				if idle != nil {
					line += fmt.Sprintf(" (idle: %.0f)", *idle)
				}
			}
			res.Summary = append(res.Summary, line)
		}
		if len(pc.Pools) >= 2 {
			a, b := pc.Pools[0], pc.Pools[len(pc.Pools)-1]
			// time ratio B/A: invert the QPS-style ratio by swapping the samples.
			hl := stats.HLRatio(byPool[a], byPool[b], 0.95)
			tr, p := result.NewPoolRatio(hl), hl.P
			res.Comparisons = append(res.Comparisons, struct {
				Variant   string  `json:"variant"`
				TimeRatio Ratio   `json:"time_ratio"`
				P         float64 `json:"p_value"`
				PoolA     int     `json:"pool_a"`
				PoolB     int     `json:"pool_b"`
			}{v, tr, p, a, b})
			ci := ""
			if tr.Low != nil {
				ci = fmt.Sprintf(" (%.0f%% CI %.2f–%.2f)", tr.Confidence*100, *tr.Low, *tr.High)
			}
			res.Summary = append(res.Summary, fmt.Sprintf("%s: pool %d takes ×%.2f the time of pool %d%s, p=%.3g", v, b, tr.Estimate, a, ci, p))
		}
	}
	return res, nil
}

func publishedOnce(ctx context.Context, t *target, pc PublishedConfig, variant string, pool, scpu int, perfOK bool) (PublishedRun, error) {
	run := PublishedRun{Variant: variant, Pool: pool}
	var pcnt *procs.CPUSwitches
	if perfOK {
		pcnt, _ = procs.OpenCPUSwitches(scpu)
	}
	// The published window: a fixed 1 s from program start, whatever the work does.
	blog := make(chan uint64, 1)
	if pcnt != nil {
		defer pcnt.Close()
		b0, _ := pcnt.Read()
		tm := time.AfterFunc(pc.BlogWindow, func() {
			b1, _ := pcnt.Read()
			blog <- b1 - b0
		})
		defer tm.Stop() // runs before the deferred Close

	}
	cc, err := pgx.ParseConfig(t.dsn)
	if err != nil {
		return run, err
	}
	db := stdlib.OpenDB(*cc)
	defer func() {
		db.Close()
		r := &runner{}
		r.waitClosed(t)
	}()
	db.SetMaxOpenConns(pool)
	if variant == VariantIdleFixed {
		db.SetMaxIdleConns(pool)
	}
	q := pgQuery(t.table)
	// The published warm-up: pool goroutines each run a dummy query.
	var wg sync.WaitGroup
	errs := make(chan error, pc.Workers+pool)
	for i := 0; i < pool; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := db.ExecContext(ctx, "SELECT 1 FROM "+pgx.Identifier{t.table}.Sanitize()+" LIMIT 1"); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	s0 := db.Stats()
	var p0 uint64
	if pcnt != nil {
		p0, _ = pcnt.Read()
	}
	start := time.Now()
	for i := 0; i < pc.Workers; i++ {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			var name string
			if err := db.QueryRowContext(ctx, q, id).Scan(&name); err != nil {
				errs <- err
			}
		}(i%pc.Rows + 1)
	}
	wg.Wait()
	el := time.Since(start)
	var p1 uint64
	if pcnt != nil {
		p1, _ = pcnt.Read()
	}
	s1 := db.Stats()
	select {
	case err := <-errs:
		return run, err
	default:
	}
	if err := t.alive(); err != nil {
		return run, err
	}
	run.Millis = float64(el) / 1e6
	run.Opened = (int64(s1.OpenConnections) + s1.MaxIdleClosed) - (int64(s0.OpenConnections) + s0.MaxIdleClosed)
	if pcnt != nil {
		var bw uint64
		select {
		case bw = <-blog:
		case <-ctx.Done():
			return run, ctx.Err()
		}
		d := p1 - p0
		run.PerfTimed, run.PerfBlog = &d, &bw
	}
	return run, nil
}
