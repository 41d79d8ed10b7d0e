package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Spawn prints the creation ladder: median and p90 per creation beside the
// published or folklore claim.
func Spawn(w io.Writer, d *result.Document) {
	if len(d.Spawn) == 0 {
		return
	}
	fmt.Fprintln(w, "\ncreation: what it costs to create a context, run it to its end and reap it (median [p10–p90] per creation; ±CI = where this sitting's median lies, 95% unless a level is given: it covers this sitting only)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tMEASUREMENT\tPER CREATION [p10–p90]\t±CI\tCLAIM BESIDE IT\t")
	var sources []string
	for _, s := range d.Spawn {
		ps := s.PerCreateNS
		ci := ciPercent(ps.Median, ps.CILow, ps.CIHigh, ps.Confidence)
		claim := s.Claim // files without Claims (older, or made by hand)
		if len(s.Claims) > 0 {
			var parts []string
			for _, c := range s.Claims {
				n := slices.Index(sources, c.Source)
				if n < 0 {
					sources = append(sources, c.Source)
					n = len(sources) - 1
				}
				text, differs := splitClaim(c)
				parts = append(parts, fmt.Sprintf("%s [%d]%s", text, n+1, differs))
			}
			claim = strings.Join(parts, "; ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s [%s–%s]\t%s\t%s\t\n", s.Kind, s.Name, units.Time(ps.Median), units.Time(ps.P10), units.Time(ps.P90), ci, claim)
	}
	tw.Flush()
	for i, src := range sources {
		fmt.Fprintf(w, "  [%d] %s\n", i+1, src)
	}
}

// Memory prints the memory ladder: per context, resident and proportional
// set, kernel stacks and page tables, what the contexts' memory cgroup was
// charged, and the virtual reservation apart, beside the claims.
func Memory(w io.Writer, d *result.Document) {
	if len(d.Memory) == 0 {
		return
	}
	fmt.Fprintln(w, "\nmemory: what a parked context costs to keep, per context (virtual is address space reserved, not memory used)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CONTEXT\tMEASUREMENT\tHELD\tPSS\tRSS\tKERNEL\tCHARGED\tVIRTUAL\tRUNTIME'S OWN COUNT\t")
	negative := false
	for _, m := range d.Memory {
		cells := []string{m.Kind, m.Name, memHeld(m)}
		for _, c := range memoryCells(m) {
			cells = append(cells, memText(c))
			negative = negative || c.state == memNegative
		}
		fmt.Fprintf(tw, "%s\t\n", strings.Join(cells, "\t"))
	}
	tw.Flush()
	fmt.Fprintln(w, memoryLegend)
	if negative {
		fmt.Fprintln(w, memoryNegativeLegend)
	}
	for _, m := range d.Memory {
		for _, c := range m.Claims {
			text, differs, multiple := memClaim(m, c)
			fmt.Fprintf(w, "  %s — claim: %s (%s)%s%s\n", m.Name, text, c.Source, differs, multiple)
		}
		if m.Limit != "" {
			fmt.Fprintf(w, "  %s — held %d of %d: %s\n", m.Name, m.Contexts, m.Requested, m.Limit)
		}
	}
}

// notLikeForLike opens, where a claim is printed, what differs between it
// and the row beside it (result.Claim.Differs, set by the claims' owner,
// internal/experiment/replicate, where a published figure is of something
// other than what the row measures: a container runtime's cold start
// beside the kernel's isolation alone, a stack reservation beside PSS).
const notLikeForLike = " — not like for like: "

// splitClaim gives a claim's text and what differs ("" if nothing does),
// so a footnote mark or source can sit right after the claim, and so no
// multiple is printed against a figure that is not like for like.
func splitClaim(c result.Claim) (claim, differs string) {
	if c.Differs != "" {
		return c.Text, notLikeForLike + c.Differs
	}
	return c.Text, ""
}
