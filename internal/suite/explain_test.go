package suite

import (
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/session"
)

// The settings an explain document records are the sample length its
// blocks used: explain's own 10 ms unless --min-time was given, never the
// preset's (the bug: --quick recorded 1 ms while measuring 10 ms).
func TestExplainRecordsItsSampleLength(t *testing.T) {
	for _, c := range []struct {
		given bool
		flag  time.Duration
		want  time.Duration
	}{
		{false, time.Millisecond, ExplainMinTime},
		{true, 3 * time.Millisecond, 3 * time.Millisecond},
	} {
		spec := session.Spec{DryRun: true}
		spec.Settings.MinTimeNS = c.flag.Nanoseconds()
		got := Explain(spec, ExplainOptions{Sampling: Sampling{MinTime: c.flag, Runs: 4, SamplesPerBlock: 2, Given: Given{MinTime: c.given}}})
		if got.Settings.MinTimeNS != c.want.Nanoseconds() {
			t.Errorf("--min-time given %v (%v): settings record %v, the samples are %v", c.given, c.flag, time.Duration(got.Settings.MinTimeNS), c.want)
		}
	}
}
