package cli

import (
	"context"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

func newAB(stdout, stderr io.Writer) *cobra.Command {
	mf := &measureFlags{}
	var setupA, setupB, cleanup string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "ab [NAME...] --setup-a CMD --setup-b CMD",
		Short: "interleaved A/B in one sitting: the change a set-up command makes, from blocks paired round by round",
		Long: `ab measures the same cells under two set-ups in one sitting, as hyperfine's
--prepare does for commands: every cell runs as side A and side B, the sides'
blocks interleaved round by round in a seeded order, --setup-a (a shell
command) run before every block of A and --setup-b before every block of B.
Each cell's change from A to B is taken from its A and B blocks paired by
round — a round's blocks ran side by side in the same stretch of host noise,
which cancels in their ratio — with the signed-rank interval of the paired
ratios: "+7.1% [+4.0%, +10.3%] (10 rounds)", "≈" where the interval holds no
change. It sees a change that two separate runs, each in its own stretch of
the host's noise, cannot.

The set-up commands run with /bin/sh, outside every block and its clocks, in
a process group of their own that is removed when each returns; one that
fails or outlives --setup-timeout stops the run at once with one line naming
it and its exit status (exit 1). --cleanup runs once at the end, also after
a failure or Ctrl-C. The commands are recorded in the document (ab). An ab
run is not recorded in the machine's history: its sides ran under set-ups
of your making.

Without names it measures thread/pipe, process/pipe and thread/futex at the
same CPU. The sampling flags are run's.`,
		Example: `  ctxbench ab --setup-a true --setup-b true           # an A/A: how often is nothing called a change?
  ctxbench ab thread/pipe --cpus 1 \
      --setup-a 'echo 0 > /sys/kernel/tracing/events/sched/sched_switch/enable' \
      --setup-b 'echo 1 > /sys/kernel/tracing/events/sched/sched_switch/enable' \
      --cleanup 'echo 0 > /sys/kernel/tracing/events/sched/sched_switch/enable'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if setupA == "" || setupB == "" {
				return usagef("ab needs both --setup-a and --setup-b (use true for a side with nothing to set up)")
			}
			if timeout <= 0 {
				return usagef("--setup-timeout must be positive, got %v", timeout)
			}
			if err := mf.refuseTables("ab writes JSON only (--export-json): its rows are two sides of each cell"); err != nil {
				return err
			}
			benches, err := selfTestCells(cmd, mf, args)
			if err != nil {
				return err
			}
			return runAB(cmd.Context(), mf, benches, suite.ABOptions{SetupA: setupA, SetupB: setupB, Cleanup: cleanup, Timeout: timeout}, stdout, stderr)
		},
	}
	mf.register(cmd)
	mf.jsonOnly(cmd)
	f := cmd.Flags()
	f.StringVar(&setupA, "setup-a", "", "shell `CMD` run before every block of side A")
	f.StringVar(&setupB, "setup-b", "", "shell `CMD` run before every block of side B")
	f.StringVar(&cleanup, "cleanup", "", "shell `CMD` run once at the end (also after a failure or Ctrl-C)")
	f.DurationVar(&timeout, "setup-timeout", suite.DefaultSetupTimeout, "longest one set-up or clean-up command may take before it is killed and the run stops")
	return cmd
}

func runAB(ctx context.Context, mf *measureFlags, benches []*model.Benchmark, o suite.ABOptions, stdout, stderr io.Writer) error {
	so, set, placements, _, err := mf.settings()
	if err != nil {
		return err
	}
	o.Benches, o.Placements, o.Sampling = benches, placements, so
	ms := mf.measurement(set)
	ms.compose = func(spec session.Spec) (session.Spec, error) { return suite.AB(spec, o), nil }
	ms.show = func(w io.Writer, doc *result.Document) { render.AB(w, doc) }
	ms.failures = func(doc *result.Document) error {
		return failed(doc, "measurements", len(doc.Results)+len(doc.Failures))
	}
	return ms.run(ctx, stdout, stderr)
}
