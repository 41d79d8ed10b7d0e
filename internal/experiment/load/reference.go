package load

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// LightLoad is the utilisation up to which a level counts as light: its
// wake-up is set beside the ladder's hop.
const LightLoad = 0.10

// referenceOf is the ladder row each kind is set beside: the same futex
// handoff as a ping-pong.
var referenceOf = map[string]string{string(Thread): "thread/futex", string(Process): "process/futex"}

// ReferenceOf is the ladder benchmark kind k's load is set beside.
func ReferenceOf(k Kind) string { return referenceOf[string(k)] }

// Reference sets, on each series, the ladder's futex hop at its placement
// measured in the same sitting beside the lightest level's wake-up p50: at
// a light load a wake-up is one hop (a post, a switch), so the two should
// agree; where they do not, the note says by how much.
func Reference(d *result.Document) {
	for i := range d.Loads {
		s := &d.Loads[i]
		if len(s.Levels) == 0 {
			continue
		}
		var ref *result.Result
		for j := range d.Results {
			r := &d.Results[j]
			if r.Name == referenceOf[s.Kind] && r.Placement == s.Placement {
				ref = r
			}
		}
		lv := s.Levels[0]
		if ref == nil || lv.Wakeup.P50 == nil || !(ref.OneWayNS.Median > 0) {
			continue
		}
		rf := &result.LoadReference{Name: ref.Name, Placement: ref.Placement, HopNS: ref.OneWayNS.Median,
			HopCILow: ref.OneWayNS.CILow, HopCIHigh: ref.OneWayNS.CIHigh, Utilization: lv.AchievedUtilization,
			WakeupP50NS: lv.Wakeup.P50.NS}
		rf.Ratio = rf.WakeupP50NS / rf.HopNS
		if lv.AchievedUtilization > LightLoad {
			rf.Note = fmt.Sprintf("the lightest level took %s of the CPU, above the %s at which a wake-up is one hop", pct(lv.AchievedUtilization), pct(LightLoad))
		} else {
			rf.Note = fmt.Sprintf("at %s a wake-up took %s× the ladder's hop (%s)", pct(lv.AchievedUtilization), units.Sig(rf.Ratio), units.Time(rf.HopNS))
		}
		s.Reference = rf
	}
}
