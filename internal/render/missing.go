package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Missing lists what failed and what was skipped (and why), one line
// each, after the tables.
func Missing(w io.Writer, doc *result.Document) {
	for _, m := range []struct {
		verb string
		fs   []result.Failure
	}{{"failed", doc.Failures}, {"skipped", doc.Skipped}} {
		for _, f := range m.fs {
			fmt.Fprintf(w, "%s: %s: %s\n", m.verb, strings.TrimSpace(f.Name+" "+f.Placement), f.Error)
		}
	}
}
