// Package formats writes result documents and comparisons in the formats
// programs and other tools read: CSV (every figure with all its digits),
// Markdown, the Go benchmark format (which benchstat reads), compare's CSV,
// Markdown and JSON, and ctxbench history's JSON. A cell reads as it does
// in the terminal's tables: its text and marks come from internal/render.
package formats

// results.go: the ladder as CSV, Markdown and the Go benchmark format.

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

func optF64(v *float64) string {
	if v == nil {
		return ""
	}
	return units.Exact(*v)
}

// CSV writes one summary row per result (raw samples are in the JSON),
// every figure with all its digits (units.Exact): a program reads it back.
func CSV(w io.Writer, d *result.Document) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"name", "rung", "placement", "kind", "one_way_ns_median", "one_way_ns_p10", "one_way_ns_p90",
		"one_way_ns_ci_low", "one_way_ns_ci_high", "one_way_ns_cv", "samples", "one_way_tsc_ticks_median",
		"switches_per_hop", "verified", "flags", "label",
		"one_way_ns_ci_confidence", "repro_low", "repro_high", "repro_confidence", "repro_sittings", "repro_between_cv"})
	for _, r := range d.Results {
		cyc := ""
		if r.OneWayCycles != nil {
			cyc = units.Exact(r.OneWayCycles.Median)
		}
		var flags []string
		for _, f := range r.Flags {
			flags = append(flags, f.Code)
		}
		s := r.OneWayNS
		row := []string{r.Name, r.Rung, r.Placement, r.Kind, units.Exact(s.Median), units.Exact(s.P10), units.Exact(s.P90),
			units.Exact(s.CILow), units.Exact(s.CIHigh), units.Exact(s.CV), strconv.Itoa(s.N), cyc,
			optF64(r.SwitchesPerHop), verifiedCell(r), strings.Join(flags, ";"), r.Label.String(),
			units.Exact(s.Confidence)}
		if rp := s.Reproducibility; rp != nil {
			row = append(row, units.Exact(rp.Low), units.Exact(rp.High), units.Exact(rp.Confidence), strconv.Itoa(rp.Sittings), units.Exact(rp.BetweenCV))
		} else {
			row = append(row, "", "", "", "", "") // not learned: empty, never a made-up interval
		}
		_ = cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// verifiedCell is the CSV's verified column: empty where no kernel switch
// is expected (nothing was there to verify), else whether the switches
// counted were one per hop.
func verifiedCell(r result.Result) string {
	if r.Verification.ExpectedPerHop == nil && r.SwitchesPerHop == nil {
		return ""
	}
	return strconv.FormatBool(r.Verification.Verified)
}

// Markdown writes the ladder as a Markdown table, followed by the creation
// and memory tables where the document holds them. Its marks are the
// terminal's, explained under the table.
func Markdown(w io.Writer, d *result.Document) error {
	stated := render.StatedLevel(render.PrecisionLevels(d.Results)...)
	mstated := render.MultipleLevel(d.Results)
	ms := render.MarkSet{}
	b := render.Baseline(d)
	fmt.Fprintf(w, "Host: %s\n\n", d.Environment.HostLine())
	fmt.Fprintf(w, "| Rung | Benchmark | Placement | One-way (median) | p10–p90 | CI (this sitting) | Reproducibility | %s ticks | %s | Switches/hop |\n", render.TicksName(d.Environment.CPU.TSC), strings.ToUpper(render.BaselineHead(d)[:3])+strings.ToLower(render.BaselineHead(d)[3:]))
	fmt.Fprintln(w, "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")
	for _, r := range d.Results {
		s := r.OneWayNS
		cyc := "—"
		if r.OneWayCycles != nil {
			cyc = units.Sig(r.OneWayCycles.Median)
		}
		ci := "—" // too few samples for any interval: its bounds would be the extremes
		if s.Confidence > 0 {
			ci = render.RangeIn(s.CILow, s.CIHigh, s.Median)
		}
		if l := render.LevelMarkVs(s.Confidence, stated); l != "" {
			ci += l
			ms.Use(render.MarkLevel)
		}
		if render.NoiseWarned(r) {
			ci += ms.Use(render.MarkNoisy)
		}
		rp := "—"
		if x := s.Reproducibility; x != nil {
			rp = render.RangeIn(x.Low, x.High, s.Median)
			if l := render.LevelMark(x.Confidence); l != "" {
				rp += l
				ms.Use(render.MarkLevel)
			}
			if len(x.PooledFrom) > 0 {
				rp += ms.Use(render.MarkPooled)
			}
		}
		name := "`" + r.Name + "`" + strings.TrimPrefix(ms.Name(r), r.Name)
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.Rung, name, r.Placement,
			units.Time(s.Median), render.RangeIn(s.P10, s.P90, s.Median), ci, rp, cyc, render.Multiple(r, b, mstated, ms), render.SwitchesCell(r, ms))
	}
	fmt.Fprintf(w, "\nOne-way = time per hop; p10–p90 and the intervals are in the unit of the median beside them. CI (this sitting) = where this sitting's median lies, %s from its block medians.\n", render.LevelText(stated))
	for _, l := range render.ReproLegend(d, d.Results) {
		fmt.Fprintln(w, strings.ReplaceAll(l, "±REPRO", "Reproducibility"))
	}
	if b != nil {
		h := render.BaselineHead(d)
		fmt.Fprintln(w, render.MultipleLegend(d.Results, b, strings.ToUpper(h[:3])+strings.ToLower(h[3:]), fmt.Sprintf("`%s` %s", b.Name, b.Placement)))
	}
	fmt.Fprintln(w, "Switches/hop: counted context switches of both sides per hop; — where no kernel switch is expected.")
	for _, l := range ms.Legends() {
		fmt.Fprintln(w, "\n"+mdEscape(l))
	}
	first := true
	for _, r := range d.Results {
		if c := r.CrossCPU; c != nil && c.Consists != "" {
			if first {
				fmt.Fprintln(w, "\nWhat a cross-CPU hop adds, as far as the run can tell:")
				first = false
			}
			fmt.Fprintf(w, "- `%s` %s: %s\n", r.Name, r.Placement, mdEscape(c.Consists))
		}
	}
	// The default ladder's creation and memory sections, as their own
	// tables: a Markdown export holds every table the terminal showed.
	if len(d.Spawn) > 0 {
		fmt.Fprintln(w, "\n## Creation")
		fmt.Fprintln(w)
		if err := spawnMarkdownTable(w, d); err != nil {
			return err
		}
	}
	if len(d.Memory) > 0 {
		fmt.Fprintln(w, "\n## Memory")
		fmt.Fprintln(w)
		return memoryMarkdownTable(w, d)
	}
	return nil
}

