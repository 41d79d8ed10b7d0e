// Package aa is the A/A self-test experiment: the same cells measured in
// several independent sittings of one command — each sitting a whole
// measurement of its own (fresh calibration, fresh worker processes, its
// own seed for the interleaving) — so that what one run claims (its
// intervals, compare's verdicts) can be checked against what the next run
// actually measures. The sittings are kept whole; the arithmetic over them
// is a derivation (internal/compare.SelfTest), not part of measuring.
package aa

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// Options say how many sittings and what one sitting measures.
type Options struct {
	Sittings int
	// Measure is one sitting: the experiment whose figures are tested
	// (the ladder's cells, given by the suite).
	Measure func(ctx context.Context, env experiment.Env) (experiment.Part, error)
	// Executor, when set, is the executor of sitting k (from 0): the
	// suite's way to make each sitting's blocks its own (a dry run's
	// synthetic sittings differ as identical runs do). Nil keeps the
	// session's executor for every sitting. The experiment never looks at
	// what an executor is.
	Executor func(sitting int) schedule.Executor
}

// Run measures the sittings one after another.
func Run(ctx context.Context, env experiment.Env, o Options) (experiment.Part, error) {
	var part experiment.Part
	if o.Sittings < 2 || o.Measure == nil {
		return part, errors.New("aa: at least two sittings and a measurement are needed")
	}
	aa := &result.AA{Sittings: o.Sittings}
	for k := range o.Sittings {
		e := env
		e.Runner.Seed = env.Runner.Seed + int64(k)
		if o.Executor != nil {
			e.Runner.Executor = o.Executor(k)
		}
		fmt.Fprintf(env.Log, "ctxbench aa: sitting %d of %d\n", k+1, o.Sittings)
		start := time.Now()
		p, err := o.Measure(ctx, e)
		if err != nil {
			return part, err
		}
		secs := time.Since(start).Seconds()
		if env.Runner.DryRun {
			secs = 0 // nothing was timed; keeps dry-run documents deterministic
		}
		aa.SittingSeconds = append(aa.SittingSeconds, secs)
		aa.Runs = append(aa.Runs, p.Results)
		for _, f := range p.Failures {
			f.Error = fmt.Sprintf("sitting %d: %s", k+1, f.Error)
			part.Failures = append(part.Failures, f)
		}
		if k == 0 {
			part.Skipped = append(part.Skipped, p.Skipped...)
		}
		for _, w := range p.Warnings {
			if !slices.Contains(part.Warnings, w) {
				part.Warnings = append(part.Warnings, w)
			}
		}
	}
	part.AA = aa
	return part, nil
}
