package suite

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/aa"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
)

// AACells are the cells the self-test measures when none are named: the
// same-CPU switches whose figures people compare most.
func AACells() []string { return []string{"thread/pipe", "process/pipe", "thread/futex"} }

// AAOptions are the self-test's: the ladder's cells and sampling, measured
// in Sittings independent sittings.
type AAOptions struct {
	Benches    []*model.Benchmark
	Placements []model.Placement
	Sampling   Sampling
	Sittings   int
}

// AA is the A/A self-test: the ladder's cells in several sittings, and
// what they say about this machine (compare.SelfTest).
func AA(spec session.Spec, o AAOptions) session.Spec {
	spec = begin(spec, schedule.FakeExecutor{Seed: spec.Seed})
	s := o.Sampling.options()
	s.PerfCheck = false // the sittings test the intervals; counts are verified by getrusage in every block
	one := ladderStep(s, o.Benches, o.Placements)
	opts := aa.Options{Sittings: o.Sittings, Measure: one}
	if spec.DryRun {
		// Synthetic sittings differ block by block, as identical runs do:
		// each has a fake executor of its own.
		opts.Executor = func(k int) schedule.Executor { return schedule.FakeExecutor{Seed: spec.Seed, Sitting: k} }
	}
	spec.Steps = []session.Step{func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		return aa.Run(ctx, env, opts)
	}}
	spec.Derive = []func(*result.Document){func(d *result.Document) {
		if d.AA != nil {
			compare.SelfTest(d.AA, compare.DefaultAlpha, d.HostState)
		}
	}}
	return spec
}
