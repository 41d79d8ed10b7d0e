package formats

// compare.go: the comparison as Markdown and CSV (its JSON is
// compare_json.go), and the messages a format that cannot hold them
// leaves to stderr.

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/units"
)

// CompareMarkdown prints the comparison as Markdown tables with footnotes.
func CompareMarkdown(w io.Writer, c *compare.Comparison) error {
	for _, s := range c.Shared {
		fmt.Fprintf(w, "- %s\n", s)
	}
	fmt.Fprintf(w, "\n%s.\n\n%s %s\n", render.CompareLegend(c, "Cells", "*vs base*"), render.MarkUnresolved.Symbol, render.MarkUnresolved.Legend)
	if render.CompareOtherLevels(c) {
		fmt.Fprintf(w, "\n%s %s\n", render.MarkLevel.Symbol, render.MarkLevel.Legend)
	}
	if render.CompareHostAdjusted(c) {
		fmt.Fprintf(w, "\n%s %s\n", render.MarkHost.Symbol, render.MarkHost.Legend)
	}
	for _, t := range c.Tables {
		if msg := render.CompareUnshared(c, t); msg != "" {
			fmt.Fprintf(w, "\n%s\n", msg)
			continue
		}
		fmt.Fprintf(w, "\n### %s (%s)\n\n", t.Title, t.Unit)
		head := []string{"benchmark"}
		if !c.IgnorePlacement {
			head = append(head, "placement")
		}
		align := make([]string, len(head))
		for i := range align {
			align[i] = "---"
		}
		for i := range c.Inputs {
			head = append(head, mdEscape(render.CompareHeader(c, i)))
			align = append(align, "---:")
			if i > 0 {
				head = append(head, "vs base")
				align = append(align, "---:")
			}
		}
		fmt.Fprintf(w, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
		for _, r := range render.CompareRows(t) {
			geo := r == t.Geomean
			u := render.CompareRowUnit(r)
			name := "`" + r.Name + "`"
			if geo {
				name = "**geomean**"
			}
			cells := []string{name}
			if !c.IgnorePlacement {
				cells = append(cells, r.Placement)
			}
			for i := range c.Inputs {
				cells = append(cells, mdEscape(render.CompareCell(c, i, r.Cells[i], u, geo)))
				if i > 0 {
					d := render.CompareDelta(r.Deltas[i])
					if r.Deltas[i].Significant {
						d = "**" + d + "**"
					}
					cells = append(cells, mdEscape(render.WithFootnotes(d, r.Deltas[i].Notes)))
				}
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
	}
	if len(c.Notes) > 0 {
		fmt.Fprintln(w)
		for i, n := range c.Notes {
			fmt.Fprintf(w, "%s %s  \n", render.Footnotes([]int{i + 1}), mdEscape(n))
		}
	}
	if len(c.EnvDiffs)+len(c.Hints)+len(c.Synthetic) > 0 {
		fmt.Fprintln(w)
	}
	for _, l := range c.Synthetic {
		fmt.Fprintf(w, "> **warning:** %s is a dry run: its figures are synthetic, nothing was measured\n>\n", mdEscape(l))
	}
	for _, d := range c.EnvDiffs {
		fmt.Fprintf(w, "> **warning:** %s\n>\n", mdEscape(d))
	}
	for _, h := range c.Hints {
		fmt.Fprintf(w, "> note: %s\n>\n", mdEscape(h))
	}
	return nil
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

// CompareCSV prints one line per row and input (a long table that
// spreadsheets and scripts read without knowing how many inputs there
// were). Footnotes and warnings are not in it: the caller prints
// Messages to stderr, as benchstat does.
func CompareCSV(w io.Writer, c *compare.Comparison) error {
	cw := csv.NewWriter(w)
	// Every column has one name and one meaning, its unit in the name or
	// in the unit column beside it: figures are in figure_unit, changes in
	// percent as the text prints them, counts say what they count.
	_ = cw.Write([]string{"table", "figure_unit", "name", "placement", "input", "samples", "blocks", "geomean_of_rows",
		"median", "ci_low", "ci_high", "ci_confidence",
		"change_pct", "change_low_pct", "change_high_pct", "change_tested_on", "change_units_base", "change_units_this", "p", "significant", "notes"})
	f := func(v float64) string { return units.Digits(v, -1) } // every digit: a program reads it back
	for _, t := range c.Tables {
		for _, r := range render.CompareRows(t) {
			geo := r == t.Geomean
			for i, cell := range r.Cells {
				if !cell.Present {
					continue
				}
				s := cell.Summary
				rec := make([]string, 21)
				rec[0], rec[1], rec[2], rec[3], rec[4] = t.Title, t.Unit, r.Name, cell.Placement, c.Inputs[i].Label
				rec[8] = f(s.Median)
				if geo {
					rec[7] = strconv.Itoa(s.N) // the geomean's n is the rows it summarises
				} else {
					rec[5] = strconv.Itoa(s.N)
					if cell.Sizes != nil {
						rec[6] = strconv.Itoa(len(cell.Sizes))
					}
					if s.Confidence > 0 {
						rec[9], rec[10], rec[11] = f(s.CILow), f(s.CIHigh), f(s.Confidence)
					}
				}
				notes := cell.Notes
				if d := r.Deltas[i]; i > 0 && d.Present {
					rec[12] = f(100 * d.Change)
					if d.Tested {
						rec[13], rec[14], rec[15] = f(100*d.Lo), f(100*d.Hi), d.Unit
						if d.HostAdjusted {
							rec[15] += ", host-adjusted"
						}
						rec[16], rec[17] = strconv.Itoa(d.N1), strconv.Itoa(d.N2)
						rec[18], rec[19] = f(d.P), strconv.FormatBool(d.Significant)
					}
					notes = append(append([]int{}, notes...), d.Notes...)
				}
				var ns []string
				for _, n := range notes {
					ns = append(ns, strconv.Itoa(n))
				}
				rec[20] = strings.Join(ns, ";")
				_ = cw.Write(rec)
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// CompareMessages are the footnotes, warnings and hints as lines, for formats
// that cannot hold them (CSV prints them to stderr).
func CompareMessages(c *compare.Comparison) []string {
	var out []string
	for _, l := range c.Synthetic {
		out = append(out, "warning: "+l+" is a dry run: its figures are synthetic, nothing was measured")
	}
	for i, n := range c.Notes {
		out = append(out, fmt.Sprintf("note %d: %s", i+1, n))
	}
	for _, d := range c.EnvDiffs {
		out = append(out, "warning: "+d)
	}
	for _, h := range c.Hints {
		out = append(out, "note: "+h)
	}
	return out
}
