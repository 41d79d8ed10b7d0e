package replicate

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// pool.go: the published connection-pool run — database/sql against
// PostgreSQL, a pool of 10 vs 90, 1,000 goroutines, the server on CPU 0 and
// the client on CPU 1, switches counted with perf stat -C 0 -- sleep 1 — as
// published and properly.

// logProgress prints the pool engine's stages on the experiment log.
type logProgress struct{ e experiment.Env }

func (l logProgress) Stage(msg string)                   { fmt.Fprintf(l.e.Log, "pool-10-vs-90: %s\n", msg) }
func (l logProgress) Window(i, n int, _ pool.WindowSpec) {}

// publishedResult is the replay's outcome: every run, and per variant
// and pool the medians, with the pools' time ratio per variant.
type publishedResult struct {
	Version     string
	PerfUsable  bool
	Runs        []pool.PublishedRun
	Points      []publishedPoint
	Comparisons []publishedComparison
	Summary     []string
}

// publishedPoint summarises the runs of one variant and pool.
type publishedPoint struct {
	Variant   string
	Pool      int
	Millis    result.PoolEstimate
	Opened    float64  // median
	PerfTimed *float64 // median
	PerfBlog  *float64 // median
	// BlogWindowIdle is the idle baseline's count for a window of BlogWindow.
	BlogWindowIdle *float64
}

// publishedComparison is a variant's largest pool against its smallest.
type publishedComparison struct {
	Variant string
	// TimeRatio is elapsed(pool B)/elapsed(pool A) with its interval.
	TimeRatio    result.PoolRatio
	P            float64
	PoolA, PoolB int
}

// runPublished replays the published experiment against a throwaway (or
// the given) PostgreSQL, tearing it down before returning. Its runs, each
// variant and pool Runs times, go through the scheduler's rounds as every
// experiment's blocks do: in each round every variant and pool runs once,
// in a seeded random order, so drift reaches all of them alike.
func runPublished(ctx context.Context, pc pool.PublishedConfig, prog pool.Progress) (res *publishedResult, err error) {
	if prog == nil {
		prog = pool.NoProgress{}
	}
	p, err := pool.BeginPublished(ctx, pc, prog)
	if err != nil {
		return nil, err
	}
	defer func() {
		if eerr := p.End(); eerr != nil && err == nil {
			err, res = eerr, nil
		}
	}()
	idle, err := p.IdleBlogWindow(ctx)
	if err != nil {
		return nil, err
	}
	type unit struct {
		variant string
		pool    int
	}
	var units []unit
	for _, v := range pool.Variants {
		for _, size := range pc.Pools {
			units = append(units, unit{v, size})
		}
	}
	seq, n := 0, len(units)*pc.Runs
	got, _, err := schedule.Rounds(ctx, len(units), func(int) int { return pc.Runs },
		func(ctx context.Context, i, _ int) (pool.PublishedRun, error) {
			u := units[i]
			run, err := p.Run(ctx, u.variant, u.pool)
			if err != nil {
				// A failed run ends the replay, as a failure of the published
				// program would: its figures compare full sets of runs.
				return run, schedule.Fatal(fmt.Errorf("published replay, %s, pool %d: %w", u.variant, u.pool, err))
			}
			return run, nil
		}, schedule.RoundOptions{Seed: int64(pc.Seed) ^ 0xb10c /* the replay's own order for a seed */, Step: func(i, _ int) {
			seq++
			prog.Window(seq, n, pool.WindowSpec{Server: pool.Postgres, Client: pool.ClientDatabaseSQL + " (" + units[i].variant + ")",
				Placement: pool.CrossCPU, Pool: units[i].pool, Workers: pc.Workers, Rep: seq})
		}})
	if err != nil {
		return nil, err
	}
	res = &publishedResult{Version: p.Version, PerfUsable: p.PerfUsable}
	for _, runs := range got {
		for _, d := range runs {
			res.Runs = append(res.Runs, d.Value)
		}
	}
	summarisePublished(res, pc, idle)
	return res, nil
}

