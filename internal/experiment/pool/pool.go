// Package pool is the connection-pool experiment: pool size against
// throughput, latency, context switches and CPU per query, against real
// PostgreSQL and Redis servers (internal/workload/pool drives them). It
// supplies the plan (the configuration's points and repetitions) and the
// aggregation (curves, knees, fits, the published comparison, verdicts).
package pool

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// Run measures cfg and returns the document's pools section.
func Run(ctx context.Context, env experiment.Env, cfg result.PoolConfig, prog pool.Progress) (experiment.Part, error) {
	res, err := pool.Run(ctx, cfg, prog)
	if err != nil {
		return experiment.Part{}, err
	}
	part := experiment.Part{Pools: res}
	for _, s := range res.Servers {
		for _, f := range s.FailedWindows {
			part.Failures = append(part.Failures, result.Failure{Name: "pool/" + s.Server, Error: f})
		}
	}
	return part, nil
}
