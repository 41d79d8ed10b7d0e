package render

// memory_cells.go: a memory row's figures as every surface shows them (the
// terminal's table, and the CSV and Markdown of internal/render/export):
// each cell measured, not measured, or a negative difference that is no
// figure.

import (
	"strconv"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// MemCell is one per-context figure of a memory row and what it is.
type MemCell struct {
	Column string // the CSV column's stem, and the flag's suffix
	Bytes  float64
	State  MemState
}

type MemState int

const (
	MemFigure      MemState = iota
	MemNotMeasured          // not taken for this row: "—", an empty CSV cell
	// MemNegative is a difference of two readings that came out below
	// zero: the counter moved by less than its noise. It is no figure (a
	// context cannot cost less than nothing), so it is written empty and
	// flagged, never as a number.
	MemNegative
)

// MemoryCells are a row's figures in the order of the memory table's
// columns (PSS, RSS, KERNEL, CHARGED, VIRTUAL, RUNTIME'S OWN COUNT), each
// with whether it was measured and whether it came out negative.
func MemoryCells(m result.Memory) []MemCell {
	// A runtime probe (Erlang, a coroutine frame) measures what its own
	// runtime counts instead: its zero process-level figures were not
	// taken. CHARGED is zero where no memory cgroup was usable.
	runtimeRow := m.RuntimeBytes > 0
	cell := func(col string, v float64, notTaken bool) MemCell {
		switch {
		case notTaken:
			return MemCell{col, v, MemNotMeasured}
		case v < 0:
			return MemCell{col, v, MemNegative}
		}
		return MemCell{col, v, MemFigure}
	}
	return []MemCell{
		cell("pss", m.PSSBytes, m.PSSBytes == 0 && runtimeRow),
		cell("rss", m.RSSBytes, m.RSSBytes == 0 && runtimeRow),
		cell("kernel", m.KernelBytes, m.KernelBytes == 0 && runtimeRow),
		cell("charged", m.ChargedBytes, m.ChargedBytes == 0),
		cell("virtual", m.VirtBytes, m.VirtBytes == 0 && runtimeRow),
		cell("runtime", m.RuntimeBytes, m.RuntimeBytes == 0),
	}
}

// MemText is a memory cell as every table shows it: a size, "—" where
// not measured, MarkNegative where it came out below zero.
func MemText(c MemCell) string {
	switch c.State {
	case MemFigure:
		return units.Bytes(c.Bytes)
	case MemNotMeasured:
		return "—"
	}
	return MarkNegative.Symbol
}

// MemHeld is how many contexts were held, "N of M" when a limit held it short.
func MemHeld(m result.Memory) string {
	if m.Contexts < m.Requested {
		return strconv.Itoa(m.Contexts) + " of " + strconv.Itoa(m.Requested)
	}
	return strconv.Itoa(m.Contexts)
}

// What KERNEL and CHARGED are (internal/memory, docs/spawn-memory.md): the
// two kernel-side columns differ in source and in what they hold. Every
// memory table prints these same words under it.
const (
	MemoryLegend = "Per context, while all of them were held parked at once; VIRTUAL is address space reserved, not memory used. " +
		"KERNEL = kernel stacks + page tables per context (for VMs also KVM's own page tables), from machine-wide /proc/meminfo deltas, so other activity moves it; slab is left out of every row, the VM row's too (slab_bytes_per_context in the JSON). " +
		"CHARGED = user pages + kernel memory (stacks, page tables, slab) charged to the memory cgroup the contexts were born in: exact and undisturbed, but kernel objects allocated without __GFP_ACCOUNT are not charged (for containers a lower bound). " +
		"— = not measured for this row (a runtime's probe counts what its runtime counts; no usable memory cgroup; VMs have no CHARGED)."
)

// MemClaim is a claim's text with, where it is like for like, the measured
// figure as a multiple of it: never beside a missing or negative figure,
// nor beside one the claim is not like for like with.
func MemClaim(m result.Memory, c result.Claim) (text, differs, multiple string) {
	text, differs = SplitClaim(c)
	byColumn := map[string]MemCell{}
	for _, mc := range MemoryCells(m) {
		byColumn[mc.Column] = mc
	}
	pss, own := byColumn["pss"], byColumn["runtime"]
	switch {
	case differs != "" || c.BytesPerContext <= 0:
	case pss.State == MemFigure && pss.Bytes > 0:
		multiple = "; measured PSS is " + units.Multiple(pss.Bytes/c.BytesPerContext) + " that"
	case own.State == MemFigure:
		multiple = "; the runtime's own count is " + units.Multiple(own.Bytes/c.BytesPerContext) + " that"
	}
	return text, differs, multiple
}
