package report_test

import (
	"testing"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
)

// The report's headline names benchmarks of the catalog, each on its own
// rung and runnable at every placement the headline shows: a renamed or
// moved benchmark fails here instead of silently leaving its row empty.
func TestHeadlineIsTheCatalogs(t *testing.T) {
	for _, h := range result.Headline() {
		if result.RungIndex(h.Rung) >= len(result.RungOrder()) {
			t.Errorf("headline rung %q is not a rung", h.Rung)
		}
		for _, name := range []string{h.Pipe, h.Futex} {
			if name == "" {
				continue
			}
			b := catalog.Lookup(name)
			if b == nil {
				t.Errorf("headline %s: %s is not in the catalog", h.Rung, name)
				continue
			}
			if string(b.Rung) != h.Rung {
				t.Errorf("headline %s: %s is on rung %s", h.Rung, name, b.Rung)
			}
			if !b.Supports(model.SameCPU) {
				t.Errorf("headline %s: %s does not run same-cpu", h.Rung, name)
			}
		}
		if h.Pipe == "" {
			t.Errorf("headline %s has no pipe (or handoff) row", h.Rung)
		}
	}
}
