package stats

import (
	"strings"
	"testing"
)

var rw = Words{Above: "resolved", Below: "resolved", Within: "not resolved here"}

// A verdict word comes only from an interval at 95% over blocks or rounds;
// below that the interval is shown with its level and no verdict.
func TestVerdictNeeds95AndBlocksOrRounds(t *testing.T) {
	for _, c := range []struct {
		name    string
		iv      Interval
		want    string
		verdict bool // whether one of rw may open the text
	}{
		{"two rounds", Interval{What: "ratio", Lo: 0.96, Hi: 0.97, Level: 0.5, Unit: UnitPairedRounds, Null: 1, OK: true},
			"not enough rounds to tell (interval at 50%): ratio [0.96, 0.97], rounds paired", false},
		{"just short of 95%", Interval{What: "ratio", Lo: 1.2, Hi: 1.3, Level: 0.9375, Unit: UnitBlocks, Null: 1, OK: true},
			"not enough rounds to tell (interval at 93.8%): ratio [1.20, 1.30], blocks", false},
		{"samples", Interval{What: "processes/threads", Lo: 1.62, Hi: 1.65, Level: 0.95, Unit: IntervalSamples, Null: 1, OK: true},
			"sample-level interval: no verdict (processes/threads [1.62, 1.65] at 95%, samples)", false},
		{"unit not recorded", Interval{What: "ratio", Lo: 1.2, Hi: 1.3, Level: 0.99, Null: 1, OK: true},
			"sample-level interval: no verdict (ratio [1.20, 1.30] at 99%, unit not recorded)", false},
		{"no interval", Interval{What: "ratio"}, "no interval: no verdict", false},
		{"above at 95%", Interval{What: "processes/threads", Lo: 1.62, Hi: 1.65, Level: 0.953125, Unit: UnitPairedBlocks, Null: 1, OK: true},
			"resolved: processes/threads [1.62, 1.65] at 95.3%, paired blocks", true},
		{"block medians at 95%", Interval{What: "ratio", Lo: 0.5, Hi: 0.9, Level: 0.95, Unit: IntervalBlocks, Null: 1, OK: true},
			"resolved: ratio [0.50, 0.90] at 95%, block-median-interpolated", true},
		{"holds the null at 95%", Interval{What: "its share", Lo: -3, Hi: 4, Level: 0.96, Unit: UnitRounds, Format: "%+.0f%%", OK: true},
			"not resolved here: its share [-3%, +4%] at 96%, rounds", true},
	} {
		got := Verdict(c.iv, rw)
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
		given := strings.HasPrefix(got, rw.Above+":") || strings.HasPrefix(got, rw.Within+":")
		if given != c.verdict {
			t.Errorf("%s: verdict given = %v, want %v: %q", c.name, given, c.verdict, got)
		}
	}
}
