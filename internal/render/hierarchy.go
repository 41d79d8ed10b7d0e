package render

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Hierarchy prints the published hierarchy with what this machine measured
// beside each row, and the creation and memory claims (the document's
// Derived.Hierarchy and Claims).
func Hierarchy(w io.Writer, d *result.Document) {
	if d.Derived == nil || len(d.Derived.Hierarchy) == 0 {
		return
	}
	fmt.Fprintln(w, "\nthe published hierarchy, measured here (one-way per switch; × as in the table above)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ABSTRACTION\tPUBLISHED\tPUBLISHED ×\tMEASURED\t×\tSWITCHES/HOP\tFROM\t")
	var notes []string
	for _, h := range d.Derived.Hierarchy {
		if h.MedianNS == nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\tnot measured\t—\t—\t%s %s\t\n", h.Abstraction, h.Published, h.PublishedMultiple, h.Name, h.Placement)
			continue
		}
		x := "—"
		if r := findResult(d, h.Name, h.Placement); r != nil {
			x = multiple(*r, baseline(d)) // the figure the ladder shows, so "× as in the table above" holds
		} else if h.Multiple != nil {
			x = units.Multiple(*h.Multiple)
		}
		sw := "—"
		if h.SwitchesPerHop != nil {
			mark := "✓"
			if !h.Verified {
				mark = "✗"
			}
			sw = units.Fixed(*h.SwitchesPerHop, 2) + " " + mark
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s %s\t\n", h.Abstraction, h.Published, h.PublishedMultiple, units.Time(*h.MedianNS), x, sw, h.Name, h.Placement)
		if h.Note != "" {
			notes = append(notes, "  the VM row is "+h.Note)
		}
	}
	tw.Flush()
	for _, n := range notes {
		fmt.Fprintln(w, n)
	}
	if len(d.Derived.Claims) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		// PUBLISHED last: it carries what differs where a claim is not like
		// for like, and a long cell in the middle would push MEASURED off
		// the screen.
		fmt.Fprintln(tw, "\nCLAIM\tMEASURED\tPUBLISHED\t")
		for _, c := range d.Derived.Claims {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\n", c.Name, c.Measured, c.Published)
		}
		tw.Flush()
	}
}

// findResult is the document's row of a benchmark at a placement, or nil.
func findResult(d *result.Document, name, placement string) *result.Result {
	for i := range d.Results {
		if d.Results[i].Name == name && d.Results[i].Placement == placement {
			return &d.Results[i]
		}
	}
	return nil
}
