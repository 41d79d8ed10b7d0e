package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/report"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/store"
)

// defaultHistory is --history without a value: the history ctxbench
// history reads by default.
const defaultHistory = "default"

func newReportCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		out, title, history string
		alpha               float64
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

An argument LABEL=PATH names the run (default: the path).

--history adds a History section: each cell (name and placement) of the
files over the sittings of its machine in the history (what ctxbench history
shows as text), one trend chart per machine fingerprint and cell with the
steps found. --history alone reads the history ctxbench history reads by
default; --history=TARGET another one. A history that cannot be read leaves
the section out, with one line on stderr: the report is still written.`,
		Example: `  ctxbench report results.json -o report.html
  ctxbench report laptop=a.json server=b.json -o machines.html
  ctxbench report results.json -o report.html --history
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
			withHistory := cmd.Flags().Changed("history")
			if withHistory && history == "" {
				return usagef("--history= names no history: give --history=TARGET, or --history alone for the default one")
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
			opts := report.Options{Title: title, Generator: versionString()}
			if withHistory {
				opts.History = reportHistory(cmd.Context(), history, inputs, stderr)
			}
			var buf bytes.Buffer
			if err := report.Render(&buf, inputs, cmp, opts); err != nil {
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
	f.StringVar(&history, "history", "", "add the files' cells over time from the history at `TARGET` (alone: the one ctxbench history reads)")
	f.Lookup("history").NoOptDefVal = defaultHistory
	return cmd
}

// reportHistory is the report's History section: the cells the files hold,
// over the sittings of every machine fingerprint the history has them for.
// It is a convenience, never a condition: a history that cannot be read
// leaves the section out with one line on stderr, and the report is still
// written.
func reportHistory(ctx context.Context, target string, inputs []compare.Input, stderr io.Writer) *render.History {
	h, err := readReportHistory(ctx, target, inputs, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ctxbench: report: no History section: %s\n", oneLine(err.Error()))
		return nil
	}
	return h
}

func readReportHistory(ctx context.Context, target string, inputs []compare.Input, stderr io.Writer) (*render.History, error) {
	if target == defaultHistory {
		target = ""
	}
	path, err := storeFlagPath("history", target)
	if err != nil {
		return nil, err
	}
	// A report reads a history, it never starts one (a URL names a
	// database, which no open creates).
	st, notes, err := store.OpenExisting(ctx, path)
	if errors.Is(err, store.ErrNoStore) {
		return nil, fmt.Errorf("no history at %s (nothing recorded there yet)", path)
	}
	for _, n := range notes {
		fmt.Fprintf(stderr, "ctxbench: report: %s\n", n)
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	cells, names := reportCells(inputs)
	ms := []store.Machine{}
	if len(names) > 0 { // no names would be every cell
		if ms, err = st.Every(ctx, names); err != nil {
			return nil, err
		}
	}
	return keepCells(historyView(st.Path(), ms), cells), nil
}

// reportCells are the ladder rows of the files, by name and placement,
// and their names. A cell's CPUs are not matched: the same row measured on
// other CPUs is shown too, in a chart of its own (its title names them).
func reportCells(inputs []compare.Input) (map[[2]string]bool, []string) {
	cells := map[[2]string]bool{}
	var names []string
	for _, in := range inputs {
		for _, r := range in.Doc.Results {
			if !slices.Contains(names, r.Name) {
				names = append(names, r.Name)
			}
			cells[[2]string{r.Name, r.Placement}] = true
		}
	}
	return cells, names
}

// keepCells leaves in h the cells of the files, and the machines with any.
func keepCells(h *render.History, cells map[[2]string]bool) *render.History {
	machines := []render.HistoryMachine{}
	for _, m := range h.Machines {
		kept := []render.HistoryCell{}
		for _, c := range m.Cells {
			if cells[[2]string{c.Name, c.Placement}] {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			m.Cells = kept
			machines = append(machines, m)
		}
	}
	h.Machines = machines
	return h
}
