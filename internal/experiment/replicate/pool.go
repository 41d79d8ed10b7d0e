package replicate

import (
	"context"
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/result"
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

func poolPublished(ctx context.Context, e experiment.Env, quick bool) ([]result.Replication, error) {
	pc := pool.DefaultPublishedConfig()
	if quick {
		pc.Runs = 3
	}
	res, err := pool.RunPublished(ctx, pc, logProgress{e})
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
