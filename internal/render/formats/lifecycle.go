package formats

// lifecycle.go: the creation and memory sections as CSV and Markdown, for
// ctxbench spawn, ctxbench memory and the default ladder (whose Markdown
// holds every section; its CSV is one file per section, since the
// sections have other columns).

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// SpawnCSV writes one row per creation kind: the median per creation, its
// spread, the interval of the median with its level and what it rests on,
// and the claims set beside it.
func SpawnCSV(w io.Writer, d *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"name", "kind", "per_create_ns_median", "per_create_ns_p10", "per_create_ns_p90",
		"per_create_ns_ci_low", "per_create_ns_ci_high", "per_create_ns_ci_confidence", "per_create_ns_cv",
		"samples", "blocks", "interval_method", "claims", "label", "notes"})
	for _, s := range d.Spawn {
		ps := s.PerCreateNS
		lo, hi, conf := "", "", ""
		if hasInterval(ps) {
			lo, hi, conf = units.Exact(ps.CILow), units.Exact(ps.CIHigh), units.Exact(ps.Confidence)
		}
		blocks := ""
		if ps.Blocks > 0 {
			blocks = strconv.Itoa(ps.Blocks)
		}
		_ = cw.Write([]string{s.Name, s.Kind, units.Exact(ps.Median), units.Exact(ps.P10), units.Exact(ps.P90), lo, hi, conf, units.Exact(ps.CV),
			strconv.Itoa(ps.N), blocks, ps.Interval, claimsLine(s.Claims, s.Claim), s.Label, strings.Join(s.Notes, "; ")})
	}
	cw.Flush()
	return cw.Error()
}

// hasInterval says the summary has an interval of its median. With too few
// samples for any level, stats puts the extremes in its bounds and the
// level at 0: those bounds are not an interval, and no export shows them
// as one.
func hasInterval(s stats.Summary) bool { return s.Confidence > 0 }

// claimsLine is a row's claims in one cell: "text (source); ...", or the
// one-line claim of files that have no list.
func claimsLine(cs []result.Claim, claim string) string {
	if len(cs) == 0 {
		return claim
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		// The source right after the claim, before what differs from
		// the row, as the tables put it.
		text, differs := render.SplitClaim(c)
		parts[i] = text
		if c.Source != "" {
			parts[i] += " (" + c.Source + ")"
		}
		parts[i] += differs
	}
	return strings.Join(parts, "; ")
}

// SpawnMarkdown writes the creation ladder as a Markdown table: median,
// p10–p90 and this sitting's interval per creation, and the claims beside
// them with their sources numbered below the table.
func SpawnMarkdown(w io.Writer, d *result.Document) error {
	fmt.Fprintf(w, "Host: %s\n\n", d.Environment.HostLine())
	return spawnMarkdownTable(w, d)
}

func spawnMarkdownTable(w io.Writer, d *result.Document) error {
	fmt.Fprintln(w, "| Context | Measurement | Per creation (median) | p10–p90 | CI (this sitting) | Claim beside it |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---|")
	var src sourceList
	var levels []float64
	for _, s := range d.Spawn {
		levels = append(levels, s.PerCreateNS.Confidence)
	}
	stated := render.StatedLevel(levels...)
	other := false
	for _, s := range d.Spawn {
		ps := s.PerCreateNS
		claim := render.PlainClaim(s.Claim)
		if len(s.Claims) > 0 {
			parts := make([]string, len(s.Claims))
			for i, c := range s.Claims {
				// The source's number right after the claim, before what
				// differs from the row, as the terminal table puts it.
				text, differs := render.SplitClaim(c)
				parts[i] = fmt.Sprintf("%s [%d]%s", text, src.number(c.Source), differs)
			}
			claim = strings.Join(parts, "; ")
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s |\n", mdEscape(s.Kind), s.Name, units.Time(ps.Median),
			render.RangeIn(ps.P10, ps.P90, ps.Median), medianInterval(ps, stated), mdEscape(claim))
		other = other || render.LevelMarkVs(ps.Confidence, stated) != ""
	}
	fmt.Fprintf(w, "\nPer creation = create a context, run it to its end and reap it. p10–p90 and the interval are in the unit of the median beside them. CI (this sitting) = where this sitting's median lies, a %s interval; — where there were too few samples for any interval.\n", render.LevelText(stated))
	if other {
		fmt.Fprintf(w, "\n%s %s\n", render.MarkLevel.Symbol, render.MarkLevel.Legend)
	}
	src.write(w)
	return nil
}

