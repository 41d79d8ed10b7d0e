package suite

import (
	"context"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	exppool "github.com/ctxbench/ctxbench/internal/experiment/pool"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// PoolConfig is a connection-pool sweep, PoolWindow one of its measured
// windows and PoolProgress what is told of them as they run: the pool
// engine's, which the command line fills from flags and shows.
type (
	PoolConfig   = pool.Config
	PoolWindow   = pool.WindowSpec
	PoolProgress = pool.Progress
)

// PoolDefaults is the full sweep, or with quick a smoke test: pgxpool only,
// seven pool sizes (the published 10 and 90 among them), 1000 workers,
// cross-cpu, short windows.
func PoolDefaults(quick bool) PoolConfig {
	cfg := pool.DefaultConfig()
	if quick {
		cfg.PGClients = []string{pool.ClientPgxpool}
		cfg.PoolSizes = []int{1, 2, 4, 10, 32, 90, 256}
		cfg.Workers = []int{1000}
		cfg.Placements = []string{pool.CrossCPU}
		cfg.Warmup, cfg.Duration, cfg.Repetitions = 200*time.Millisecond, 500*time.Millisecond, 3
	}
	return cfg
}

// ValidatePool refuses a sweep the engine cannot run, saying why.
func ValidatePool(cfg *PoolConfig) error { return pool.Validate(cfg) }

// Pool is the connection-pool sweep, told to prog as it goes (nil: told to
// nobody). What the sweep warns of (disturbed windows, changed
// connections, a server not seen) is a warning of the run, in the
// document's warnings as every other experiment's are.
func Pool(spec session.Spec, cfg PoolConfig, prog PoolProgress) session.Spec {
	if prog == nil {
		prog = pool.NoProgress{}
	}
	spec = begin(spec, nil)
	spec.Steps = []session.Step{func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		part, err := exppool.Run(ctx, env, cfg, prog)
		if err == nil && part.Pools != nil {
			for _, w := range part.Pools.Warnings {
				part.Warnings = append(part.Warnings, result.Warning{Code: "pool", Message: w})
			}
		}
		return part, err
	}}
	return spec
}
