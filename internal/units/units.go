// Package units is ctxbench's one formatter of figures for people: times,
// sizes, counts, rates, changes and multiples, each to three significant
// digits with the unit switched at every factor of 1000 (1024 for sizes),
// so that the same figure reads the same in every table, the report and
// compare. A column that must read in one unit asks Scale for it, the way
// benchstat's unit scaler does.
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
	a := math.Abs(ns)
	for _, u := range timeUnits {
		if a >= u.Div {
			return u
		}
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

var sizeUnits = []Unit{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}

// Bytes renders a byte count with a binary unit: "512 B", "2.72 KiB",
// "8.00 MiB".
func Bytes(b float64) string {
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return "?"
	}
	a := math.Abs(b)
	for _, u := range sizeUnits {
		if a >= u.Div {
			return Sig(b/u.Div) + " " + u.Name
		}
	}
	return strconv.FormatFloat(b, 'f', 0, 64) + " B"
}

// Count renders a large count compactly: 950, 1.2k, 69.9k, 1.00M.
func Count(v float64) string {
	a := math.Abs(v)
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "?"
	case a >= 1e9:
		return Sig(v/1e9) + "G"
	case a >= 1e6:
		return Sig(v/1e6) + "M"
	case a >= 1e3:
		return Sig(v/1e3) + "k"
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