// medianInterval is a Markdown cell for the interval of a median: its
// bounds in the median's unit, the level where it is not 95%, "—" without
// an interval.
func medianInterval(s stats.Summary, stated float64) string {
	if !hasInterval(s) {
		return "—"
	}
	return render.RangeIn(s.CILow, s.CIHigh, s.Median) + render.LevelMarkVs(s.Confidence, stated)
}

// sourceList numbers the sources of claims in the order they are first
// cited.
type sourceList []string

func (l *sourceList) number(src string) int {
	if i := slices.Index(*l, src); i >= 0 {
		return i + 1
	}
	*l = append(*l, src)
	return len(*l)
}

func (l sourceList) write(w io.Writer) {
	if len(l) > 0 {
		fmt.Fprintln(w)
	}
	for i, s := range l {
		fmt.Fprintf(w, "- [%d] %s\n", i+1, mdEscape(s))
	}
}

// MemoryCSV writes one row per memory kind with every column of the
// memory table: how many contexts were held of how many asked for, then
// bytes per context. A figure not measured is empty; a negative one is
// empty too and named in flags ("negative-pss", ...), so no reader takes
// it for a figure.
func MemoryCSV(w io.Writer, d *result.Document) error {
	cw := csv.NewWriter(w)
	head := []string{"name", "kind", "contexts", "requested"}
	for _, c := range render.MemoryCells(result.Memory{}) {
		head = append(head, c.Column+"_bytes_per_context")
	}
	_ = cw.Write(append(head, "runtime_metric", "flags", "limit", "claims", "label"))
	for _, m := range d.Memory {
		row := []string{m.Name, m.Kind, strconv.Itoa(m.Contexts), strconv.Itoa(m.Requested)}
		var flags []string
		for _, c := range render.MemoryCells(m) {
			v := ""
			switch c.State {
			case render.MemFigure:
				v = units.Exact(c.Bytes)
			case render.MemNegative:
				flags = append(flags, "negative-"+c.Column)
			}
			row = append(row, v)
		}
		_ = cw.Write(append(row, m.RuntimeMetric, strings.Join(flags, ";"), m.Limit, claimsLine(m.Claims, m.Claim), m.Label))
	}
	cw.Flush()
	return cw.Error()
}

// MemoryMarkdown writes the memory ladder as a Markdown table with the
// terminal table's columns and marks (— not measured, n/a* a negative
// difference), what KERNEL and CHARGED hold, and each row's claims and
// the limit that held it short.
func MemoryMarkdown(w io.Writer, d *result.Document) error {
	fmt.Fprintf(w, "Host: %s\n\n", d.Environment.HostLine())
	return memoryMarkdownTable(w, d)
}

func memoryMarkdownTable(w io.Writer, d *result.Document) error {
	fmt.Fprintln(w, "| Context | Measurement | Held | PSS | RSS | Kernel | Charged | Virtual | Runtime's own count |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---:|")
	negative := false
	for _, m := range d.Memory {
		cells := []string{mdEscape(m.Kind), "`" + m.Name + "`", render.MemHeld(m)}
		for _, c := range render.MemoryCells(m) {
			cells = append(cells, render.MemText(c))
			negative = negative || c.State == render.MemNegative
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w, "\n"+render.MemoryLegend)
	if negative {
		fmt.Fprintln(w, "\n"+render.MarkNegative.Symbol+" "+render.MarkNegative.Legend)
	}
	var notes []string
	for _, m := range d.Memory {
		for _, c := range m.Claims {
			text, differs, multiple := render.MemClaim(m, c)
			notes = append(notes, fmt.Sprintf("- `%s` — claim: %s (%s)%s%s", m.Name, mdEscape(text), mdEscape(c.Source), mdEscape(differs), multiple))
		}
		if len(m.Claims) == 0 && m.Claim != "" {
			notes = append(notes, fmt.Sprintf("- `%s` — claim: %s", m.Name, mdEscape(m.Claim)))
		}
		if m.Limit != "" {
			notes = append(notes, fmt.Sprintf("- `%s` — held %d of %d: %s", m.Name, m.Contexts, m.Requested, mdEscape(m.Limit)))
		}
	}
	if len(notes) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(notes, "\n"))
	}
	return nil
}
