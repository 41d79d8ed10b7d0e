// Package units is ctxbench's one formatter of figures for people: times,
// sizes, counts, rates, changes and multiples, each to three significant
// digits with the unit switched at every factor of 1000 (1024 for sizes),
// so that the same figure reads the same in every table, the report and
// compare. A column that must read in one unit asks Scale for it, the way
// benchstat's unit scaler does. Figures whose precision is their meaning
// (switches per hop, a share in percent, a load average) are Fixed; axis
// ticks and short labels are Short; what a program reads back is Exact. No
// renderer formats a float itself (internal/render's
// TestNumbersOnlyThroughUnits holds it to that).
package units

import (
	"math"
	"strconv"
)

// Unit is a scale a value is shown in: value / Div, followed by Name.
type Unit struct {
	Name string
	Div  float64
}

var timeUnits = []Unit{{"s", 1e9}, {"ms", 1e6}, {"µs", 1e3}, {"ns", 1}}

// TimeUnit is the unit a duration of ns nanoseconds is shown in.
func TimeUnit(ns float64) Unit {
	if u, ok := reach(timeUnits, ns); ok {
		return u
	}
	return timeUnits[len(timeUnits)-1]
}

// Time renders nanoseconds, e.g. "3.99 ns", "156 ns", "2.40 µs", "20.7 µs".
// Negative figures (a difference) keep their sign; NaN and ±Inf are "?".
func Time(ns float64) string {
	if math.IsNaN(ns) || math.IsInf(ns, 0) {
		return "?"
	}
	u := TimeUnit(ns)
	return Sig(ns/u.Div) + " " + u.Name
}

// In renders v in unit u, without the unit's name.
func In(v float64, u Unit) string { return Sig(v / u.Div) }

// Scale picks one time unit for a set of figures: the unit of the smallest
// non-zero magnitude, so no figure of the set reads as 0.00.
func Scale(ns ...float64) Unit {
	small := math.Inf(1)
	for _, v := range ns {
		if a := math.Abs(v); a > 0 && a < small && !math.IsInf(a, 0) {
			small = a
		}
	}
	if math.IsInf(small, 1) {
		return Unit{"ns", 1}
	}
	return TimeUnit(small)
}

var (
	sizeUnits  = []Unit{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	countUnits = []Unit{{"G", 1e9}, {"M", 1e6}, {"k", 1e3}}
)

// reach is the largest of us (largest first) that v's magnitude reaches.
func reach(us []Unit, v float64) (Unit, bool) {
	a := math.Abs(v)
	for _, u := range us {
		if a >= u.Div {
			return u, true
		}
	}
	return Unit{}, false
}

// Bytes renders a byte count with a binary unit: "512 B", "2.72 KiB",
// "8.00 MiB".
func Bytes(b float64) string {
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return "?"
	}
	if u, ok := reach(sizeUnits, b); ok {
		return Sig(b/u.Div) + " " + u.Name
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}

// Count renders a large count compactly: 950, 1.2k, 69.9k, 1.00M.
func Count(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "?"
	}
	if u, ok := reach(countUnits, v); ok {
		return Sig(v/u.Div) + u.Name
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

// Rate renders events per second, e.g. "69.9k/s".
func Rate(perSec float64) string { return Count(perSec) + "/s" }

// Change renders a relative change with its sign: 0.071 -> "+7.1%",
// -0.25 -> "-25%", 7.5 -> "+750%".
func Change(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "?"
	}
	p := 100 * x
	s := Sig(p)
	if p >= 0 {
		s = "+" + s
	}
	return s + "%"
}

// Multiple renders a ratio as a multiple: "0.041×", "1.60×", "25×" —
// two significant digits below 0.1, two decimals below 10, whole numbers
// above (a multiple of a baseline is never more precise than that).
func Multiple(x float64) string {
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "?"
	case x < 0.1:
		return strconv.FormatFloat(x, 'f', 3, 64) + "×"
	case x < 10:
		return strconv.FormatFloat(x, 'f', 2, 64) + "×"
	}
	return strconv.FormatFloat(x, 'f', 0, 64) + "×"
}

// Sig renders v with three significant digits (never in exponent form):
// 3.99, 15.6, 156, 2397. Values of 1000 and more keep all their integer
// digits: a figure is never rounded to a coarser integer than it has.
func Sig(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "?"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1 || a == 0:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	// Below 1: three significant digits after the leading zeros.
	d := int(math.Ceil(-math.Log10(a))) + 2
	return strconv.FormatFloat(v, 'f', d, 64)
}

// Fixed renders v with a fixed number of decimals ("%.2f"): for figures
// whose precision is their meaning, not their size — switches per hop (1.00
// is one), a load average, a frequency in GHz, a difference in whole ns.
func Fixed(v float64, decimals int) string {
	return strconv.FormatFloat(v, 'f', decimals, 64)
}

// Signed is Fixed with its sign always written ("%+.1f"): "+12", "-0.5",
// "+0.0". A difference reads as one.
func Signed(v float64, decimals int) string {
	s := Fixed(v, decimals)
	if s[0] != '-' && s[0] != '+' {
		s = "+" + s
	}
	return s
}

// SignedTime is Time with a "+" before a positive difference
// ("+1.20 µs", "-300 ns"; zero as Time writes it): a net or a change,
// never a plain figure.
func SignedTime(ns float64) string {
	if ns > 0 {
		return "+" + Time(ns)
	}
	return Time(ns)
}

// Percent renders points percentage points — a fraction the caller has
// already multiplied by 100, or a figure kept in percent — with decimals:
// Percent(7.14, 1) is "7.1%".
func Percent(points float64, decimals int) string { return Fixed(points, decimals) + "%" }

// SignedPercent is Percent with its sign always written: "+7.1%", "-2.0%".
func SignedPercent(points float64, decimals int) string { return Signed(points, decimals) + "%" }

// Digits renders v with at most n significant digits, trailing zeros
// dropped and an exponent where v is very small or large ("%.3g": 0.05,
// 2.5, 1.23e+06): the fitted parameters of a model. With n < 0, as many
// digits as v needs to read back exactly ("%g"): a level or an α in a
// sentence ("95%", "α=0.05"), and compare's CSV.
func Digits(v float64, n int) string { return strconv.FormatFloat(v, 'g', n, 64) }

// Short renders an axis tick or a short label: three significant digits at
// most, trailing zeros dropped (1, 2.5, 10, 64).
func Short(v float64) string { return Digits(v, 3) }

// ShortTime is a duration as Short, in the unit Time would take: "10 µs",
// "2 ms", "500 ns".
func ShortTime(ns float64) string {
	u := TimeUnit(ns)
	return Short(ns/u.Div) + " " + u.Name
}

// ShortBytes is a byte count as Short, with a binary unit: "64 KiB",
// "1.5 MiB", "512 B".
func ShortBytes(b float64) string {
	if u, ok := reach(sizeUnits, b); ok {
		return Short(b/u.Div) + " " + u.Name
	}
	return Short(b) + " B"
}

// ShortCount is a count as Short: 950, 2k, 1.5M, 3G.
func ShortCount(v float64) string {
	if u, ok := reach(countUnits, v); ok {
		return Short(v/u.Div) + u.Name
	}
	return Short(v)
}

// Exact renders v with every digit it has and no exponent (1234567.25,
// 0.0000123): for machine-readable output — CSV a program reads back to
// the last bit, SVG coordinates — never for a figure a person reads.
func Exact(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
