package render

import (
	"fmt"
	"io"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Loads shows each series of ctxbench load as two tables that fit the
// width: the wake-up and the generator, then the request latency corrected
// beside uncorrected; then the knee, the reference hop and the numbered
// notes. It lays its own prose out for st, so it fits whether or not w is
// a FitWriter.
func Loads(w io.Writer, d *result.Document, st Style) {
	prose(w, st, "\nctxbench load — %s\n", d.Environment.HostLine())
	if d.Settings.DryRun {
		prose(w, st, "DRY RUN: synthetic figures; nothing was measured\n")
	}
	prose(w, st, "one request = a post at its intended time, the woken context's wake-up and its work; percentiles over every block, [95%% interval] from the blocks; — not measured (too few requests beyond it); c/u corrected (from the intended time) / uncorrected (from the post); behind: the level did not keep its schedule (its flag says how), so its latencies are not latencies\n")
	var notes []string
	note := func(s string) string {
		notes = append(notes, s)
		return fmt.Sprintf("[%d]", len(notes))
	}
	for _, s := range d.Loads {
		loadSeries(w, s, st, note)
	}
	if len(d.Loads) == 0 {
		prose(w, st, "\nno load level was measured\n")
	}
	for _, f := range d.Failures {
		prose(w, st, "FAILED %s %s: %s\n", f.Name, f.Placement, f.Error)
	}
	for _, f := range d.Skipped {
		prose(w, st, "skipped %s %s: %s\n", f.Name, f.Placement, f.Error)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for i, n := range notes {
		prose(w, st, "[%d] %s\n", i+1, n)
	}
}

// loadSeries shows one series: its title and label, its two tables, the
// knee, the reference hop and the levels' captured wake-ups; its flags
// and its levels' become numbered notes.
func loadSeries(w io.Writer, s result.LoadSeries, st Style, note func(string) string) {
	prose(w, st, "\n%s\n", st.Paint("1", fmt.Sprintf("%s, %s: %d contexts, %s of work, %s arrivals", s.Name, s.Placement, s.Contexts, units.Time(s.WorkNS), s.Arrivals)))
	prose(w, st, "%s\n", s.Label)
	levels := make([]string, len(s.Levels)) // each level's name with its notes
	for i, l := range s.Levels {
		levels[i] = l.LevelName()
		for _, f := range l.Flags {
			levels[i] += " " + note(s.Name+" "+s.Placement+" "+l.LevelName()+": "+f.Message)
		}
	}
	wakeupTable(s, levels).Write(w, st)
	fmt.Fprintln(w)
	requestTable(s, levels).Write(w, st)
	if k := s.Knee; k != nil && (k.Utilization != nil || k.Note != "") {
		prose(w, st, "%s\n", kneeLine(k))
	}
	if r := s.Reference; r != nil {
		hop := PercentileCell(&result.Percentile{NS: r.HopNS, CILow: &r.HopCILow, CIHigh: &r.HopCIHigh}, true)
		prose(w, st, "reference: %s %s, one hop %s in this sitting; the wake-up p50 at %s is %s (%s×)\n", r.Name, r.Placement,
			hop, units.Percent(100*r.Utilization, 1), units.ShortTime(r.WakeupP50NS), units.Sig(r.Ratio))
	}
	for _, l := range s.Levels {
		if l.Capture != nil {
			prose(w, st, "\n%s %s: the wake-ups under load, captured\n", s.Name, l.LevelName())
			Capture(w, l.Capture, st)
		}
	}
	if len(s.Flags) > 0 {
		var refs []string
		for _, f := range s.Flags {
			refs = append(refs, note(s.Name+" "+s.Placement+": "+f.Message))
		}
		prose(w, st, "%s %s is flagged: %s\n", s.Name, s.Placement, strings.Join(refs, " "))
	}
}

// wakeupTable is a series' levels: what each achieved, the generator's
// lag and the wake-up's percentiles. The lag, p90 and p99.9 give way
// first on a narrow terminal.
func wakeupTable(s result.LoadSeries, levels []string) *Table {
	t := NewTable(Col{Head: "LEVEL"}, Col{Head: "UTIL", Right: true}, Col{Head: "RATE", Right: true}, Col{Head: "LAG p99", Right: true, Fold: 1},
		Col{Head: "WAKE-UP p50 [95%]", Right: true}, Col{Head: "p90", Right: true, Fold: 2}, Col{Head: "p99 [95%]", Right: true},
		Col{Head: "p99.9", Right: true, Fold: 3})
	for i, l := range s.Levels {
		row := []string{levels[i], units.Percent(100*l.AchievedUtilization, 1), units.Rate(l.AchievedRate), PercentileCell(l.GeneratorLag.P99, false)}
		if l.Reported() {
			row = append(row, PercentileCell(l.Wakeup.P50, true), PercentileCell(l.Wakeup.P90, false), PercentileCell(l.Wakeup.P99, true), PercentileCell(l.Wakeup.P99_9, false))
		} else {
			row = append(row, "behind")
		}
		t.Row(row...)
	}
	return t
}

// requestTable is a series' request latency, corrected beside
// uncorrected, and the hops and switches per request.
func requestTable(s result.LoadSeries, levels []string) *Table {
	t := NewTable(Col{Head: "LEVEL"}, Col{Head: "REQUEST p50 c/u", Right: true}, Col{Head: "p99 c [95%]", Right: true},
		Col{Head: "p99 u", Right: true, Fold: 3}, Col{Head: "p99.9 c/u", Right: true, Fold: 4}, Col{Head: "max c/u", Right: true, Fold: 1},
		Col{Head: "HOPS", Right: true, Fold: 2}, Col{Head: "SW/REQ", Right: true, Fold: 5})
	for i, l := range s.Levels {
		if !l.Reported() {
			t.Row(levels[i], "behind")
			continue
		}
		hops := "-"
		if l.Requests.Measured > 0 {
			hops = units.Percent(100*float64(l.Requests.Hops)/float64(l.Requests.Measured), 0)
		}
		t.Row(levels[i], loadPair(l.Corrected.P50, l.Uncorrected.P50), PercentileCell(l.Corrected.P99, true), PercentileCell(l.Uncorrected.P99, false),
			loadPair(l.Corrected.P99_9, l.Uncorrected.P99_9),
			loadPair(&result.Percentile{NS: l.Corrected.MaxNS}, &result.Percentile{NS: l.Uncorrected.MaxNS}), hops,
			units.Fixed(l.Switches.Voluntary+l.Switches.Involuntary, 2))
	}
	return t
}

// kneeLine says where the tail departs, with its interval.
func kneeLine(k *result.LoadKnee) string {
	if k.Utilization == nil {
		return "knee: " + k.Note
	}
	iv := ""
	if k.Low != nil && k.High != nil {
		iv = fmt.Sprintf(" [%s–%s]", units.Percent(100**k.Low, 0), units.Percent(100**k.High, 0))
	} else if k.Low != nil {
		iv = fmt.Sprintf(" [%s–open]", units.Percent(100**k.Low, 0))
	}
	return fmt.Sprintf("knee: the corrected p99 reaches %s× the lightest level's (%s) at %s utilisation%s",
		units.Sig(k.Factor), units.Time(k.BaseNS), units.Percent(100**k.Utilization, 0), iv)
}

// PercentileCell is a percentile for a table: its value, with its interval when
// asked; "—" where it was not measured.
func PercentileCell(p *result.Percentile, interval bool) string {
	if p == nil {
		return "—"
	}
	s := units.ShortTime(p.NS)
	if interval && p.CILow != nil && p.CIHigh != nil {
		u := units.TimeUnit(p.NS)
		s += " [" + shortNum(*p.CILow/u.Div) + "–" + shortNum(*p.CIHigh/u.Div) + "]"
	}
	return s
}

// shortNum is an interval's end in its value's unit: three significant
// digits, but never an exponent (an end 1,000 times the value is "1700").
func shortNum(v float64) string {
	if v >= 1000 {
		return units.Fixed(v, 0)
	}
	return units.Short(v)
}

// loadPair is two percentiles as "c/u unit" (each with its unit where they
// differ); "—" for one not measured.
func loadPair(c, u *result.Percentile) string {
	if c == nil || u == nil {
		return PercentileCell(c, false) + "/" + PercentileCell(u, false)
	}
	uc, uu := units.TimeUnit(c.NS), units.TimeUnit(u.NS)
	if uc == uu {
		return units.Short(c.NS/uc.Div) + "/" + units.Short(u.NS/uu.Div) + " " + uc.Name
	}
	return units.ShortTime(c.NS) + "/" + units.ShortTime(u.NS)
}
