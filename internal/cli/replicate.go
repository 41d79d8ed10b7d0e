package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
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
				view(stdout, listPublished)
				return nil
			}
			xs, err := suite.SelectPublished(args)
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
			ms := measurement{settings: set, lock: &lf, quiet: quiet, exports: onlyJSON(exportJSON)}
			ms.compose = func(spec session.Spec) (session.Spec, error) {
				spec.Progress = nil // long experiments log a line per stage instead
				return suite.Replicate(spec, suite.ReplicateOptions{Experiments: xs, Quick: quick, Stderr: stderr})
			}
			ms.show = func(w io.Writer, doc *result.Document) { render.Replications(w, doc) }
			ms.failures = func(doc *result.Document) error {
				if failures := suite.FailedPublished(doc, xs); failures > 0 {
					return &exitError{ExitFailure, fmt.Sprintf("%d of %d experiments failed", failures, len(xs))}
				}
				return nil
			}
			return ms.run(cmd.Context(), stdout, stderr)
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

// listPublished is replicate --list: the published experiments as a table
// whose summaries and sources wrap in their columns.
func listPublished(w io.Writer) {
	t := render.NewTable(render.Col{Head: "EXPERIMENT"}, render.Col{Head: "WHAT IT RUNS", Wrap: true, Min: 24},
		render.Col{Head: "SOURCE", Wrap: true, Min: 20})
	for _, x := range suite.PublishedExperiments() {
		t.Row(x.Name, x.Summary, x.Source)
	}
	t.Write(w, style(w))
}
