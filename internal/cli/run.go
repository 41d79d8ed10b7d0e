package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
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

// runLadder measures and reports. With ladderRun set (no arguments) it
// runs every available benchmark, then the creation and memory ladders,
// sets the published hierarchy beside them, and always writes a JSON file.
func runLadder(ctx context.Context, mf *measureFlags, benches []*model.Benchmark, stdout, stderr io.Writer, ladderRun bool) error {
	if ladderRun && mf.exportJSON == "" {
		mf.exportJSON = time.Now().Format("ctxbench-20060102-150405.json")
	}
	o, set, placements, _, err := mf.settings()
	if err != nil {
		return err
	}
	ms := mf.measurement(set)
	ms.compose = func(spec session.Spec) (session.Spec, error) {
		spec.History = mf.historyPath(stderr)
		return suite.Ladder(spec, suite.LadderOptions{Benches: benches, Placements: placements, Sampling: o,
			Full: ladderRun, SwitchesOnly: mf.switchesOnly, Quick: mf.quick}), nil
	}
	ms.show = func(w io.Writer, doc *result.Document) {
		render.Ladder(w, doc, style(w))
		render.Spawn(w, doc)
		render.Memory(w, doc)
		render.Hierarchy(w, doc)
		render.Missing(w, doc)
	}
	ms.failures = func(doc *result.Document) error {
		return failed(doc, "measurements", len(doc.Failures)+len(doc.Results)+len(doc.Spawn)+len(doc.Memory))
	}
	return ms.run(ctx, stdout, stderr)
}
