package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Loads shows each series of ctxbench load as two tables that fit 100
// columns: the wake-up and the generator, then the request latency
// corrected beside uncorrected; then the knee, the reference hop and the
// numbered flags.
func Loads(w io.Writer, d *result.Document, st Style) {
	fmt.Fprintln(w)
	for _, line := range wrapAt("ctxbench load — "+d.Environment.HostLine(), 100) {
		fmt.Fprintln(w, line)
	}
	if d.Settings.DryRun {
		fmt.Fprintln(w, "DRY RUN: synthetic figures; nothing was measured")
	}
	fmt.Fprintln(w, "one request = a post at its intended time, the woken context's wake-up and its work;")
	fmt.Fprintln(w, "percentiles over every block, [95% interval] from the blocks; — not measured (too few")
	fmt.Fprintln(w, "requests beyond it); c/u corrected (from the intended time) / uncorrected (from the post)")
	var notes []string
	note := func(s string) string {
		notes = append(notes, s)
		return fmt.Sprintf("[%d]", len(notes))
	}
	for _, s := range d.Loads {
		fmt.Fprintf(w, "\n%s\n", st.Paint("1", fmt.Sprintf("%s, %s: %d contexts, %s of work, %s arrivals", s.Name, s.Placement, s.Contexts, units.Time(s.WorkNS), s.Arrivals)))
		for _, line := range wrapAt(s.Label, 100) {
			fmt.Fprintln(w, line)
		}
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "LEVEL\tUTIL\tRATE\tLAG p99\tWAKE-UP p50 [95%]\tp90\tp99 [95%]\tp99.9\t")
		for _, l := range s.Levels {
			marks := ""
			for _, f := range l.Flags {
				marks += " " + note(s.Name+" "+s.Placement+" "+l.LevelName()+": "+f.Message)
			}
			row := []string{l.LevelName() + marks, units.Percent(100*l.AchievedUtilization, 1), units.Rate(l.AchievedRate),
				pctl(l.GeneratorLag.P99, false)}
			if l.Reported() {
				row = append(row, pctl(l.Wakeup.P50, true), pctl(l.Wakeup.P90, false), pctl(l.Wakeup.P99, true), pctl(l.Wakeup.P99_9, false))
			} else {
				row = append(row, "behind", "", "", "")
			}
			fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
		}
		tw.Flush()
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "LEVEL\tREQUEST p50 c/u\tp99 c [95%]\tp99 u\tp99.9 c/u\tmax c/u\tHOPS\tSW/REQ\t")
		for _, l := range s.Levels {
			if !l.Reported() {
				fmt.Fprintf(tw, "%s\tbehind: not a latency\t\t\t\t\t\t\t\n", l.LevelName())
				continue
			}
			hops := "-"
			if l.Requests.Measured > 0 {
				hops = units.Percent(100*float64(l.Requests.Hops)/float64(l.Requests.Measured), 0)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.LevelName(),
				loadPair(l.Corrected.P50, l.Uncorrected.P50), pctl(l.Corrected.P99, true), pctl(l.Uncorrected.P99, false),
				loadPair(l.Corrected.P99_9, l.Uncorrected.P99_9),
				loadPair(&result.Percentile{NS: l.Corrected.MaxNS}, &result.Percentile{NS: l.Uncorrected.MaxNS}), hops,
				units.Fixed(l.Switches.Voluntary+l.Switches.Involuntary, 2))
		}
		tw.Flush()
		if k := s.Knee; k != nil {
			if k.Utilization != nil {
				iv := ""
				if k.Low != nil && k.High != nil {
					iv = fmt.Sprintf(" [%s–%s]", units.Percent(100**k.Low, 0), units.Percent(100**k.High, 0))
				} else if k.Low != nil {
					iv = fmt.Sprintf(" [%s–open]", units.Percent(100**k.Low, 0))
				}
				fmt.Fprintf(w, "knee: the corrected p99 reaches %s× the lightest level's (%s) at %s utilisation%s\n",
					units.Sig(k.Factor), units.Time(k.BaseNS), units.Percent(100**k.Utilization, 0), iv)
			} else if k.Note != "" {
				fmt.Fprintf(w, "knee: %s\n", k.Note)
			}
		}
		if r := s.Reference; r != nil {
			hop := pctl(&result.Percentile{NS: r.HopNS, CILow: &r.HopCILow, CIHigh: &r.HopCIHigh}, true)
			for _, line := range wrapAt(fmt.Sprintf("reference: %s %s, one hop %s in this sitting; the wake-up p50 at %s is %s (%s×)", r.Name, r.Placement,
				hop, units.Percent(100*r.Utilization, 1), units.ShortTime(r.WakeupP50NS), units.Sig(r.Ratio)), 100) {
				fmt.Fprintln(w, line)
			}
		}
		for _, l := range s.Levels {
			if l.Capture != nil {
				fmt.Fprintf(w, "\n%s %s: the wake-ups under load, captured\n", s.Name, l.LevelName())
				Capture(w, l.Capture, st)
			}
		}
		for _, f := range s.Flags {
			fmt.Fprintf(w, "%s %s\n", note(s.Name+" "+s.Placement+": "+f.Message), "")
		}
	}
	if len(d.Loads) == 0 {
		fmt.Fprintln(w, "\nno load level was measured")
	}
	for _, f := range d.Failures {
		fmt.Fprintf(w, "FAILED %s %s: %s\n", f.Name, f.Placement, f.Error)
	}
	for _, f := range d.Skipped {
		fmt.Fprintf(w, "skipped %s %s: %s\n", f.Name, f.Placement, f.Error)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for i, n := range notes {
		for j, line := range wrapAt(fmt.Sprintf("[%d] %s", i+1, n), 96) {
			if j > 0 {
				line = "    " + line
			}
			fmt.Fprintln(w, line)
		}
	}
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

// wrapAt breaks text into lines of at most width columns at spaces.
func wrapAt(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len([]rune(line))+1+len([]rune(word)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}
