package pool

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
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
	Pools   []int
	Workers int
	// Runs is the number of one-shot runs per pool and variant; the caller
	// interleaves them (Seed drives its order).
	Runs int
	Seed uint64
	// BlogWindow is the length of the published perf window.
	BlogWindow     time.Duration
	ServerCPU      int
	ClientCPU      int
	Rows           int
	PostgresDSN    string
	PostgresBinDir string
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

// Variants are the replay's variants, in the order they are reported.
var Variants = []string{VariantPublished, VariantIdleFixed}

// PublishedRun is one one-shot run.
type PublishedRun struct {
	Variant string
	Pool    int
	Millis  float64 // from the first query's launch to the last one's completion
	// Opened is how many connections database/sql opened during the timed phase
	// (each one a backend fork, authentication and a new prepared statement).
	Opened int64
	// PerfTimed counts switches on the server CPU over exactly the timed phase;
	// PerfBlog over the published 1 s window opened before the pool was made.
	PerfTimed *uint64
	PerfBlog  *uint64
}

// Published is a started replay: one PostgreSQL, the server pinned to one
// CPU and the client to another, as published. It is set up as a sweep is
// (Begin, then Start: the same validation, CPUs, sweep of stale servers
// and teardown); the caller runs each variant and pool Runs times in its
// own order, then End.
type Published struct {
	pc PublishedConfig
	e  *Engine
	s  *Server
	// Version names the server; ServerCPU and ClientCPU are where it and
	// the client run; PerfUsable says the server CPU's switches are counted.
	Version              string
	ServerCPU, ClientCPU int
	PerfUsable           bool
}

// BeginPublished validates pc and starts the replay's server. prog may be nil.
func BeginPublished(ctx context.Context, pc PublishedConfig, prog Progress) (*Published, error) {
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
	// The replay opens its own counters on the server CPU where perf is
	// usable; the sweep's cross-check per window is not asked for.
	cfg.Perf = false
	e, err := Begin(cfg, prog)
	if err != nil {
		return nil, err
	}
	// The replay records no warnings of its own: the sweep's trouble goes
	// to the log.
	for _, w := range e.Warnings {
		e.prog.Stage(w)
	}
	s, err := e.Start(ctx, Postgres)
	if err != nil {
		_ = e.End()
		return nil, err
	}
	p := &Published{pc: pc, e: e, s: s, Version: s.Version, ServerCPU: e.Environment.ServerCPU,
		ClientCPU: e.Environment.ClientCPU, PerfUsable: e.Environment.PerfUsable}
	// Pinned once, as the published program ran under taskset.
	if err := e.r.apply(s.t, e.pls[CrossCPU]); err != nil {
		_ = p.End()
		return nil, err
	}
	return p, nil
}

// End stops the server and restores this process's affinity.
func (p *Published) End() error {
	return errors.Join(p.s.Stop(), p.e.End())
}

// IdleBlogWindow counts the server CPU's switches over one published
// window (BlogWindow) with no pool open: what the published count held
// that was not the queries'. It is nil where perf cannot count.
func (p *Published) IdleBlogWindow(ctx context.Context) (*float64, error) {
	if !p.PerfUsable {
		return nil, nil
	}
	p.e.prog.Stage("idle baseline on the server CPU")
	c, err := procs.OpenCPUSwitches(p.ServerCPU)
	if err != nil {
		return nil, nil //nolint:nilerr // no counter on this CPU: the replay reports no idle count, as without perf
	}
	defer c.Close()
	a, _ := c.Read()
	if err := sleep(ctx, p.s.t, p.pc.BlogWindow); err != nil {
		return nil, err
	}
	b, _ := c.Read()
	v := float64(b - a)
	return &v, nil
}

// Run runs the published program once, as written: a fresh database/sql
// pool of size pool (MaxIdleConns left at its default of 2 in the
// published variant), warmed by pool dummy queries at once, then Workers
// goroutines of one query each, timed from the first launch to the last
// completion; and the server CPU's switches over that phase and over the
// published window, opened before the pool was.
func (p *Published) Run(ctx context.Context, variant string, pool int) (PublishedRun, error) {
	t, pc := p.s.t, p.pc
	run := PublishedRun{Variant: variant, Pool: pool}
	var pcnt *procs.CPUSwitches
	if p.PerfUsable {
		pcnt, _ = procs.OpenCPUSwitches(p.ServerCPU)
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
		t.waitClosed()
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
