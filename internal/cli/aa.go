package cli

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

func newAA(stdout, stderr io.Writer) *cobra.Command {
	mf := &measureFlags{}
	var sittings int
	cmd := &cobra.Command{
		Use:   "aa [NAME...]",
		Short: "A/A self-test: is this machine quiet enough to see a given change?",
		Long: `aa measures the same cells in several independent sittings, one after another
(each a whole run: fresh calibration, fresh worker processes, its own seed),
and reports what a user of the results needs to know about this machine:

  run-to-run   how much a cell's median moves between sittings (CV)
  ±CI          the mean half-width of one sitting's 95% interval
  coverage     how often another sitting's median fell inside a sitting's
               precision interval (honest 95% intervals of equal width:
               about 83%), and a later sitting's inside its reproducibility
               interval (about 95%)
  false +      how often two adjacent, identical sittings were called
               different: against precision alone, and against
               reproducibility (tested at the 5% level: about 5% if the
               method holds)
  resolvable   the smallest change one sitting can resolve against another
  told apart   for two different cells, in how many sittings compare saw
               the difference

It also teaches the machine how far its sittings move: every sitting is
recorded in the machine's history (--no-history: not), so that afterwards
every run's figures on this machine carry a reproducibility interval (where
another sitting's median will lie, not just this one's) and compare tests
changes against it. Cells that aa did not measure borrow the spread of the
cells of their placement that it did. The spread is the machine's: a new
kernel, ctxbench build or figure-changing setting on the same machine is
judged by it at once (its figures start a history of their own).

Without names it measures thread/pipe, process/pipe and thread/futex at the
same CPU. The sampling flags are run's; the default is the ladder's sampling.`,
		Example: `  ctxbench aa                                 # 6 sittings of the default cells
  ctxbench aa --sittings 10 --cpus 1 --export-json aa.json
  ctxbench aa thread/yield goroutine/gosched --placement same-cpu --quick`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if sittings < 2 || sittings > 100 {
				return usagef("--sittings must be between 2 and 100, got %d", sittings)
			}
			if err := mf.refuseTables("aa writes JSON only (--export-json): its sittings are not one table of results"); err != nil {
				return err
			}
			benches, err := selfTestCells(cmd, mf, args)
			if err != nil {
				return err
			}
			return runAA(cmd.Context(), mf, benches, sittings, stdout, stderr)
		},
	}
	mf.register(cmd)
	mf.jsonOnly(cmd)
	cmd.Flags().IntVar(&sittings, "sittings", 6, "independent sittings to measure (2–100)")
	return cmd
}

// selfTestCells are the benchmarks aa and ab measure: those named, or the
// same-CPU switches people compare most (suite.AACells), at the same CPU
// unless --placement says otherwise.
func selfTestCells(cmd *cobra.Command, mf *measureFlags, args []string) ([]*model.Benchmark, error) {
	names := args
	if len(names) == 0 {
		names = suite.AACells()
		if !cmd.Flags().Changed("placement") {
			mf.placements = []string{string(model.SameCPU)}
		}
	}
	benches, err := catalog.Select(names)
	if err != nil {
		return nil, &usageError{err.Error()}
	}
	return benches, nil
}

func runAA(ctx context.Context, mf *measureFlags, benches []*model.Benchmark, sittings int, stdout, stderr io.Writer) error {
	o, set, placements, _, err := mf.settings()
	if err != nil {
		return err
	}
	ms := mf.measurement(set)
	ms.compose = func(spec session.Spec) (session.Spec, error) {
		spec.History = mf.historyPath(stderr)
		return suite.AA(spec, suite.AAOptions{Benches: benches, Placements: placements, Sampling: o, Sittings: sittings}), nil
	}
	ms.show = func(w io.Writer, doc *result.Document) { render.AA(w, doc) }
	ms.failures = func(doc *result.Document) error {
		return failed(doc, "measurements", len(doc.Failures)+sittings*len(benches))
	}
	return ms.run(ctx, stdout, stderr)
}
