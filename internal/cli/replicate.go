package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/experiment/lifecycle"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/experiment/ring"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
)

func newReplicate(stdout, stderr io.Writer) *cobra.Command {
	var quick, list, quiet bool
	var cpus, exportJSON string
	var lf lockFlags
	cmd := &cobra.Command{
		Use:   "replicate [EXPERIMENT...]",
		Short: "re-run the published experiments as published, beside the published figures",
		Long: `Replicate runs the published context-switch experiments the way they were
published (same round-trip counts, same GOMAXPROCS, same lack of pinning where
that was the point) and prints each beside the published figure, with what the
publication got wrong. With no names it runs them all; some take minutes
(1,000,000 round trips unpinned across CPUs). --quick shrinks them.`,
		Example: `  ctxbench replicate --list
  ctxbench replicate goroutine-pingpong
  ctxbench replicate perf-bench-pipe --cpus 1
  ctxbench replicate --quick --export-json replicate.json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if list {
				tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
				for _, x := range replicate.Experiments() {
					fmt.Fprintf(tw, "%s\t%s\t(%s)\n", x.Name, x.Summary, x.Source)
				}
				return tw.Flush()
			}
			xs, err := replicate.Select(args)
			if err != nil {
				return &usageError{err.Error()}
			}
			cpuList, err := resolveCPUs(cpus)
			if err != nil {
				return err
			}
			if err := checkExports([2]string{"--export-json", exportJSON}); err != nil {
				return err
			}
			set := result.Settings{Preset: map[bool]string{true: "quick", false: "as-published"}[quick], CPUs: cpuList}
			spec, err := newSpec(set, &lf, quiet, stderr, nil)
			if err != nil {
				return err
			}
			spec.Progress = nil // long experiments log a line per stage instead
			failures := 0
			for _, x := range xs {
				spec.Steps = append(spec.Steps, replicationStep(x, quick, stderr, &failures))
			}
			doc, err := session.Run(cmd.Context(), spec)
			if err != nil {
				return err
			}
			out, err := saveJSON(doc, exportJSON, stdout, stderr)
			if err != nil {
				return err
			}
			if !quiet {
				render.Replications(out, doc)
			}
			if failures > 0 {
				return &exitError{ExitFailure, fmt.Sprintf("%d of %d experiments failed", failures, len(xs))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.BoolVar(&quick, "quick", false, "fewer round trips and runs than published (a smoke test, not a replication)")
	f.BoolVar(&list, "list", false, "list the experiments")
	f.BoolVarP(&quiet, "quiet", "q", false, "print nothing but errors")
	f.StringVar(&cpus, "cpus", "", "CPUs to use; pinned runs use the last (default: all allowed)")
	f.StringVar(&exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	lf.register(cmd)
	return cmd
}

// replicationStep runs one published experiment: its own program, or, for
// a derived one, the experiments it is computed from. A failed experiment
// is recorded (and counted) and the others go on; only cancellation stops
// the run.
func replicationStep(x replicate.Experiment, quick bool, stderr io.Writer, failures *int) session.Step {
	return func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		var reps []result.Replication
		var err error
		switch {
		case x.Run != nil:
			reps, err = x.Run(ctx, env, quick)
		case x.Name == "hierarchy":
			reps, err = hierarchyReplication(ctx, env, quick)
		case x.Name == "hot-potato-ring":
			var r result.Replication
			r, err = hotPotatoReplication(ctx, env, quick)
			reps = []result.Replication{r}
		default:
			err = fmt.Errorf("no way to run %s", x.Name)
		}
		if err != nil {
			if ctx.Err() != nil {
				return experiment.Part{}, ctx.Err()
			}
			*failures++
			fmt.Fprintf(stderr, "ctxbench: %s failed: %v\n", x.Name, err)
			return experiment.Part{Failures: []result.Failure{{Name: x.Name, Error: err.Error()}}}, nil
		}
		return experiment.Part{Replications: reps}, nil
	}
}

// hierarchyReplication measures every row of the published table with the
// default preset, and the creation and memory claims at full scale, then
// sets them beside the published figures.
func hierarchyReplication(ctx context.Context, env experiment.Env, quick bool) ([]result.Replication, error) {
	rows, spawnKinds, memoryKinds := replicate.HierarchyCells()
	d := &result.Document{Results: []result.Result{}}
	lo := ladder.Options{PerBench: map[string][]model.Placement{},
		Sampling: schedule.Options{Runs: 40, SamplesPerBlock: 8, Warmup: 1, MinTime: presetDefault.minTime, PerfCheck: env.Environment.Perf.Software}}
	if quick {
		lo.Sampling.Runs, lo.Sampling.SamplesPerBlock, lo.Sampling.MinTime = 12, 4, presetQuick.minTime
	}
	var part experiment.Part
	for _, r := range rows {
		b := catalog.Lookup(r[0])
		p, err := model.ParsePlacement(r[1])
		if b == nil || err != nil {
			part.Failures = append(part.Failures, result.Failure{Name: r[0], Placement: r[1], Error: "no such benchmark"})
			continue
		}
		lo.Benches = append(lo.Benches, b)
		lo.PerBench[b.Name] = []model.Placement{p}
	}
	fmt.Fprintf(env.Log, "hierarchy: %d switch rows\n", len(lo.Benches))
	got, err := ladder.Run(ctx, env, lo)
	var none *ladder.NothingToRun
	switch {
	case errors.As(err, &none):
		part.Skipped = append(part.Skipped, got.Skipped...)
	case err != nil:
		return nil, err
	default:
		part.Add(got)
	}
	so := lifecycle.Options{PinLast: true, NoSettle: true}
	if quick {
		so.Samples, so.N = 10, quickMemoryN
	}
	fmt.Fprintln(env.Log, "hierarchy: creation and memory")
	sp, err := lifecycle.Spawn(ctx, env, spawnKinds, so)
	if err != nil {
		return nil, err
	}
	so.Samples = 0
	mem, err := lifecycle.Memory(ctx, env, memoryKinds, so)
	if err != nil {
		return nil, err
	}
	part.Add(sp)
	part.Add(mem)
	d.Results, d.Spawn, d.Memory, d.Failures, d.Skipped = part.Results, part.Spawn, part.Memory, part.Failures, part.Skipped
	deriveLadder(d)
	replicate.Claims(d)
	return replicate.HierarchyReplications(d), nil
}

// hotPotatoReplication runs the published 400-context rings with the ring
// experiment, one core type at a time, all members pinned to one CPU of
// that type (the publication does not say how it placed them; one CPU
// gives the direct cost), and sets them beside the published figures.
func hotPotatoReplication(ctx context.Context, env experiment.Env, quick bool) (result.Replication, error) {
	rounds, runs, perBlock := replicate.HotPotatoSampling(quick)
	if len(env.CPUs) == 0 {
		return result.Replication{}, fmt.Errorf("no CPUs to run on")
	}
	var points []replicate.HotPotatoPoint
	for _, g := range replicate.CoreGroups(env.Environment, env.CPUs) {
		cpu := g.CPUs[len(g.CPUs)-1]
		o := ring.Options{
			Kinds: []ring.Kind{ring.Thread, ring.Process}, Tasks: []int{replicate.HotPotatoTasks}, WorkingSets: []int64{0},
			Placements: []model.Placement{model.SameCPU},
			Runs:       runs, SamplesPerBlock: perBlock, Warmup: 1, Rounds: rounds, MinTime: presetQuick.minTime,
			StackBytes: catalog.DefaultRingStack, PerfCheck: env.Environment.Perf.Hardware,
		}
		cells, skipped, err := ring.Plan(o, []int{cpu})
		if err != nil {
			return result.Replication{}, err
		}
		if len(skipped) > 0 {
			return result.Replication{}, fmt.Errorf("%s: %s", skipped[0].Name, skipped[0].Error)
		}
		fmt.Fprintf(env.Log, "hot-potato-ring (%s): 400 threads and 400 processes on CPU %d\n", g.Name, cpu)
		part, err := ring.Run(ctx, env, cells, o)
		if err != nil {
			return result.Replication{}, err
		}
		if len(part.Failures) > 0 {
			return result.Replication{}, fmt.Errorf("%s: %s", part.Failures[0].Name, part.Failures[0].Error)
		}
		pt := replicate.HotPotatoPoint{Group: g, CPU: cpu}
		for i := range part.Rings {
			switch part.Rings[i].Kind {
			case string(ring.Thread):
				pt.Thread = &part.Rings[i]
			case string(ring.Process):
				pt.Process = &part.Rings[i]
			}
		}
		if pt.Thread == nil || pt.Process == nil {
			return result.Replication{}, fmt.Errorf("the rings of %s did not both run", g.Name)
		}
		points = append(points, pt)
	}
	return replicate.HotPotato(env.Environment, points, float64(rounds)*float64(runs)), nil
}
