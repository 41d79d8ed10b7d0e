package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/export"
	"github.com/ctxbench/ctxbench/internal/result"
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
			benches, err := bench.Select(args)
			if err != nil {
				return &usageError{err.Error()}
			}
			return runLadder(cmd.Context(), mf, benches, stdout, stderr, false)
		},
	}
	mf.register(cmd)
	return cmd
}

// runLadder measures and reports. With ladder set (no arguments) it runs
// every available benchmark and always writes a JSON file.
func runLadder(ctx context.Context, mf *measureFlags, benches []*bench.Benchmark, stdout, stderr io.Writer, ladder bool) error {
	if benches == nil {
		benches = bench.All()
	}
	if ladder && mf.exportJSON == "" {
		mf.exportJSON = time.Now().Format("ctxbench-20060102-150405.json")
	}
	doc, err := measure(ctx, mf, benches, stderr)
	if err != nil {
		return err
	}
	if ladder && !mf.switchesOnly && !mf.dryRun {
		if err := lifecycle(ctx, doc, mf.quick, doc.Settings.CPUs, stderr, mf.quiet); err != nil {
			return err
		}
		doc.FinishedAt = time.Now().UTC()
	}
	// Tables go to stdout unless an export claims it.
	table := stdout
	for _, f := range []string{mf.exportJSON, mf.exportCSV, mf.exportMarkdown, mf.exportGoBench} {
		if f == "-" {
			table = stderr
		}
	}
	if err := writeExports(doc, mf, stdout); err != nil {
		return err
	}
	if !mf.quiet {
		export.Ladder(table, doc, style(table))
		export.Spawn(table, doc)
		export.Memory(table, doc)
		if ladder {
			export.PrintHierarchy(table, doc)
		}
		printMissing(table, doc)
		if mf.exportJSON != "" && mf.exportJSON != "-" {
			fmt.Fprintf(table, "\nresults written to %s\n", mf.exportJSON)
		}
	}
	return failed(doc, "measurements", len(doc.Failures)+len(doc.Results)+len(doc.Spawn)+len(doc.Memory))
}

// writeExports writes every requested export atomically.
func writeExports(doc *result.Document, mf *measureFlags, stdout io.Writer) error {
	if mf.exportJSON != "" {
		if err := doc.Save(mf.exportJSON, stdout); err != nil {
			return fmt.Errorf("writing %s: %w", mf.exportJSON, err)
		}
	}
	for _, e := range []struct {
		path  string
		write func(io.Writer, *result.Document) error
	}{
		{mf.exportCSV, export.CSV},
		{mf.exportMarkdown, export.Markdown},
		{mf.exportGoBench, export.GoBench},
	} {
		if e.path == "" {
			continue
		}
		var buf bytes.Buffer
		if err := e.write(&buf, doc); err != nil {
			return err
		}
		if err := result.WriteFile(e.path, buf.Bytes(), stdout); err != nil {
			return fmt.Errorf("writing %s: %w", e.path, err)
		}
	}
	return nil
}
