package stats

// verdict.go: the one rule every verdict ctxbench prints follows (the
// replications, the pool experiment). A verdict word ("different", "resolved", "the published direction holds")
// is a claim about the world, and only an interval at Confidence
// whose unit is a block or a round can carry one: samples within a block
// share its stretch of host noise, so an interval over samples is far too
// narrow, and an interval at 50% (two rounds) excludes "no difference" by
// chance half the time. Below that bar the interval is still shown, with
// its level, but no verdict is drawn from it.

import (
	"fmt"
	"math"
)

// Units an interval can be computed from. Only these carry a verdict.
const (
	UnitBlocks       = "blocks"          // CompareBlocks over block medians
	UnitPairedBlocks = "paired blocks"   // PairedChange: one log-ratio per round
	UnitRounds       = "rounds"          // PerRound: one value per round
	UnitPairedRounds = "rounds paired"   // alternating whole runs, paired round by round
	UnitWindows      = "windows"         // a pool's measured windows, interleaved round by round
	UnitSets         = "sittings (sets)" // SetChange: whole runs on each side, each one unit
	UnitSittings     = "sittings"        // SittingChange: two sittings against the between-sitting spread learned
)

// verdictUnits are the units whose intervals may carry a verdict
// (IntervalBlocks and IntervalBlockOrder are how a Summary names the block
// medians).
var verdictUnits = map[string]bool{UnitBlocks: true, UnitPairedBlocks: true, UnitRounds: true, UnitPairedRounds: true, UnitWindows: true, IntervalBlocks: true, IntervalBlockSignedRank: true, IntervalBlockOrder: true}

// Interval is a comparison's interval as a verdict reads it.
type Interval struct {
	What   string  // what the bounds are of, e.g. "processes/threads"
	Lo, Hi float64 // the bounds
	Level  float64 // the confidence the interval attained (not the one asked for)
	Unit   string  // what it was computed from: a unit above, or IntervalSamples
	Null   float64 // the value that means "no difference" (1 for a ratio, 0 for a difference)
	Format string  // one bound, e.g. "%.2f"; "" is "%.2f"
	OK     bool    // false: too few units for any interval
}

// Words are the verdicts an interval can give: above or below Null, or
// holding it.
type Words struct{ Above, Below, Within string }

// Verdict is the only place a verdict word is formed. It gives one of
// Words only from an interval at Confidence or more, computed with
// blocks or rounds as the unit; otherwise it says why there is none and
// shows the interval with its level.
func Verdict(iv Interval, w Words) string {
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
		return fmt.Sprintf("sample-level interval: no verdict (%s at %s, %s)", bounds, LevelText(iv.Level), unit)
	case iv.Level < Confidence-1e-9:
		return fmt.Sprintf("not enough rounds to tell (interval at %s): %s, %s", LevelText(iv.Level), bounds, unit)
	case iv.Lo > iv.Null:
		return fmt.Sprintf("%s: %s at %s, %s", w.Above, bounds, LevelText(iv.Level), unit)
	case iv.Hi < iv.Null:
		return fmt.Sprintf("%s: %s at %s, %s", w.Below, bounds, LevelText(iv.Level), unit)
	}
	return fmt.Sprintf("%s: %s at %s, %s", w.Within, bounds, LevelText(iv.Level), unit)
}

// LevelText prints a confidence level; a level that is not a whole
// percentage keeps a decimal, so 94.9% never reads as the 95% it falls
// short of.
func LevelText(level float64) string {
	p := 100 * level
	if math.Abs(p-math.Round(p)) < 0.005 {
		return fmt.Sprintf("%.0f%%", p)
	}
	return fmt.Sprintf("%.1f%%", p)
}
