package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// The creation and memory sections as CSV and Markdown, for `ctxbench
// spawn`, `ctxbench memory` and the default ladder (whose Markdown holds
// every section; its CSV is one file per section, since the sections have
// other columns).

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
		text, differs := splitClaim(c)
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
	stated := statedLevel(levels...)
	other := false
	for _, s := range d.Spawn {
		ps := s.PerCreateNS
		claim := plainClaim(s.Claim)
		if len(s.Claims) > 0 {
			parts := make([]string, len(s.Claims))
			for i, c := range s.Claims {
				// The source's number right after the claim, before what
				// differs from the row, as the terminal table puts it.
				text, differs := splitClaim(c)
				parts[i] = fmt.Sprintf("%s [%d]%s", text, src.number(c.Source), differs)
			}
			claim = strings.Join(parts, "; ")
		}
		fmt.Fprintf(w, "| %s | `%s` | %s | %s | %s | %s |\n", mdEscape(s.Kind), s.Name, units.Time(ps.Median),
			rangeIn(ps.P10, ps.P90, ps.Median), medianInterval(ps, stated), mdEscape(claim))
		other = other || levelMarkVs(ps.Confidence, stated) != ""
	}
	fmt.Fprintf(w, "\nPer creation = create a context, run it to its end and reap it. p10–p90 and the interval are in the unit of the median beside them. CI (this sitting) = where this sitting's median lies, a %s interval; — where there were too few samples for any interval.\n", LevelText(stated))
	if other {
		fmt.Fprintf(w, "\n%s %s\n", MarkLevel.Symbol, MarkLevel.Legend)
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
	return rangeIn(s.CILow, s.CIHigh, s.Median) + levelMarkVs(s.Confidence, stated)
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

// memCell is one per-context figure of a memory row and what it is.
type memCell struct {
	column string // the CSV column's stem, and the flag's suffix
	v      float64
	state  memState
}

type memState int

const (
	memFigure      memState = iota
	memNotMeasured          // not taken for this row: "—", an empty CSV cell
	// memNegative is a difference of two readings that came out below
	// zero: the counter moved by less than its noise. It is no figure (a
	// context cannot cost less than nothing), so it is written empty and
	// flagged, never as a number.
	memNegative
)

// memoryCells are a row's figures in the order of the memory table's
// columns (PSS, RSS, KERNEL, CHARGED, VIRTUAL, RUNTIME'S OWN COUNT), each
// with whether it was measured and whether it came out negative.
func memoryCells(m result.Memory) []memCell {
	// A runtime probe (Erlang, a coroutine frame) measures what its own
	// runtime counts instead: its zero process-level figures were not
	// taken. CHARGED is zero where no memory cgroup was usable.
	runtimeRow := m.RuntimeBytes > 0
	cell := func(col string, v float64, notTaken bool) memCell {
		switch {
		case notTaken:
			return memCell{col, v, memNotMeasured}
		case v < 0:
			return memCell{col, v, memNegative}
		}
		return memCell{col, v, memFigure}
	}
	return []memCell{
		cell("pss", m.PSSBytes, m.PSSBytes == 0 && runtimeRow),
		cell("rss", m.RSSBytes, m.RSSBytes == 0 && runtimeRow),
		cell("kernel", m.KernelBytes, m.KernelBytes == 0 && runtimeRow),
		cell("charged", m.ChargedBytes, m.ChargedBytes == 0),
		cell("virtual", m.VirtBytes, m.VirtBytes == 0 && runtimeRow),
		cell("runtime", m.RuntimeBytes, m.RuntimeBytes == 0),
	}
}

// memText is a memory cell as every table shows it: a size, "—" where
// not measured, MarkNegative where it came out below zero.
func memText(c memCell) string {
	switch c.state {
	case memFigure:
		return units.Bytes(c.v)
	case memNotMeasured:
		return "—"
	}
	return MarkNegative.Symbol
}

// memHeld is how many contexts were held, "N of M" when a limit held it short.
func memHeld(m result.Memory) string {
	if m.Contexts < m.Requested {
		return strconv.Itoa(m.Contexts) + " of " + strconv.Itoa(m.Requested)
	}
	return strconv.Itoa(m.Contexts)
}

// What KERNEL and CHARGED are (internal/memory, docs/spawn-memory.md): the
// two kernel-side columns differ in source and in what they hold. Every
// memory table prints these same words under it.
const (
	memoryLegend = "Per context, while all of them were held parked at once; VIRTUAL is address space reserved, not memory used. " +
		"KERNEL = kernel stacks + page tables per context (for VMs also KVM's own page tables), from machine-wide /proc/meminfo deltas, so other activity moves it; slab is left out of every row, the VM row's too (slab_bytes_per_context in the JSON). " +
		"CHARGED = user pages + kernel memory (stacks, page tables, slab) charged to the memory cgroup the contexts were born in: exact and undisturbed, but kernel objects allocated without __GFP_ACCOUNT are not charged (for containers a lower bound). " +
		"— = not measured for this row (a runtime's probe counts what its runtime counts; no usable memory cgroup; VMs have no CHARGED)."
)

// memClaim is a claim's text with, where it is like for like, the measured
// figure as a multiple of it: never beside a missing or negative figure,
// nor beside one the claim is not like for like with.
func memClaim(m result.Memory, c result.Claim) (text, differs, multiple string) {
	text, differs = splitClaim(c)
	byColumn := map[string]memCell{}
	for _, mc := range memoryCells(m) {
		byColumn[mc.column] = mc
	}
	pss, own := byColumn["pss"], byColumn["runtime"]
	switch {
	case differs != "" || c.BytesPerContext <= 0:
	case pss.state == memFigure && pss.v > 0:
		multiple = "; measured PSS is " + units.Multiple(pss.v/c.BytesPerContext) + " that"
	case own.state == memFigure:
		multiple = "; the runtime's own count is " + units.Multiple(own.v/c.BytesPerContext) + " that"
	}
	return text, differs, multiple
}

// MemoryCSV writes one row per memory kind with every column of the
// memory table: how many contexts were held of how many asked for, then
// bytes per context. A figure not measured is empty; a negative one is
// empty too and named in flags ("negative-pss", ...), so no reader takes
// it for a figure.
func MemoryCSV(w io.Writer, d *result.Document) error {
	cw := csv.NewWriter(w)
	head := []string{"name", "kind", "contexts", "requested"}
	for _, c := range memoryCells(result.Memory{}) {
		head = append(head, c.column+"_bytes_per_context")
	}
	_ = cw.Write(append(head, "runtime_metric", "flags", "limit", "claims", "label"))
	for _, m := range d.Memory {
		row := []string{m.Name, m.Kind, strconv.Itoa(m.Contexts), strconv.Itoa(m.Requested)}
		var flags []string
		for _, c := range memoryCells(m) {
			v := ""
			switch c.state {
			case memFigure:
				v = units.Exact(c.v)
			case memNegative:
				flags = append(flags, "negative-"+c.column)
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
		cells := []string{mdEscape(m.Kind), "`" + m.Name + "`", memHeld(m)}
		for _, c := range memoryCells(m) {
			cells = append(cells, memText(c))
			negative = negative || c.state == memNegative
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	fmt.Fprintln(w, "\n"+memoryLegend)
	if negative {
		fmt.Fprintln(w, "\n"+MarkNegative.Symbol+" "+MarkNegative.Legend)
	}
	var notes []string
	for _, m := range d.Memory {
		for _, c := range m.Claims {
			text, differs, multiple := memClaim(m, c)
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
