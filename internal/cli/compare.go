package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
)

// compareFlags are compare's flags.
type compareFlags struct {
	alpha, failPct  float64
	format          string
	ignorePlacement bool
}

func newCompareCmd(stdout, stderr io.Writer) *cobra.Command {
	cf := &compareFlags{}
	cmd := &cobra.Command{
		Use:   "compare [LABEL=]BASE.json [LABEL=]NEW.json... | BEFORE.json... -- AFTER.json...",
		Short: "compare result files benchstat-style: medians, changes with their intervals, blocks as the unit",
		Long: `Compare puts result files side by side, per benchmark and placement: the median
of each file with its confidence interval, and for every file after the
first (the base) the change with its interval, e.g. "+7.1% [+3.0%, +11.4%]".

The unit is the block (one worker process), not the sample: a change is the
Hodges–Lehmann ratio of the two files' block medians, and its interval at
1 − --alpha inverts the Mann-Whitney test on blocks (no normality assumed).
A change whose interval contains no change prints as "≈": the data do not
show a difference. The change these files would find in 80% of comparisons
like this one is printed ("resolvable").

When both files come from one machine fingerprint (machine, kernel, build,
figure-changing settings) and the machine had learned how far its sittings
move (ctxbench aa, or earlier runs: the figures carry a reproducibility
interval), a change is tested against reproducibility instead — the two
sittings' precision plus the between-sitting spread — so that identical
runs are called different at about the nominal rate; a note says which
test each comparison used, and names the command that learns the rest.
Files written before blocks were recorded are compared sample by sample,
with a footnote. A geomean row closes each table. Footnotes mark rows with
too few blocks or a flagged switch count, and warnings say when the files
come from different environments (CPU, kernel, mitigations,
virtualization, cgroups, idle driver) or from a dry run.

Sets of sittings: "compare a1.json a2.json a3.json -- b1.json b2.json b3.json"
compares the files before the "--" with those after it, each file one
sitting (before and after an upgrade, two builds): sittings are the unit,
each side's figure is the geometric mean of its sittings' medians, and a
change is tested against the sets' own scatter pooled with the spread the
machine has learned.

Where both files probed the host (every block times a fixed pointer chase:
the host's speed, which moves every figure of a sitting together) and the
machine has learned how much of that reaches each cell, the change is
tested on host-adjusted figures; the table still shows the measured
medians, and a note says so.

An argument LABEL=PATH names the column (default: the path). With
--ignore-placement, rows match by benchmark name only, so a same-cpu run can
be compared with a cross-cpu one.

Exit status: 0, or 3 with --fail-on-regression when a slowdown's whole
interval lies above the threshold; 2 for unreadable or malformed files.`,
		Example: `  ctxbench compare old.json new.json
  ctxbench compare before=main.json after=branch.json --fail-on-regression 5
  ctxbench compare --ignore-placement same=same.json cross=cross.json
  ctxbench compare a.json b.json c.json --format markdown > cmp.md
  ctxbench compare before/*.json -- after/*.json
  ctxbench compare old.json new.json --format json | jq '.tables[].rows[].changes[] | select(.significant)'`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return cf.run(cmd, args, stdout, stderr) },
	}
	f := cmd.Flags()
	f.Float64Var(&cf.alpha, "alpha", compare.DefaultAlpha, "1 − the confidence of the change's interval (the Mann-Whitney test on blocks it inverts)")
	f.Var((*percentValue)(&cf.failPct), "fail-on-regression", "exit with status 3 when a slowdown's whole interval lies above `PCT` percent (e.g. 5 or 5%)")
	f.StringVar(&cf.format, "format", "text", "output format: text, csv (footnotes and warnings to stderr), markdown, or json (one document: inputs, tables, notes, hints and environment differences)")
	f.BoolVar(&cf.ignorePlacement, "ignore-placement", false, "match rows by benchmark name only (compare a same-cpu file with a cross-cpu one)")
	return cmd
}