// GoBench writes the results in the Go benchmark format, so that
// `benchstat old.txt new.txt` compares two runs. The unit is ns/hop (one op
// of this file is one hop). benchstat takes every line as an independent
// observation, and the samples of one block (one worker process) are not
// independent of each other: so a row with blocks writes one line per
// block, the median of its samples, and benchstat's n counts blocks, as
// every interval of ctxbench does. A row without recorded blocks (an older
// file) can only write its raw samples, and says so in a comment line.
func GoBench(w io.Writer, d *result.Document) error {
	e := d.Environment
	fmt.Fprintf(w, "goos: %s\ngoarch: %s\npkg: ctxbench\ncpu: %s\n", e.OS, e.Arch, e.CPU.Model)
	fmt.Fprintf(w, "kernel: %s\nvirtualization: %s\n", e.Kernel, strings.ReplaceAll(e.Virtualization.Label, ",", ";"))
	fmt.Fprintln(w, "Unit ns/hop better=lower assume=nothing")
	// Comment lines start with "#": benchfmt ignores a line that is neither
	// a benchmark, a unit nor a "key: value" line.
	fmt.Fprintln(w, "# one value per block: the median of the block's samples (a block is one worker process; its samples are not independent, the blocks are), so n counts blocks")
	for _, r := range d.Results {
		name := "Benchmark" + benchName(r.Name) + "/placement=" + r.Placement
		vals := stats.BlockMedians(r.Samples, result.BlockSizes(r.BlockInfo))
		if vals == nil {
			fmt.Fprintf(w, "# %s %s: no blocks recorded: one value per raw sample, which benchstat takes as independent though they may not be\n", r.Name, r.Placement)
			vals = r.Samples
		}
		for _, v := range vals {
			fmt.Fprintf(w, "%s\t%d\t%s ns/hop\n", name, r.IterationsPerSample, units.Fixed(v, 2))
		}
	}
	return nil
}

// benchName turns "thread/pipe" into "Thread/pipe": benchfmt needs a name
// starting with an upper-case letter after "Benchmark".
func benchName(n string) string {
	n = strings.ReplaceAll(n, " ", "_")
	if n == "" {
		return n
	}
	return strings.ToUpper(n[:1]) + n[1:]
}
