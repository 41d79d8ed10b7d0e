package compare

// entries.go: what each kind of figure of a result file contributes to a
// comparison, before rows are matched.

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// entry is one figure of one input, before matching.
type entry struct {
	name, placement string
	samples         []float64
	sizes           []int // samples per block, in order; nil when unknown
	summary         stats.Summary
	notes           []string
	// repro is the figure's reproducibility (ladder rows whose machine had
	// learned it); nil elsewhere.
	repro *result.Reproducibility
	cpus  string // the CPUs the figure's sides were allowed (result.CellCPUs)
	// adjusted is the figure with the host's state taken out, and probes
	// its blocks' host probe readings (ladder rows of probed runs).
	adjusted *result.HostAdjusted
	probes   []float64
}

// key matches an entry to its row: by name and placement, or by name alone
// with IgnorePlacement.
func (e entry) key(o Options) string {
	if o.IgnorePlacement {
		return e.name
	}
	return e.name + "\x00" + e.placement
}

// cell is the entry as a row's cell (its notes are the caller's).
func (e entry) cell() Cell {
	return Cell{Present: true, Placement: e.placement, Summary: e.summary, Samples: e.samples, Sizes: e.sizes, Repro: e.repro,
		CPUs: e.cpus, Adjusted: e.adjusted, Probes: e.probes}
}

type source struct {
	title, unit string
	entries     func(d *result.Document) []entry
}

var sources = []source{
	{"switch ladder", "ns/hop", ladderEntries},
	{"rings (raw)", "ns/hop", ringEntries},
	{"creation", "ns/create", spawnEntries},
	{"load levels (percentiles)", "ns", loadEntries},
}

func ladderEntries(d *result.Document) []entry {
	var out []entry
	for _, r := range d.Results {
		e := entry{name: r.Name, placement: r.Placement, samples: r.Samples, sizes: result.BlockSizes(r.BlockInfo), summary: r.OneWayNS.Summary, repro: r.OneWayNS.Reproducibility, cpus: result.CellCPUs(&r),
			adjusted: r.HostAdjusted, probes: result.BlockProbes(r.BlockInfo)}
		e.notes = flagNotes(r.Name, r.Placement, r.Flags)
		out = append(out, e)
	}
	return out
}

func ringEntries(d *result.Document) []entry {
	var out []entry
	for _, r := range d.Rings {
		name := r.Point()
		e := entry{name: name, placement: r.Placement, samples: r.Samples, sizes: result.BlockSizes(r.BlockInfo), summary: r.RawNS}
		if e.summary.N != len(e.samples) {
			e.summary = stats.Summarize(e.samples)
		}
		e.notes = flagNotes(name, r.Placement, r.Flags)
		out = append(out, e)
	}
	return out
}

// loadEntries are ctxbench load's levels, matched level by level (a
// utilisation level by its target, a rate level by its rate): each level's
// wake-up p50, p99 and p99.9 and its corrected request p50, p99 and p99.9,
// each a row whose samples are the blocks' own percentiles (one per block:
// blocks are the unit, as everywhere), and whose figure and interval are
// the level's. A level that did not keep its schedule has no latency to
// compare and is left out with a note.
func loadEntries(d *result.Document) []entry {
	var out []entry
	for _, s := range d.Loads {
		for _, l := range s.Levels {
			lname := "load " + s.Kind + " " + l.LevelName()
			if !l.Reported() {
				out = append(out, entry{name: lname + " (behind)", placement: s.Placement, notes: []string{fmt.Sprintf("%s %s: %s; not compared", lname, s.Placement, l.StatusReason)}})
				continue
			}
			for _, m := range []struct {
				what string
				lat  *result.LoadLatency
			}{{"wake", &l.Wakeup}, {"request", &l.Corrected}} {
				for _, p := range m.lat.Percentiles() {
					if p.Name == "p90" || p.P == nil || len(p.P.BlockNS) == 0 {
						continue
					}
					sizes := make([]int, len(p.P.BlockNS))
					for i := range sizes {
						sizes[i] = 1
					}
					sum := stats.SummarizeBlocks(p.P.BlockNS, sizes)
					sum.Median, sum.Warnings = p.P.NS, nil // the level's figure and interval (stats.TailInterval), not the blocks' median
					if p.P.CILow != nil && p.P.CIHigh != nil {
						sum.CILow, sum.CIHigh, sum.Confidence = *p.P.CILow, *p.P.CIHigh, p.P.Confidence
					}
					out = append(out, entry{name: fmt.Sprintf("%s %s %s", lname, m.what, strings.ReplaceAll(p.Name, "_", ".")), placement: s.Placement,
						samples: p.P.BlockNS, sizes: sizes, summary: sum, notes: flagNotes(lname, s.Placement, l.Flags)})
				}
			}
		}
	}
	return out
}

// flagNotes are a figure's flags as footnotes, each naming the figure.
func flagNotes(name, placement string, flags []result.Flag) []string {
	var out []string
	for _, f := range flags {
		out = append(out, fmt.Sprintf("%s %s flagged (%s): %s", name, placement, f.Code, f.Message))
	}
	return out
}

func spawnEntries(d *result.Document) []entry {
	var out []entry
	for _, s := range d.Spawn {
		sizes := s.BlockSamples
		if len(sizes) == 0 {
			sizes = []int{len(s.Samples)} // written before blocks were recorded: one worker, one block
		}
		e := entry{name: s.Name, samples: s.Samples, sizes: sizes, summary: s.PerCreateNS}
		if e.summary.N != len(e.samples) {
			e.summary = stats.Summarize(e.samples)
		}
		out = append(out, e)
	}
	return out
}
