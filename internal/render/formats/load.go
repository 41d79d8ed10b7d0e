package formats

// load.go: ctxbench load's levels as CSV and Markdown.

import (
	"encoding/csv"
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

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
				render.PercentileCell(l.Wakeup.P50, true), render.PercentileCell(l.Wakeup.P99, true), render.PercentileCell(l.Corrected.P99, true), render.PercentileCell(l.Uncorrected.P99, true),
				render.PercentileCell(l.Corrected.P99_9, true), render.PercentileCell(l.Uncorrected.P99_9, true))
		}
		fmt.Fprintln(w)
	}
	return nil
}
