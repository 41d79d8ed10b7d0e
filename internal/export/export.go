// Package export renders a result document: the terminal ladder, CSV,
// Markdown, and the Go benchmark format that benchstat reads. (The JSON
// export is result.Document.Save.) It never measures and never imports the
// runner: everything it shows comes from the document.
package export

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Baseline returns the index of the result every "× goroutine" multiple
// divides by, so the ladder, the hierarchy and the replication agree: the
// published table's 1x (Hierarchy[0]) when it was measured, else the
// cheapest goroutine row that is a pure user-space handoff; -1 if none.
func Baseline(d *result.Document) int {
	for i, r := range d.Results {
		if r.Name == Hierarchy[0].Name && r.Placement == Hierarchy[0].Placement && r.OneWayNS.N > 0 {
			return i
		}
	}
	best := -1
	for i, r := range d.Results {
		if r.Rung != "goroutine" || r.Verification.ExpectedPerHop != nil || r.OneWayNS.N == 0 {
			continue
		}
		if best < 0 || r.OneWayNS.Median < d.Results[best].OneWayNS.Median {
			best = i
		}
	}
	return best
}

func baselineWhy(r result.Result) string {
	if r.Name == Hierarchy[0].Name {
		return "the published table's baseline"
	}
	return "the cheapest goroutine handoff (the published baseline was not measured)"
}

// FormatNS renders nanoseconds with three significant digits and a unit.
func FormatNS(ns float64) string {
	switch {
	case math.IsNaN(ns) || math.IsInf(ns, 0):
		return "?"
	case ns < 0: // a net figure (raw minus overhead) can be negative
		return "-" + FormatNS(-ns)
	case ns >= 1e6:
		return trim(ns/1e6) + " ms"
	case ns >= 1e4:
		return trim(ns/1e3) + " µs"
	default:
		return trim(ns) + " ns"
	}
}

// nsUnit is the unit FormatNS picks for ns, as a divisor and a name.
func nsUnit(ns float64) (float64, string) {
	switch {
	case ns >= 1e6:
		return 1e6, "ms"
	case ns >= 1e4:
		return 1e3, "µs"
	}
	return 1, "ns"
}

// inUnitOf renders v in the unit FormatNS chose for ref, without the unit
// name, so a range reads in the unit of the median beside it.
func inUnitOf(v, ref float64) string {
	div, _ := nsUnit(ref)
	return plain(v / div)
}

func trim(v float64) string {
	switch {
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

// plain renders a number with no unit, three significant digits.
func plain(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.0f", v)
	}
	return trim(v)
}

func switchesCell(r result.Result) string {
	if r.SwitchesPerHop == nil {
		return "—"
	}
	mark := "✓"
	if !r.Verification.Verified {
		mark = "✗"
	}
	return fmt.Sprintf("%.2f %s", *r.SwitchesPerHop, mark)
}

func multiple(d *result.Document, r result.Result, base int) string {
	if base < 0 || d.Results[base].OneWayNS.Median <= 0 {
		return "—"
	}
	m := r.OneWayNS.Median / d.Results[base].OneWayNS.Median
	if m < 0.1 {
		return fmt.Sprintf("%.3f×", m)
	}
	if m < 10 {
		return fmt.Sprintf("%.2f×", m)
	}
	return fmt.Sprintf("%.0f×", m)
}

// HostLine summarises the environment in one line.
func HostLine(e result.Environment) string {
	cpu := e.CPU.Model
	if cpu == "" {
		cpu = "unknown CPU"
	}
	parts := []string{fmt.Sprintf("%s, %d CPUs", cpu, e.CPU.Logical), e.Virtualization.Label}
	if e.Kernel != "" {
		parts = append(parts, "Linux "+e.Kernel)
	}
	return strings.Join(parts, "; ")
}

// Mitigations lists the CPU vulnerabilities the kernel mitigates or is
// exposed to ("Not affected" left out), sorted, as "name: state".
func Mitigations(e result.Environment) []string {
	var out []string
	for k, v := range e.Mitigations {
		if v != "Not affected" {
			out = append(out, k+": "+v)
		}
	}
	slices.Sort(out)
	return out
}
