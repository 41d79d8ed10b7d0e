package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Replications prints each published experiment beside its published
// figure and what the publication got wrong.
func Replications(w io.Writer, d *result.Document) {
	fmt.Fprintf(w, "\nctxbench replicate — %s\n", d.Environment.HostLine())
	for _, r := range d.Replications {
		fmt.Fprintf(w, "\n== %s (%s)\n", r.Name, r.Source)
		fmt.Fprintf(w, "   published: %s\n", r.Published)
		fmt.Fprintf(w, "   measured:  %s\n", r.Measured)
		if r.Mistake != "" {
			fmt.Fprintf(w, "   wrong:     %s\n", r.Mistake)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(w, "   note:      %s\n", n)
		}
	}
	if len(d.Replications) > 0 {
		fmt.Fprintln(w, "\n"+strings.Repeat("-", 20))
		fmt.Fprintln(w, "Published figures come from other machines; compare ratios and directions, not absolute values.")
	}
}
