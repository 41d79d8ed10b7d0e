package cli

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/suite"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// replicate --list is a table that fits the terminal: at 80 and 100
// columns every experiment is a row whose summary and source wrap inside
// their columns (it printed 7 lines of up to 303 columns).
func TestReplicateListFits(t *testing.T) {
	xs := suite.PublishedExperiments()
	for _, cols := range []string{"80", "100"} {
		t.Setenv("COLUMNS", cols)
		code, out, stderr := run(t, "replicate", "--list")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		width := map[string]int{"80": 80, "100": 100}[cols]
		testdoc.Fits(t, "replicate --list at "+cols, out, width)
		testdoc.Aligned(t, "replicate --list at "+cols, out, "WHAT IT RUNS", len(xs))
		for _, x := range xs {
			if !strings.Contains(out, x.Name+" ") {
				t.Errorf("at %s columns the list lacks %s:\n%s", cols, x.Name, out)
			}
		}
	}
}
