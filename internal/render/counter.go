package render

import (
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// TicksName is the short name of the counter a document's ticks count, as a
// column head says it: "TSC" (x86-64, and documents that do not say), or
// "CNTVCT" (arm64's CNTVCT_EL0).
func TicksName(t result.TSCInfo) string { return strings.TrimSuffix(t.CounterName(), "_EL0") }

// counterLegend explains a ticks column that does not count the TSC (the
// TSC's is the README's): the counter, its rate and its tick; "" for the
// TSC.
func counterLegend(t result.TSCInfo) string {
	if t.CounterName() == "TSC" {
		return ""
	}
	l := strings.ToUpper(TicksName(t)) + " TICKS: the same in ticks of " + t.CounterName()
	if t.CounterName() == "CNTVCT_EL0" {
		l += ", the Arm generic timer's virtual count (a constant reference rate, not core cycles)"
	}
	if t.Hz > 0 {
		l += ", at " + units.Sig(t.Hz/1e6) + " MHz: " + units.Time(1e9/t.Hz) + " a tick; a figure below one tick is a batch average (every sample spans 1,000 ticks or more)"
	}
	return l + "."
}

// counterRow is the env view's line on a counter that is not the TSC.
func counterRow(t result.TSCInfo) string {
	s := t.CounterName()
	if t.Hz > 0 {
		s += " at " + units.Sig(t.Hz/1e6) + " MHz (" + units.Time(1e9/t.Hz) + " a tick)"
	}
	s += ", constant and non-stop by the architecture"
	if t.Trapped {
		s += "; its reads trap to the kernel"
	}
	return s
}