// run compares the files: the flags checked, the files read and compared
// (as files, or as two sets of sittings around "--"), the comparison
// written in the format asked for, and regressions past
// --fail-on-regression turned into exit status 3.
func (cf *compareFlags) run(cmd *cobra.Command, args []string, stdout, stderr io.Writer) error {
	failOn := cmd.Flags().Lookup("fail-on-regression")
	if failOn.Changed && (cf.failPct < 0 || math.IsNaN(cf.failPct)) {
		return usagef("--%s must be a percentage >= 0, got %v", failOn.Name, cf.failPct)
	}
	if !(cf.alpha > 0 && cf.alpha < 1) {
		return usagef("--alpha must be between 0 and 1 (exclusive), got %v", cf.alpha)
	}
	write, err := compareWriter(cf.format)
	if err != nil {
		return err
	}
	inputs, err := loadInputs(args, cmd.InOrStdin())
	if err != nil {
		return err
	}
	opts := compare.Options{Alpha: cf.alpha, IgnorePlacement: cf.ignorePlacement}
	var c *compare.Comparison
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		if dash == 0 || dash == len(args) {
			return usagef("compare BEFORE... -- AFTER...: each side of \"--\" needs at least one file")
		}
		c, err = compare.CompareSets(inputs[:dash], inputs[dash:], opts)
	} else {
		c, err = compare.Compare(inputs, opts)
	}
	if err != nil {
		return &usageError{err.Error()}
	}
	if err := cf.write(c, write, stdout, stderr); err != nil {
		return err
	}
	if failOn.Changed {
		return regressions(c, cf.failPct)
	}
	return nil
}

// compareWriter is the writer of --format.
func compareWriter(format string) (func(io.Writer, *compare.Comparison) error, error) {
	switch format {
	case "text":
		return render.CompareText, nil
	case "csv":
		return formats.CompareCSV, nil
	case "markdown", "md":
		return formats.CompareMarkdown, nil
	case "json":
		return formats.CompareJSON, nil
	}
	return nil, usagef("--format must be text, csv, markdown or json, got %q", format)
}

// write writes the comparison to stdout once it is whole: the text as a
// terminal view laid out for stdout's width, the others as they are; the
// CSV's footnotes and warnings go to stderr.
func (cf *compareFlags) write(c *compare.Comparison, write func(io.Writer, *compare.Comparison) error, stdout, stderr io.Writer) error {
	var buf bytes.Buffer
	if cf.format == "text" {
		var werr error
		viewAs(&buf, stdout, func(w io.Writer) { werr = write(w, c) })
		if werr != nil {
			return werr
		}
	} else if err := write(&buf, c); err != nil {
		return err
	}
	if _, err := stdout.Write(buf.Bytes()); err != nil {
		return err
	}
	if cf.format == "csv" {
		for _, m := range formats.CompareMessages(c) {
			fmt.Fprintln(stderr, m)
		}
	}
	return nil
}

// regressions is exit status 3 naming every slowdown whose whole interval
// lies above failPct percent; nil when none does.
func regressions(c *compare.Comparison, failPct float64) error {
	regs := c.Regressions(failPct)
	if len(regs) == 0 {
		return nil
	}
	parts := make([]string, len(regs))
	for i, r := range regs {
		parts[i] = r.String()
	}
	return &exitError{ExitRegression, fmt.Sprintf("%d regression(s) whose whole interval lies above +%g%%: %s",
		len(regs), failPct, strings.Join(parts, "; "))}
}

// percentValue is a float flag that accepts a trailing "%".
type percentValue float64

func (p *percentValue) String() string { return strconv.FormatFloat(float64(*p), 'g', -1, 64) }
func (p *percentValue) Type() string   { return "PCT" }
func (p *percentValue) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	if err != nil {
		return fmt.Errorf("not a percentage: %q", s)
	}
	*p = percentValue(v)
	return nil
}

// loadInputs reads LABEL=PATH arguments (a bare PATH is its own label).
// Any file that cannot be read or is not a valid result is bad input.
func loadInputs(args []string, stdin io.Reader) ([]compare.Input, error) {
	var inputs []compare.Input
	labels := map[string]string{}
	fromStdin := 0
	for _, a := range args {
		if a == "-" || strings.HasSuffix(a, "=-") {
			fromStdin++
		}
	}
	if fromStdin > 1 {
		return nil, usagef("standard input (-) can be read only once")
	}
	for _, a := range args {
		label, path := a, a
		if i := strings.IndexByte(a, '='); i >= 0 {
			if _, err := os.Stat(a); err != nil {
				label, path = a[:i], a[i+1:]
			}
		}
		if label == "" || path == "" {
			return nil, usagef("%q: want PATH or LABEL=PATH", a)
		}
		if prev, dup := labels[label]; dup {
			return nil, usagef("%s and %s have the same label %q; name them with LABEL=PATH", prev, path, label)
		}
		labels[label] = path
		doc, err := result.Load(path, stdin)
		if err != nil {
			var fe *result.FormatError
			var pe *fs.PathError
			switch {
			case errors.As(err, &fe):
				return nil, &usageError{fe.Error()}
			case errors.As(err, &pe):
				return nil, usagef("%s: %v", path, pe.Err)
			}
			return nil, usagef("%s: %v", path, err)
		}
		inputs = append(inputs, compare.Input{Label: label, Path: path, Doc: doc})
	}
	return inputs, nil
}
