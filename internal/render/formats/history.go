package formats

// history.go: ctxbench history --format json.

import (
	"encoding/json"
	"io"

	"github.com/ctxbench/ctxbench/internal/render"
)

// HistoryJSON writes h as one indented JSON document.
func HistoryJSON(w io.Writer, h *render.History) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(h)
}
