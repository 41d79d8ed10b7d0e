package replicate

// verdict.go: the one rule every verdict in the replications follows. A
// verdict word ("different", "resolved", "the published direction holds")
// is a claim about the world, and only an interval at stats.Confidence
// whose unit is a block or a round can carry one: samples within a block
// share its stretch of host noise, so an interval over samples is far too
// narrow, and an interval at 50% (two rounds) excludes "no difference" by
// chance half the time. Below that bar the interval is still shown, with
// its level, but no verdict is drawn from it.

import (
	"fmt"
	"math"

	"github.com/ctxbench/ctxbench/internal/stats"
)

// Units an interval can be computed from. Only these carry a verdict.
const (
	unitBlocks       = "blocks"        // stats.CompareBlocks over block medians
	unitPairedBlocks = "paired blocks" // stats.PairedChange: one log-ratio per round
	unitRounds       = "rounds"        // stats.PerRound: one value per round
	unitPairedRounds = "rounds paired" // alternating whole runs, paired round by round
)

// verdictUnits are the units whose intervals may carry a verdict
// (stats.IntervalBlocks is how a stats.Summary names the block medians).
var verdictUnits = map[string]bool{unitBlocks: true, unitPairedBlocks: true, unitRounds: true, unitPairedRounds: true, stats.IntervalBlocks: true}

// interval is a comparison's interval as a verdict reads it.
type interval struct {
	What   string  // what the bounds are of, e.g. "processes/threads"
	Lo, Hi float64 // the bounds
	Level  float64 // the confidence the interval attained (not the one asked for)
	Unit   string  // what it was computed from: a unit above, or stats.IntervalSamples
	Null   float64 // the value that means "no difference" (1 for a ratio, 0 for a difference)
	Format string  // one bound, e.g. "%.2f"; "" is "%.2f"
	OK     bool    // false: too few units for any interval
}

// words are the verdicts an interval can give: above or below Null, or
// holding it.
type words struct{ Above, Below, Within string }

// verdict is the only place a verdict word is formed. It gives one of
// words only from an interval at stats.Confidence or more, computed with
// blocks or rounds as the unit; otherwise it says why there is none and
// shows the interval with its level.
func verdict(iv interval, w words) string {
	if !iv.OK || math.IsNaN(iv.Lo) || math.IsNaN(iv.Hi) {
		return "no interval: no verdict"
	}
	f := iv.Format
	if f == "" {
		f = "%.2f"
	}
	bounds := fmt.Sprintf("%s ["+f+", "+f+"]", iv.What, iv.Lo, iv.Hi)
	unit := iv.Unit
	if unit == "" {
		unit = "unit not recorded"
	}
	switch {
	case !verdictUnits[iv.Unit]:
		return fmt.Sprintf("sample-level interval: no verdict (%s at %s, %s)", bounds, levelText(iv.Level), unit)
	case iv.Level < stats.Confidence-1e-9:
		return fmt.Sprintf("not enough rounds to tell (interval at %s): %s, %s", levelText(iv.Level), bounds, unit)
	case iv.Lo > iv.Null:
		return fmt.Sprintf("%s: %s at %s, %s", w.Above, bounds, levelText(iv.Level), unit)
	case iv.Hi < iv.Null:
		return fmt.Sprintf("%s: %s at %s, %s", w.Below, bounds, levelText(iv.Level), unit)
	}
	return fmt.Sprintf("%s: %s at %s, %s", w.Within, bounds, levelText(iv.Level), unit)
}

// levelText prints a confidence level; a level that is not a whole
// percentage keeps a decimal, so 94.9% never reads as the 95% it falls
// short of.
func levelText(level float64) string {
	p := 100 * level
	if math.Abs(p-math.Round(p)) < 0.005 {
		return fmt.Sprintf("%.0f%%", p)
	}
	return fmt.Sprintf("%.1f%%", p)
}
