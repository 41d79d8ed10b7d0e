package suite

import (
	"testing"

	"github.com/ctxbench/ctxbench/internal/stats"
)

// A ring preset's blocks must be enough for the level its interval states:
// default and --thorough at 95%; --quick may stay below, and says so.
func TestRingPresetsReachTheirLevel(t *testing.T) {
	for name, want := range map[string]float64{"default": 0.95, "thorough": 0.95, "quick": 0} {
		d := ringRuns[name]
		if d[0]%d[1] != 0 {
			t.Errorf("%s: %d samples do not make whole blocks of %d", name, d[0], d[1])
		}
		var vals []float64
		var sizes []int
		for b := 0; b < d[0]/d[1]; b++ {
			sizes = append(sizes, d[1])
			for i := 0; i < d[1]; i++ {
				vals = append(vals, float64(100+b*7%5+i))
			}
		}
		s := stats.SummarizeBlocks(vals, sizes)
		if s.Confidence < want {
			t.Errorf("%s: %d blocks give a %.1f%% interval, want at least %.0f%%", name, len(sizes), 100*s.Confidence, 100*want)
		}
		if name == "quick" && s.Confidence >= 0.95 {
			t.Errorf("quick reaches %.1f%%: the docs say it stays below 95%%", 100*s.Confidence)
		}
	}
}
