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
	fmt.Fprintln(w, "\ncreation: what it costs to create a context, run it to its end and reap it (median [p10–p90] per creation)")
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
				parts = append(parts, fmt.Sprintf("%s [%d]", c.Text, n+1))
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
	for _, m := range d.Memory {
		held := fmt.Sprintf("%d", m.Contexts)
		if m.Contexts < m.Requested {
			held = fmt.Sprintf("%d of %d", m.Contexts, m.Requested)
		}
		charged := "—"
		if m.ChargedBytes > 0 {
			charged = units.Bytes(m.ChargedBytes)
		}
		own := "—"
		if m.RuntimeBytes > 0 {
			own = units.Bytes(m.RuntimeBytes)
		}
		dash := func(v float64) string {
			if v == 0 && m.RuntimeBytes > 0 {
				return "—" // a runtime probe measures what its runtime counts, not these
			}
			return units.Bytes(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", m.Kind, m.Name, held, dash(m.PSSBytes), dash(m.RSSBytes),
			dash(m.KernelBytes), charged, dash(m.VirtBytes), own)
	}
	tw.Flush()
	for _, m := range d.Memory {
		for _, c := range m.Claims {
			line := fmt.Sprintf("  %s — claim: %s (%s)", m.Name, c.Text, c.Source)
			switch {
			case c.BytesPerContext > 0 && m.PSSBytes > 0:
				line += fmt.Sprintf("; measured PSS is %.2fx that", m.PSSBytes/c.BytesPerContext)
			case c.BytesPerContext > 0 && m.RuntimeBytes > 0:
				line += fmt.Sprintf("; the runtime's own count is %.2fx that", m.RuntimeBytes/c.BytesPerContext)
			}
			fmt.Fprintln(w, line)
		}
		if m.Limit != "" {
			fmt.Fprintf(w, "  %s — held %d of %d: %s\n", m.Name, m.Contexts, m.Requested, m.Limit)
		}
	}
}
