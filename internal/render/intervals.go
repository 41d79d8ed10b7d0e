package render

// intervals.go: how every table says which interval it shows. A figure has
// a precision interval (where this sitting's median lies, from its blocks)
// and, once the machine has learned how far its sittings move, a
// reproducibility interval (where the machine's figure lies across
// sittings). Tables show both where both exist, and say once, plainly,
// when only the first does and how to learn the second.

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/result"
)

// aaHint names the command that teaches the machine its between-sitting
// variation.
const aaHint = "`ctxbench aa` (six sittings of three cells, about a minute) learns how far sittings move on this machine"

// hasRepro says some row of rs carries a reproducibility interval.
func hasRepro(rs []result.Result) bool {
	for _, r := range rs {
		if r.OneWayNS.Reproducibility != nil {
			return true
		}
	}
	return false
}

// reproCell is a row's reproducibility interval as percentages of its
// median (±a% or −a/+b%), marked ′ when the between-sitting part was pooled
// from other cells; "—" where the machine has not learned it.
func reproCell(r result.Result, ms MarkSet) string {
	rp := r.OneWayNS.Reproducibility
	if rp == nil || r.OneWayNS.Median <= 0 {
		return "—"
	}
	s := SpanPercent(r.OneWayNS.Median, rp.Low, rp.High)
	if l := LevelMark(rp.Confidence); l != "" {
		ms.Use(MarkLevel)
		s += l
	}
	if len(rp.PooledFrom) > 0 {
		s += ms.Use(MarkPooled)
	}
	return s
}

// ReproLegend explains the ±REPRO column (tables that have it) or says
// that the intervals cover this sitting only and how to learn the rest.
func ReproLegend(d *result.Document, rs []result.Result) []string {
	if hasRepro(rs) {
		lo, hi := 0, 0
		for _, r := range rs {
			if rp := r.OneWayNS.Reproducibility; rp != nil {
				if lo == 0 || rp.Sittings < lo {
					lo = rp.Sittings
				}
				hi = max(hi, rp.Sittings)
			}
		}
		n := fmt.Sprint(lo)
		if hi != lo {
			n = fmt.Sprintf("%d–%d", lo, hi)
		}
		var cs []float64
		for _, r := range rs {
			if rp := r.OneWayNS.Reproducibility; rp != nil {
				cs = append(cs, rp.Confidence)
			}
		}
		lines := []string{fmt.Sprintf("±REPRO: where another sitting's median on this machine will lie: %s prediction interval from this sitting's precision plus the between-sitting variation its history shows (%s sittings; few sittings give a wide interval); compare tests against it; — where a cell has not been learned", LevelText(StatedLevel(cs...)), n)}
		return lines
	}
	var why string
	switch h := d.History; {
	case d.Settings.DryRun:
		why = "a dry run is not recorded"
	case h == nil:
		why = "no history: --no-history, CTXBENCH_NO_HISTORY, or no home directory to keep it in"
	case h.Note != "":
		why = h.Note
	case h.MachineBefore == 0 && h.Before == 0:
		why = "no earlier sitting of this machine is recorded (a new machine, or its boot settings changed)"
	default:
		why = fmt.Sprintf("the %d earlier sitting(s) of this machine measured none of these cells, nor others of their placement, cleanly in two or more blocks", max(h.MachineBefore, h.Before))
	}
	return []string{fmt.Sprintf("±CI covers this sitting only: another run on this machine may land outside it (%s). %s; after it, tables show ±REPRO.", why, aaHint)}
}
