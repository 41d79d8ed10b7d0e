package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Replications prints each published experiment beside its published
// figure and what the publication got wrong: per experiment a table of
// two columns, the key and its text, which wraps in its column. It is laid
// out for the style of w.
func Replications(w io.Writer, d *result.Document) {
	st := styleOf(w)
	prose(w, st, "\nctxbench replicate — %s\n", d.Environment.HostLine())
	for _, r := range d.Replications {
		prose(w, st, "\n== %s (%s)\n", r.Name, r.Source)
		t := NewTable(Col{}, Col{Wrap: true, Min: 30})
		t.Indent = 3
		t.Row("published:", r.Published)
		t.Row("measured:", r.Measured)
		if r.Mistake != "" {
			t.Row("wrong:", r.Mistake)
		}
		for _, n := range r.Notes {
			t.Row("note:", n)
		}
		t.Write(w, st)
	}
	if len(d.Replications) > 0 {
		fmt.Fprintln(w, "\n"+strings.Repeat("-", 20))
		prose(w, st, "Published figures come from other machines; compare ratios and directions, not absolute values.\n")
	}
}
