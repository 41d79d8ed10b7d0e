package render

// history.go: ctxbench history, each cell's medians over time per machine
// fingerprint and the steps found in them (stats.Steps). The command line
// reads the store and fills History; this shows it as text, and its JSON
// (HistoryJSON) is the --format json document (docs/methodology.md,
// "History").

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// History is every machine fingerprint's cells over time.
type History struct {
	Store    string           `json:"store"`
	Machines []HistoryMachine `json:"machines"`
}

// HistoryMachine is one fingerprint: its fields (as the first sitting
// recorded them) and its cells.
type HistoryMachine struct {
	Fingerprint string `json:"fingerprint"`
	// Machine is the key of the fingerprint's machine part; Builds how many
	// fingerprints (builds under test) the store holds of that machine,
	// whose noise every one of them learns from.
	Machine string                   `json:"machine"`
	Builds  int                      `json:"builds"`
	Fields  result.FingerprintFields `json:"fields"`
	First   time.Time                `json:"first_recorded"`
	Cells   []HistoryCell            `json:"cells"`
}

// HistoryCell is one cell's sittings, oldest first, and the steps found.
type HistoryCell struct {
	Name      string         `json:"name"`
	Placement string         `json:"placement"`
	CPUs      string         `json:"cpus"`
	Points    []HistoryPoint `json:"points"`
	Steps     []HistoryStep  `json:"steps"`
	// Searched is false when the cell has too few clean sittings for a
	// step to be found (2·stats.MinSegment): "no step" would say more than
	// was tested.
	Searched bool `json:"searched"`
}

// HistoryPoint is one sitting's figure of the cell, in ns per hop. Low and
// High are its precision interval at Confidence (null when not recorded).
type HistoryPoint struct {
	At         time.Time `json:"at"`
	Median     float64   `json:"median_ns"`
	Low        *float64  `json:"ci_low_ns"`
	High       *float64  `json:"ci_high_ns"`
	Confidence float64   `json:"confidence"`
	Blocks     int       `json:"blocks"`
	// Contended points (other work took the measured CPU) are shown but
	// left out of the step search.
	Contended bool `json:"contended"`
	// HostSlow is how much slower than the machine's usual speed the host
	// ran the sitting's blocks: the median of their host probe readings
	// over the lower quartile of every reading the machine has recorded,
	// − 1 (null where its blocks were not probed).
	HostSlow *float64 `json:"host_slow"`
}

// HistoryStep is a step found (stats.Step): the first sitting at the new
// level, the change relative to the old level with its interval at
// stats.Confidence, and how many sittings each level rests on.
type HistoryStep struct {
	At         time.Time `json:"at"`
	Change     float64   `json:"change"`
	Low        float64   `json:"change_low"`
	High       float64   `json:"change_high"`
	Confidence float64   `json:"confidence"`
	Before     int       `json:"sittings_before"`
	After      int       `json:"sittings_after"`
}

const historyTime = "2006-01-02 15:04"

// HistoryText writes h for a terminal: per fingerprint its key fields,
// per cell a table of its sittings (UTC) and its steps. It is laid out for
// the style of w.
func HistoryText(w io.Writer, h *History) {
	st := styleOf(w)
	for i := range h.Machines {
		m := &h.Machines[i]
		if i > 0 {
			fmt.Fprintln(w)
		}
		for k, l := range machineLines(m) {
			if k > 0 {
				l = "  " + l
			}
			prose(w, st, "%s\n", l)
		}
		for j := range m.Cells {
			historyCell(w, &m.Cells[j], st)
		}
	}
}

// machineLines head a fingerprint: the fingerprint, then host, CPU and
// kernel, the build, the settings and what else the machine runs.
func machineLines(m *HistoryMachine) []string {
	f := &m.Fields
	out := []string{fmt.Sprintf("machine %s (first recorded %s UTC)", m.Fingerprint, m.First.UTC().Format(historyTime)),
		fmt.Sprintf("host %s; CPU %s, %d logical, SMT %s; kernel %s %s", f.Host, f.CPU, f.LogicalCPUs, onOff(f.SMT), f.Kernel, f.KernelBuild)}
	build := []string{"ctxbench " + f.Version}
	if f.Commit != "" {
		build = append(build, "commit "+f.Commit)
	}
	if f.Build != "" {
		build = append(build, "build "+f.Build)
	}
	build = append(build, f.GoVersion)
	out = append(out, strings.Join(build, ", "))
	iters := "calibrated"
	if f.Iterations > 0 {
		iters = units.Count(float64(f.Iterations))
	}
	span := ""
	if f.SpanNS > 0 {
		span = ", span " + units.Time(float64(f.SpanNS))
	}
	out = append(out, fmt.Sprintf("settings: min-time %s, iterations %s, %d samples per block, warmup %d%s",
		units.Time(float64(f.MinTimeNS)), iters, f.SamplesPerBlk, f.Warmup, span),
		fmt.Sprintf("governor %s; idle %s/%s; clocksource %s; %s", orNone(f.Governor), orNone(f.IdleDriver), orNone(f.IdleGovernor),
			orNone(f.Clocksource), orNone(f.Virt)))
	if m.Builds > 1 {
		out = append(out, fmt.Sprintf("one of %d builds (kernels, ctxbench builds, settings) of machine %s, whose noise each learns from", m.Builds, m.Machine))
	}
	return out
}

// historyCell is one cell: a table of its sittings (the median, its
// interval, and whether the sitting was contended or the host slow), then
// its steps or why none was searched.
func historyCell(w io.Writer, c *HistoryCell, st Style) {
	prose(w, st, "\n  %s %s CPUs %s\n", c.Name, c.Placement, c.CPUs)
	t := NewTable(Col{Head: "SITTING (UTC)"}, Col{Head: "MEDIAN", Right: true}, Col{Head: "INTERVAL", Fold: 1}, Col{Head: "NOTE", Wrap: true, Min: 16})
	t.Indent = 4
	for _, p := range c.Points {
		ci := ""
		if p.Low != nil && p.High != nil {
			ci = fmt.Sprintf("[%s, %s] at %s", units.Time(*p.Low), units.Time(*p.High), LevelText(p.Confidence))
		}
		var notes []string
		if p.Contended {
			notes = append(notes, "contended (not searched for steps)")
		}
		if p.HostSlow != nil && *p.HostSlow >= result.SlowThreshold {
			notes = append(notes, fmt.Sprintf("host %s slower than usual", units.Percent(100**p.HostSlow, 0)))
		}
		t.Row(p.At.UTC().Format(historyTime), units.Time(p.Median), ci, strings.Join(notes, "; "))
	}
	t.Write(w, st)
	switch {
	case !c.Searched:
		prose(w, st, "    steps not searched: %d clean sitting(s); a step needs %d on each side\n", clean(c.Points), stats.MinSegment)
	case len(c.Steps) == 0:
		prose(w, st, "    no step\n")
	}
	for _, s := range c.Steps {
		prose(w, st, "    step at %s: %s [%s, %s] (%d sittings before, %d after)\n", s.At.UTC().Format(historyTime),
			units.Change(s.Change), units.Change(s.Low), units.Change(s.High), s.Before, s.After)
	}
}

func clean(ps []HistoryPoint) int {
	n := 0
	for _, p := range ps {
		if !p.Contended {
			n++
		}
	}
	return n
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