// summarisePublished adds the medians per variant and pool, and per
// variant the largest pool's time over the smallest's.
func summarisePublished(res *publishedResult, pc pool.PublishedConfig, idle *float64) {
	for _, v := range pool.Variants {
		byPool := map[int][]float64{}
		for _, size := range pc.Pools {
			var ms, opened, pt, pb []float64
			for _, r := range res.Runs {
				if r.Variant != v || r.Pool != size {
					continue
				}
				ms = append(ms, r.Millis)
				opened = append(opened, float64(r.Opened))
				if r.PerfTimed != nil {
					pt = append(pt, float64(*r.PerfTimed))
					pb = append(pb, float64(*r.PerfBlog))
				}
			}
			byPool[size] = ms
			pt0 := publishedPoint{Variant: v, Pool: size, Millis: result.NewPoolEstimate(stats.SummarizeWindows(ms)), Opened: stats.Median(opened), BlogWindowIdle: idle}
			if len(pt) > 0 {
				a, b := stats.Median(pt), stats.Median(pb)
				pt0.PerfTimed, pt0.PerfBlog = &a, &b
			}
			res.Points = append(res.Points, pt0)
			line := fmt.Sprintf("%s, pool %d: %.1f ms for %d queries, %.0f connections opened while timed", v, size, pt0.Millis.Median, pc.Workers, pt0.Opened)
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
			res.Comparisons = append(res.Comparisons, publishedComparison{v, tr, p, a, b})
			ci := ""
			if tr.Low != nil {
				ci = fmt.Sprintf(" (%.0f%% CI %.2f–%.2f)", tr.Confidence*100, *tr.Low, *tr.High)
			}
			res.Summary = append(res.Summary, fmt.Sprintf("%s: pool %d takes ×%.2f the time of pool %d%s, p=%.3g", v, b, tr.Estimate, a, ci, p))
		}
	}
}

func poolPublished(ctx context.Context, e experiment.Env, quick bool) ([]result.Replication, error) {
	pc := pool.DefaultPublishedConfig()
	if quick {
		pc.Runs = 3
	}
	res, err := runPublished(ctx, pc, logProgress{e})
	if err != nil {
		return nil, err
	}
	vals := map[string]float64{"runs": float64(pc.Runs), "workers": float64(pc.Workers)}
	for _, p := range res.Points {
		k := fmt.Sprintf("%s_pool%d_", strings.ReplaceAll(p.Variant, "-", "_"), p.Pool)
		vals[k+"ms"] = p.Millis.Median
		vals[k+"opened_while_timed"] = p.Opened
		if p.PerfBlog != nil {
			vals[k+"switches_blog_window"] = *p.PerfBlog
		}
		if p.PerfTimed != nil {
			vals[k+"switches_timed_phase"] = *p.PerfTimed
		}
	}
	var measured []string
	for _, c := range res.Comparisons {
		vals[c.Variant+"_time_ratio"] = c.TimeRatio.Estimate
		vals[c.Variant+"_p"] = c.P
		ci := ""
		if c.TimeRatio.Low != nil && c.TimeRatio.High != nil {
			ci = fmt.Sprintf(" (%.0f%% CI %.2f–%.2f)", 100*c.TimeRatio.Confidence, *c.TimeRatio.Low, *c.TimeRatio.High)
		}
		measured = append(measured, fmt.Sprintf("%s: pool %d takes %.2fx the time of pool %d%s, p=%.3g", c.Variant, c.PoolB, c.TimeRatio.Estimate, c.PoolA, ci, c.P))
	}
	return []result.Replication{{
		Name:      "pool-10-vs-90",
		Source:    SourcePool.String(),
		Published: "pool 10: 103.9 ms, 2,643 switches on CPU 0; pool 90: 126.1 ms, 2,964 switches (one run each, perf stat -C 0 -- sleep 1)",
		Measured:  strings.Join(measured, "; ") + fmt.Sprintf(" (%d interleaved runs per pool and variant; %s)", pc.Runs, res.Version),
		Values:    vals,
		Mistake: "the perf window (1 s) was about ten times longer than the work, so most of the counted switches were not the queries'; there was one run and no baseline; " +
			"and database/sql's default MaxIdleConns of 2 closed all but two of the warmed connections, so the timed phase forked new backends — more of them for pool 90. " +
			"The idle-fixed variant sets MaxIdleConns = pool and shows what is left of the difference.",
		Notes: res.Summary,
	}}, nil
}
