package render

import (
	"encoding/csv"
	"fmt"
	"io"

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
	prose(w, st, "one request = a post at its intended time, the woken context's wake-up and its work; percentiles over every block, [95%% interval] from the blocks; — not measured (too few requests beyond it); c/u corrected (from the intended time) / uncorrected (from the post); behind: the level did not keep its schedule (its note says how), so its latencies are not latencies\n")
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
		if !l.Reported() {
			levels[i] += " " + note(fmt.Sprintf("%s %s %s: behind: %s", s.Name, s.Placement, l.LevelName(), l.StatusReason))
		}
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
		hop := pctl(&result.Percentile{NS: r.HopNS, CILow: &r.HopCILow, CIHigh: &r.HopCIHigh}, true)
		prose(w, st, "reference: %s %s, one hop %s in this sitting; the wake-up p50 at %s is %s (%s×)\n", r.Name, r.Placement,
			hop, units.Percent(100*r.Utilization, 1), units.ShortTime(r.WakeupP50NS), units.Sig(r.Ratio))
	}
	for _, l := range s.Levels {
		if l.Capture != nil {
			prose(w, st, "\n%s %s: the wake-ups under load, captured\n", s.Name, l.LevelName())
			Capture(w, l.Capture, st)
		}
	}
	for _, f := range s.Flags {
		prose(w, st, "%s\n", note(s.Name+" "+s.Placement+": "+f.Message))
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
		row := []string{levels[i], units.Percent(100*l.AchievedUtilization, 1), units.Rate(l.AchievedRate), pctl(l.GeneratorLag.P99, false)}
		if l.Reported() {
			row = append(row, pctl(l.Wakeup.P50, true), pctl(l.Wakeup.P90, false), pctl(l.Wakeup.P99, true), pctl(l.Wakeup.P99_9, false))
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
		t.Row(levels[i], loadPair(l.Corrected.P50, l.Uncorrected.P50), pctl(l.Corrected.P99, true), pctl(l.Uncorrected.P99, false),
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

// pctl is a percentile for a table: its value, with its interval when
// asked; "—" where it was not measured.
func pctl(p *result.Percentile, interval bool) string {
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
		return pctl(c, false) + "/" + pctl(u, false)
	}
	uc, uu := units.TimeUnit(c.NS), units.TimeUnit(u.NS)
	if uc == uu {
		return units.Short(c.NS/uc.Div) + "/" + units.Short(u.NS/uu.Div) + " " + uc.Name
	}
	return units.ShortTime(c.NS) + "/" + units.ShortTime(u.NS)
}

// loadColumns are the CSV's latency columns: each latency's four
// percentiles with their intervals, and its maximum.
var loadColumns = []struct {
	name string
	get  func(l *result.LoadLevel) *result.LoadLatency
}{
	{"wakeup", func(l *result.LoadLevel) *result.LoadLatency { return &l.Wakeup }},
	{"request_corrected", func(l *result.LoadLevel) *result.LoadLatency { return &l.Corrected }},
	{"request_uncorrected", func(l *result.LoadLevel) *result.LoadLatency { return &l.Uncorrected }},
	{"generator_lag", func(l *result.LoadLevel) *result.LoadLatency { return &l.GeneratorLag }},
}

// LoadCSV writes one row per load level: what was asked and achieved, the
// counts, and every latency's percentiles with their intervals (empty
// where not measured; a level that did not keep its schedule has status
// "behind" and no latencies).
func LoadCSV(w io.Writer, d *result.Document) error {
	cw := csv.NewWriter(w)
	head := []string{"name", "kind", "placement", "level", "target_utilization", "target_rate", "achieved_utilization", "achieved_rate",
		"status", "measured", "dropped", "unserved", "hops", "queued"}
	for _, c := range loadColumns {
		for _, p := range []string{"p50", "p90", "p99", "p99_9"} {
			head = append(head, c.name+"_"+p+"_ns", c.name+"_"+p+"_ci_low", c.name+"_"+p+"_ci_high")
		}
		head = append(head, c.name+"_max_ns")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, s := range d.Loads {
		for _, l := range s.Levels {
			tu := ""
			if l.TargetUtilization != nil {
				tu = units.Exact(*l.TargetUtilization)
			}
			n := l.Requests
			row := []string{s.Name, s.Kind, s.Placement, l.LevelName(), tu, units.Exact(l.TargetRate), units.Exact(l.AchievedUtilization),
				units.Exact(l.AchievedRate), l.Status, fmt.Sprint(n.Measured), fmt.Sprint(n.Dropped), fmt.Sprint(n.Unserved), fmt.Sprint(n.Hops), fmt.Sprint(n.Queued)}
			for _, c := range loadColumns {
				lat := c.get(&l)
				for _, p := range lat.Percentiles() {
					if p.P == nil || (!l.Reported() && c.name != "generator_lag") {
						row = append(row, "", "", "")
						continue
					}
					row = append(row, units.Exact(p.P.NS), optF64(p.P.CILow), optF64(p.P.CIHigh))
				}
				if lat.Count == 0 || (!l.Reported() && c.name != "generator_lag") {
					row = append(row, "")
				} else {
					row = append(row, units.Exact(lat.MaxNS))
				}
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// LoadMarkdown writes one table per series: each level's utilisation and
// rate, the wake-up p50 and p99 and the request p99 and p99.9 corrected
// and uncorrected, with the intervals.
func LoadMarkdown(w io.Writer, d *result.Document) error {
	for _, s := range d.Loads {
		fmt.Fprintf(w, "### %s, %s\n\n%s\n\n", s.Name, s.Placement, s.Label)
		fmt.Fprintln(w, "| level | utilisation | rate | wake-up p50 | wake-up p99 | request p99 corrected | request p99 uncorrected | p99.9 corrected | p99.9 uncorrected |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|")
		for _, l := range s.Levels {
			if !l.Reported() {
				fmt.Fprintf(w, "| %s | %s | %s | behind: %s | | | | | |\n", l.LevelName(), units.Percent(100*l.AchievedUtilization, 1), units.Rate(l.AchievedRate), l.StatusReason)
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", l.LevelName(), units.Percent(100*l.AchievedUtilization, 1), units.Rate(l.AchievedRate),
				pctl(l.Wakeup.P50, true), pctl(l.Wakeup.P99, true), pctl(l.Corrected.P99, true), pctl(l.Uncorrected.P99, true),
				pctl(l.Corrected.P99_9, true), pctl(l.Uncorrected.P99_9, true))
		}
		fmt.Fprintln(w)
	}
	return nil
}
