package suite

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/setup"
)

// ABOptions are an interleaved A/B's: the cells, their sampling, and the
// commands that set each side up (run before every block of the side,
// each bounded by Timeout) and clean up once at the end.
type ABOptions struct {
	Benches                 []*model.Benchmark
	Placements              []model.Placement
	Sampling                Sampling
	SetupA, SetupB, Cleanup string
	Timeout                 time.Duration
}

// DefaultSetupTimeout bounds one set-up command.
const DefaultSetupTimeout = time.Minute

// AB is an interleaved A/B in one sitting (like hyperfine's --prepare): every
// cell measured as side A and side B, the sides' blocks interleaved round by
// round in a seeded order, SetupA run before each block of A and SetupB
// before each of B; the change of each cell from A to B from their blocks
// paired by round (ladder.ABChanges). A set-up that fails or hangs stops the
// run with one line naming it and its exit status; Cleanup runs once at the
// end whatever happened. The run is not recorded in the history: its sides
// ran under set-ups of the user's making.
func AB(spec session.Spec, o ABOptions) session.Spec {
	spec = begin(spec, schedule.FakeExecutor{Seed: spec.Seed})
	spec.History = ""
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = DefaultSetupTimeout
	}
	so := o.Sampling.options()
	so.PerfCheck = false // the sides' counts are verified by getrusage in every block
	so.Before = func(ctx context.Context, c schedule.Cell) error {
		cmd, what := o.SetupA, "set-up A"
		if c.Variant == "B" {
			cmd, what = o.SetupB, "set-up B"
		}
		if cmd == "" {
			return nil
		}
		return setup.Run(ctx, what, cmd, timeout)
	}
	spec.Steps = []session.Step{func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		if o.Cleanup != "" && !env.Runner.DryRun {
			defer func() {
				// A fresh context: an interrupted run still cleans up.
				cctx, cancel := context.WithTimeout(context.Background(), timeout)
				defer cancel()
				if err := setup.Run(cctx, "clean-up", o.Cleanup, timeout); err != nil {
					fmt.Fprintf(env.Log, "ctxbench: %v\n", err)
				}
			}()
		}
		return ladder.Run(ctx, env, ladder.Options{Benches: o.Benches, Placements: o.Placements, Sampling: so, Variants: []string{"A", "B"}})
	}}
	spec.Derive = []func(*result.Document){func(d *result.Document) {
		d.AB = &result.AB{SetupA: o.SetupA, SetupB: o.SetupB, Cleanup: o.Cleanup, Changes: ladder.ABChanges(d.Results)}
	}}
	return spec
}

// SetupFailed says err is an A/B's set-up or clean-up command that failed
// or hung (the run stopped; the message names it and its exit status).
func SetupFailed(err error) bool {
	var e *setup.Error
	return errors.As(err, &e)
}
