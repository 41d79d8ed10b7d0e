package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/export"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/replicate"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/runner"
)

func init() { extraCommands = append(extraCommands, newReplicate) }

func newReplicate(stdout, stderr io.Writer) *cobra.Command {
	var quick, list, quiet bool
	var cpus, exportJSON string
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
				for _, x := range replicate.All() {
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
			env := machine.Collect(machine.Options{})
			log := io.Writer(stderr)
			if quiet {
				log = io.Discard
			}
			doc := &result.Document{SchemaVersion: result.SchemaVersion, Tool: tool(), Command: append([]string{"ctxbench"}, os.Args[1:]...),
				StartedAt: time.Now().UTC(), Results: []result.Result{}, Settings: result.Settings{Preset: map[bool]string{true: "quick", false: "as-published"}[quick], CPUs: cpuList}}
			e := replicate.Env{Environment: env, CPUs: cpuList, Quick: quick, Executor: runner.ProcessExecutor{}, Log: log}
			failed := 0
			for _, x := range xs {
				reps, err := x.Run(cmd.Context(), e)
				if err != nil {
					if cmd.Context().Err() != nil {
						return cmd.Context().Err()
					}
					failed++
					doc.Failures = append(doc.Failures, result.Failure{Name: x.Name, Error: err.Error()})
					fmt.Fprintf(stderr, "ctxbench: %s failed: %v\n", x.Name, err)
					continue
				}
				doc.Replications = append(doc.Replications, reps...)
			}
			doc.FinishedAt = time.Now().UTC()
			doc.Environment = env
			doc.Warnings = env.Warnings
			out, err := saveJSON(doc, exportJSON, stdout, stderr)
			if err != nil {
				return err
			}
			if !quiet {
				printReplications(out, doc)
			}
			if failed > 0 {
				return &exitError{ExitFailure, fmt.Sprintf("%d of %d experiments failed", failed, len(xs))}
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
	return cmd
}

func printReplications(w io.Writer, d *result.Document) {
	fmt.Fprintf(w, "\nctxbench replicate — %s\n", export.HostLine(d.Environment))
	for _, r := range d.Replications {
		fmt.Fprintf(w, "\n== %s (%s)\n", r.Name, r.Source)
		fmt.Fprintf(w, "   published: %s\n", r.Published)
		fmt.Fprintf(w, "   measured:  %s\n", r.Measured)
		if r.Mistake != "" {
			fmt.Fprintf(w, "   wrong:     %s\n", r.Mistake)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "   note:      %s\n", n)
		}
	}
	if len(d.Replications) > 0 {
		fmt.Fprintln(w, "\n"+strings.Repeat("-", 20))
		fmt.Fprintln(w, "Published figures come from other machines; compare ratios and directions, not absolute values.")
	}
}
