package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Spawn prints the creation ladder: median and p10–p90 per creation, the
// precision interval, beside the published or folklore claim, whose
// sources are numbered under the table.
func Spawn(w io.Writer, d *result.Document) {
	if len(d.Spawn) == 0 {
		return
	}
	st := styleOf(w)
	var levels []float64
	for _, s := range d.Spawn {
		levels = append(levels, s.PerCreateNS.Confidence)
	}
	stated := StatedLevel(levels...)
	ms := MarkSet{}
	fmt.Fprintf(w, "\ncreation: what it costs to create a context, run it to its end and reap it (median per creation, p10–p90 in the same unit; ±CI = where this sitting's median lies, %s interval: it covers this sitting only)\n", LevelText(stated))
	t := NewTable(Col{Head: "CONTEXT", Fold: 1}, Col{Head: "MEASUREMENT"}, Col{Head: "PER CREATION", Right: true},
		Col{Head: "p10–p90", Right: true, Fold: 2}, Col{Head: "±CI"}, Col{Head: "CLAIM BESIDE IT", Wrap: true, Min: 24})
	var sources []string
	for _, s := range d.Spawn {
		ps := s.PerCreateNS
		ci := ciText(ps.Median, ps.CILow, ps.CIHigh, ps.Confidence, stated)
		if strings.Contains(ci, "@") {
			ms.Use(MarkLevel)
		}
		claim := PlainClaim(s.Claim) // files without Claims (older, or made by hand)
		if len(s.Claims) > 0 {
			var parts []string
			for _, c := range s.Claims {
				n := slices.Index(sources, c.Source)
				if n < 0 {
					sources = append(sources, c.Source)
					n = len(sources) - 1
				}
				text, differs := SplitClaim(c)
				parts = append(parts, fmt.Sprintf("%s [%d]%s", text, n+1, differs))
			}
			claim = strings.Join(parts, "; ")
		}
		t.Row(s.Kind, s.Name, units.Time(ps.Median), RangeIn(ps.P10, ps.P90, ps.Median), ci, claim)
	}
	t.Write(w, st)
	ms.Only(t.Printed())
	for i, src := range sources {
		fmt.Fprintf(w, "[%d] %s\n", i+1, src)
	}
	ms.Write(w)
}

// Memory prints the memory ladder: per context, resident and proportional
// set, kernel stacks and page tables, what the contexts' memory cgroup was
// charged, and the virtual reservation apart, beside the claims.
func Memory(w io.Writer, d *result.Document) {
	if len(d.Memory) == 0 {
		return
	}
	st := styleOf(w)
	fmt.Fprintln(w, "\nmemory: what a parked context costs to keep, per context (virtual is address space reserved, not memory used)")
	t := NewTable(Col{Head: "CONTEXT", Fold: 1}, Col{Head: "MEASUREMENT"}, Col{Head: "HELD", Right: true}, Col{Head: "PSS", Right: true},
		Col{Head: "RSS", Right: true}, Col{Head: "KERNEL", Right: true}, Col{Head: "CHARGED", Right: true}, Col{Head: "VIRTUAL", Right: true},
		Col{Head: "RUNTIME'S OWN COUNT", Right: true, Fold: 2})
	ms := MarkSet{}
	for _, m := range d.Memory {
		cells := []string{m.Kind, m.Name, MemHeld(m)}
		for _, c := range MemoryCells(m) {
			cells = append(cells, MemText(c))
			if c.State == MemNegative {
				ms.Use(MarkNegative)
			}
		}
		t.Row(cells...)
	}
	t.Write(w, st)
	fmt.Fprintln(w, MemoryLegend)
	ms.Write(w)
	for _, m := range d.Memory {
		for _, c := range m.Claims {
			text, differs, multiple := MemClaim(m, c)
			fmt.Fprintf(w, "%s — claim: %s (%s)%s%s\n", m.Name, text, c.Source, differs, multiple)
		}
		if m.Limit != "" {
			fmt.Fprintf(w, "%s — held %d of %d: %s\n", m.Name, m.Contexts, m.Requested, m.Limit)
		}
	}
}

// notLikeForLike opens, where a claim is printed, what differs between it
// and the row beside it (result.Claim.Differs, set by the claims' owner,
// internal/experiment/replicate, where a published figure is of something
// other than what the row measures: a container runtime's cold start
// beside the kernel's isolation alone, a stack reservation beside PSS).
const notLikeForLike = " — not like for like: "

// SplitClaim gives a claim's text and what differs ("" if nothing does),
// so a footnote mark or source can sit right after the claim, and so no
// multiple is printed against a figure that is not like for like.
func SplitClaim(c result.Claim) (claim, differs string) {
	if c.Differs != "" {
		return PlainClaim(c.Text), notLikeForLike + c.Differs
	}
	return PlainClaim(c.Text), ""
}

// PlainClaim writes a claim's "~17 µs" as "about 17 µs": in every view ~
// is the mark of a noisy row, and means nothing else.
func PlainClaim(s string) string { return strings.ReplaceAll(s, "~", "about ") }
