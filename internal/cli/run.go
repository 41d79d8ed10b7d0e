package cli

import (
	"context"
	"errors"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/experiment/lifecycle"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
)

func newRun(stdout, stderr io.Writer) *cobra.Command {
	mf := &measureFlags{}
	cmd := &cobra.Command{
		Use:   "run NAME...",
		Short: "run benchmarks by name, rung or 'all'",
		Long: `Run measures the named benchmarks. A name is a benchmark (thread/pipe), a rung
(thread: every thread benchmark) or "all". Each runs at its ladder placements
unless --placement says otherwise; a placement a benchmark cannot honour is
skipped with the reason.`,
		Example: `  ctxbench run thread/pipe --placement same-cpu --runs 100
  ctxbench run process/pipe thread/pipe --export-json - | jq '.results[].one_way_ns.median'
  ctxbench run goroutine --export-gobench new.txt && benchstat old.txt new.txt
  ctxbench run all --placement same-cpu,cross-cpu,unpinned --thorough`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			benches, err := catalog.Select(args)
			if err != nil {
				return &usageError{err.Error()}
			}
			return runLadder(cmd.Context(), mf, benches, stdout, stderr, false)
		},
	}
	mf.register(cmd)
	return cmd
}

// The default ladder's creation and memory measurements: one or two per
// kind of context (fork from 1 GiB is left to `ctxbench spawn`).
var (
	ladderSpawnKinds  = []string{"goroutine", "thread", "fork", "fork-256m", "vfork-exec", "posix-spawn", "clone-exec", "container-full", "vm"}
	ladderMemoryKinds = []string{"goroutine", "thread", "process", "container", "vm"}
	quickMemoryN      = map[string]int{"goroutine": 10000, "thread": 1000, "process": 100, "container": 20, "vm": 20}
)

// runLadder measures and reports. With ladder set (no arguments) it runs
// every available benchmark, then the creation and memory ladders, sets the
// published hierarchy beside them, and always writes a JSON file.
func runLadder(ctx context.Context, mf *measureFlags, benches []*model.Benchmark, stdout, stderr io.Writer, ladderRun bool) error {
	if benches == nil {
		benches = catalog.All()
	}
	if ladderRun && mf.exportJSON == "" {
		mf.exportJSON = time.Now().Format("ctxbench-20060102-150405.json")
	}
	o, set, placements, _, err := mf.settings()
	if err != nil {
		return err
	}
	spec, err := newSpec(set, &mf.lockFlags, mf.quiet, stderr, schedule.FakeExecutor{Seed: set.Seed})
	if err != nil {
		return err
	}
	spec.History = mf.historyPath(stderr)
	spec.Steps = []session.Step{ladderStep(o, benches, placements)}
	spec.Derive = []func(*result.Document){deriveLadder}
	if ladderRun && !mf.switchesOnly && !mf.dryRun {
		lo := lifecycle.Options{Samples: 40, PinLast: true, NoSettle: true}
		if mf.quick {
			lo.Samples = 15
		}
		mo := lifecycle.Options{NoSettle: true}
		if mf.quick {
			mo.N = quickMemoryN
		}
		spec.Steps = append(spec.Steps,
			func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
				return lifecycle.Spawn(ctx, env, ladderSpawnKinds, lo)
			},
			func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
				return lifecycle.Memory(ctx, env, ladderMemoryKinds, mo)
			})
	}
	if ladderRun {
		spec.Derive = append(spec.Derive, replicate.Claims, deriveHierarchy)
	}
	doc, err := session.Run(ctx, spec)
	var none *ladder.NothingToRun
	if errors.As(err, &none) {
		return &usageError{err.Error()}
	}
	if err != nil {
		return err
	}
	err = present(doc, mf, stdout, stderr, func(w io.Writer) {
		render.Ladder(w, doc, style(w))
		render.Spawn(w, doc)
		render.Memory(w, doc)
		render.Hierarchy(w, doc)
		render.Missing(w, doc)
	})
	if err != nil {
		return err
	}
	return failed(doc, "measurements", len(doc.Failures)+len(doc.Results)+len(doc.Spawn)+len(doc.Memory))
}

// deriveHierarchy sets the published hierarchy beside the ladder.
func deriveHierarchy(d *result.Document) {
	if d.Derived == nil {
		d.Derived = &result.Derived{}
	}
	d.Derived.Hierarchy, d.Derived.Claims = replicate.Hierarchy(d)
}
