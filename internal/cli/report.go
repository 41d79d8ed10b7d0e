package cli

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render/report"
	"github.com/ctxbench/ctxbench/internal/result"
)

func newReportCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		out, title string
		alpha      float64
	)
	cmd := &cobra.Command{
		Use:   "report [LABEL=]RESULTS.json... -o report.html",
		Short: "write one self-contained HTML report of one or more result files",
		Long: `Report writes one HTML file that shows the result files: the switch ladder on a
log scale with p10-p90 whiskers and the confidence interval of every median,
ring curves, the creation and memory ladders, connection-pool curves, the
published experiments re-run, every warning and flag, each figure's label,
and the environment of every run side by side. With several files (several
machines, or before and after) their figures sit on adjacent lines and a
comparison against the first file closes the report.

The file opens offline: no script, font, style or image is fetched from
anywhere (its Content-Security-Policy forbids it), and it prints.

An argument LABEL=PATH names the run (default: the path).`,
		Example: `  ctxbench report results.json -o report.html
  ctxbench report laptop=a.json server=b.json -o machines.html
  ctxbench run all --export-json - | ctxbench report - -o -  > report.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("-o FILE is required (- writes to stdout)")
			}
			if out != "-" {
				if err := result.CheckWritable(out); err != nil {
					return usagef("-o %s: %v", out, err)
				}
			}
			if !(alpha > 0 && alpha < 1) {
				return usagef("--alpha must be between 0 and 1 (exclusive), got %v", alpha)
			}
			inputs, err := loadInputs(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			var cmp *compare.Comparison
			if len(inputs) > 1 {
				// A comparison the files do not allow (two placements of
				// one row under --ignore-placement cannot happen here) is
				// left out of the report, not an error.
				cmp, _ = compare.Compare(inputs, compare.Options{Alpha: alpha})
			}
			var buf bytes.Buffer
			if err := report.Render(&buf, inputs, cmp, report.Options{Title: title, Generator: versionString()}); err != nil {
				return err
			}
			if err := result.WriteFile(out, buf.Bytes(), stdout); err != nil {
				return fmt.Errorf("writing %s: %w", out, err)
			}
			if out != "-" {
				fmt.Fprintf(stderr, "report of %d result file(s) written to %s\n", len(inputs), out)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "write the report to `FILE` (- for stdout)")
	f.StringVar(&title, "title", "", "title of the report (default \"ctxbench report\")")
	f.Float64Var(&alpha, "alpha", compare.DefaultAlpha, "significance level of the comparison between runs")
	return cmd
}
