// Package pool is the connection-pool experiment: pool size against
// throughput, latency, context switches and CPU per query, against real
// PostgreSQL and Redis servers (internal/workload/pool starts them and runs
// each window). It supplies the plan — every point of the configuration,
// each repeated, in the scheduler's seeded order per repetition so slow
// drift of a shared machine spreads over all points — and the aggregation
// (analyze.go: curves, knees, fits, the published comparison, verdicts).
package pool

import (
	"context"
	"errors"
	"fmt"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// Run measures cfg and returns the document's pools section. A window that
// failed twice on a live server costs its point that repetition (listed in
// FailedWindows and as a failure), not the sweep; a server that died or
// hung ends the run with an error.
func Run(ctx context.Context, env experiment.Env, cfg result.PoolConfig, prog pool.Progress) (part experiment.Part, err error) {
	if prog == nil {
		prog = pool.NoProgress{}
	}
	eng, err := pool.Begin(cfg, prog)
	if err != nil {
		return part, err
	}
	defer func() {
		if e := eng.End(); e != nil && err == nil {
			err = e
		}
	}()
	res := pools(cfg, eng)
	sw := &sweep{prog: prog}
	for _, kind := range cfg.Servers {
		sw.total += len(eng.Points(kind)) * cfg.Repetitions
	}
	for i, kind := range cfg.Servers {
		sr, err := runServer(ctx, eng, kind, cfg, uint64(i), sw)
		if err != nil {
			return part, err
		}
		res.Servers = append(res.Servers, *sr)
		for _, f := range sr.FailedWindows {
			part.Failures = append(part.Failures, result.Failure{Name: "pool/" + sr.Server, Error: f})
		}
	}
	analyze(res)
	res.Warnings = append(res.Warnings, sw.retried...)
	part.Pools = res
	return part, nil
}

// sweep is what runs across the servers: the progress (windows done of
// total), and the windows that failed once and ran again, which become
// warnings after the analysis's own.
type sweep struct {
	prog        pool.Progress
	done, total int
	retried     []string
}

// runServer starts a server, measures its idle baselines, runs its points'
// windows on the scheduler's rounds and stops it.
func runServer(ctx context.Context, eng *pool.Engine, kind string, cfg result.PoolConfig, salt uint64, sw *sweep) (sr *result.PoolServer, err error) {
	srv, err := eng.Start(ctx, kind)
	if err != nil {
		return nil, err
	}
	defer func() {
		if serr := srv.Stop(); serr != nil {
			err = errors.Join(err, serr)
			sr = nil
		}
	}()
	if err := srv.Baselines(ctx); err != nil {
		return nil, err
	}
	rec := server(srv)
	points := eng.Points(kind)
	var recs []windowRecord
	seq := 0
	spec := func(i, round int) pool.WindowSpec {
		s := points[i]
		s.Rep = round + 1
		return s
	}
	got, _, err := schedule.Rounds(ctx, len(points), func(int) int { return cfg.Repetitions },
		func(ctx context.Context, i, round int) (result.PoolWindow, error) {
			w, err := srv.Window(ctx, spec(i, round))
			if err != nil {
				if !srv.Recoverable(ctx, err) {
					// The server died or hung: nothing after this would be honest.
					return result.PoolWindow{}, schedule.Fatal(fmt.Errorf("%s: %w", srv.Where(spec(i, round)), err))
				}
				return result.PoolWindow{}, err
			}
			seq++
			return window(w, seq), nil
		}, schedule.RoundOptions{
			Seed:      int64(cfg.Seed + 0x5eed + salt),
			KeepGoing: true,
			Retry: func(i, round int, err error) bool {
				// One retry: a long sweep should not be lost to one transient
				// failure; the failure is kept in the warnings.
				sw.retried = append(sw.retried, fmt.Sprintf("%s: retried after: %v", srv.Where(spec(i, round)), err))
				return true
			},
			OnFail: func(i, round int, err error) {
				rec.FailedWindows = append(rec.FailedWindows, fmt.Sprintf("%s: %v", srv.Where(spec(i, round)), err))
			},
			Step: func(i, round int) {
				sw.done++
				sw.prog.Window(sw.done, sw.total, spec(i, round))
			},
		})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	for i, ws := range got {
		for _, d := range ws {
			recs = append(recs, windowRecord{spec(i, d.Round), d.Value})
		}
	}
	rec.Series = buildSeries(kind, recs, eng.Placement)
	return &rec, nil
}
