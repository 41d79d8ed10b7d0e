package replicate

// hierarchy.go: the published cost hierarchy table and its creation and
// memory claims (SourceHierarchy), set beside the ctxbench figure that
// measures each row. The ladder's own runs measure every row; Hierarchy
// derives the comparison from any document that holds them.

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// hierarchyRow maps a row of the published table to the ctxbench figure
// that measures it: the published text as the source prints it, and the
// same figure as numbers (ns per switch, low and high), which charts draw.
type hierarchyRow struct {
	Abstraction, Published, PublishedX, Name, Placement string
	Low, High                                           float64
}

// hierarchyTable is the published table, top to bottom.
var hierarchyTable = []hierarchyRow{
	{"goroutine (single-threaded)", "108 ns", "1x (baseline)", "goroutine/chan-gomaxprocs1", "same-cpu", 108, 108},
	{"goroutine (multi-threaded)", "152 ns", "1.4x", "goroutine/chan-gomaxprocsN", "unpinned", 152, 152},
	{"OS thread", "1,000-3,000 ns", "9-28x", "thread/pipe", "same-cpu", 1000, 3000},
	{"process", "5,000-10,000 ns", "46-93x", "process/pipe", "same-cpu", 5000, 10000},
	{"container", "5,000-15,000 ns", "46-139x", "container/pipe-full", "same-cpu", 5000, 15000},
	{"VM (hardware)", "10,000-50,000 ns", "93-463x", "vm/switch-user", "same-cpu", 10000, 50000},
}

// The creation and memory rows whose claims the table is shown with, in
// order. The claims themselves are in claims.go, the one place they are
// held, so this table and the creation and memory tables cite the same
// figures.
var (
	hierarchyCreation = []string{"spawn/goroutine", "spawn/thread", "spawn/fork", "spawn/container-full", "spawn/vm"}
	hierarchyMemory   = []string{"memory/goroutine", "memory/thread", "memory/process", "memory/container", "memory/vm"}
)

// hierarchyClaim is what the table says was published about a row: the
// write-up's own claims, or, where it makes none (thread and fork
// creation), the other sources' claims, each naming its source, and what
// differs where a claim is not like for like.
func hierarchyClaim(name string) string {
	cs := claims[name]
	var own []claim
	for _, c := range cs {
		if c.From == hierarchySource {
			own = append(own, c)
		}
	}
	if len(own) > 0 {
		cs = own
	}
	var parts []string
	for _, c := range cs {
		parts = append(parts, c.Text+" ("+c.From.Short+")"+c.differs())
	}
	if len(parts) == 0 {
		return "(no published figure)"
	}
	return strings.Join(parts, "; ")
}

// HierarchyCells names the ladder rows the table needs, as name and
// placement, and the creation and memory kinds its claims need.
func HierarchyCells() (rows [][2]string, spawnKinds, memoryKinds []string) {
	for _, h := range hierarchyTable {
		rows = append(rows, [2]string{h.Name, h.Placement})
	}
	for _, c := range hierarchyCreation {
		spawnKinds = append(spawnKinds, strings.TrimPrefix(c, "spawn/"))
	}
	for _, c := range hierarchyMemory {
		memoryKinds = append(memoryKinds, strings.TrimPrefix(c, "memory/"))
	}
	return rows, spawnKinds, memoryKinds
}

// Hierarchy sets the published table beside d's figures (multiples of d's
// baseline, Derived.Baseline), and the claims beside d's creation and
// memory rows. A row d does not hold says why, from d's failures and
// skips.
func Hierarchy(d *result.Document) ([]result.HierarchyRow, []result.ClaimRow) {
	why := map[string]string{}
	for _, f := range d.Skipped {
		why[f.Name+" "+f.Placement] = f.Error
		why[f.Name+" "] = f.Error
	}
	for _, f := range d.Failures {
		why[f.Name+" "+f.Placement] = "failed: " + f.Error
	}
	var base *result.BaselineRef
	if d.Derived != nil {
		base = d.Derived.Baseline
	}
	var rows []result.HierarchyRow
	for _, h := range hierarchyTable {
		lo, hi := h.Low, h.High
		row := result.HierarchyRow{Abstraction: h.Abstraction, Published: h.Published, PublishedMultiple: h.PublishedX, Name: h.Name, Placement: h.Placement,
			PublishedLowNS: &lo, PublishedHighNS: &hi}
		r := find(d, h.Name, h.Placement)
		if r == nil {
			row.Why = why[h.Name+" "+h.Placement]
			if row.Why == "" {
				row.Why = why[h.Name+" "]
			}
			if row.Why == "" {
				row.Why = "not run"
			}
			rows = append(rows, row)
			continue
		}
		m := r.OneWayNS.Median
		row.MedianNS = &m
		if base != nil {
			row.Multiple = ladderMultiple(*r)
		}
		row.SwitchesPerHop, row.Verified = r.SwitchesPerHop, r.Verification.Verified
		if h.Name == "vm/switch-user" && strings.Contains(r.Label.String(), "NOT a hardware") {
			row.Note = "not a hardware VM switch on this host (see its label): the published row assumed hardware virtualization"
		}
		rows = append(rows, row)
	}
	var claimRows []result.ClaimRow
	for _, c := range hierarchyCreation {
		for _, s := range d.Spawn {
			if s.Name == c {
				claimRows = append(claimRows, result.ClaimRow{Name: c, Published: hierarchyClaim(c), Measured: units.Time(s.PerCreateNS.Median) + " per creation (median)"})
			}
		}
	}
	for _, c := range hierarchyMemory {
		for _, m := range d.Memory {
			if m.Name == c {
				claimRows = append(claimRows, result.ClaimRow{Name: c, Published: hierarchyClaim(c),
					Measured: fmt.Sprintf("%s PSS, %s virtual per context, %d held", units.Bytes(m.PSSBytes), units.Bytes(m.VirtBytes), m.Contexts)})
			}
		}
	}
	return rows, claimRows
}

// HierarchyReplications is the hierarchy experiment's report: one entry
// per row of the published table and per claim.
func HierarchyReplications(d *result.Document) []result.Replication {
	rows, _ := Hierarchy(d)
	src := SourceHierarchy.String()
	var reps []result.Replication
	for _, h := range rows {
		rep := result.Replication{Name: "hierarchy: " + h.Abstraction, Source: src,
			Published: fmt.Sprintf("%s per switch, %s the single-threaded goroutine", h.Published, h.PublishedMultiple),
			Values:    map[string]float64{}}
		if h.MedianNS == nil {
			rep.Measured = "not measured here (" + h.Name + " " + h.Placement + ": " + h.Why + ")"
			reps = append(reps, rep)
			continue
		}
		r := find(d, h.Name, h.Placement)
		rep.Values["one_way_ns_median"] = *h.MedianNS
		multiple := "no goroutine baseline measured"
		if h.Multiple != nil {
			rep.Values["multiple_of_goroutine"] = *h.Multiple
			multiple = fmt.Sprintf("%.1fx %s", *h.Multiple, d.Derived.Baseline.Name)
		}
		sw := "no kernel switch expected"
		if h.SwitchesPerHop != nil {
			sw = fmt.Sprintf("%.2f switches per hop counted", *h.SwitchesPerHop)
			rep.Values["switches_per_hop"] = *h.SwitchesPerHop
		}
		rep.Measured = fmt.Sprintf("%s per hop [p10 %s – p90 %s], %s; %s (%s %s)",
			units.Time(r.OneWayNS.Median), units.Time(r.OneWayNS.P10), units.Time(r.OneWayNS.P90), multiple, sw, h.Name, h.Placement)
		rep.Notes = []string{r.Label.String()}
		if h.Name == "vm/switch-user" {
			rep.Mistake = "the published row assumes hardware virtualization and was not measured; the label above says what this host's KVM really does"
		} else {
			rep.Mistake = "the published figure was a guess, not a measurement"
		}
		reps = append(reps, rep)
	}
	for _, c := range hierarchyCreation {
		for _, s := range d.Spawn {
			if s.Name == c {
				reps = append(reps, result.Replication{Name: "hierarchy: creation " + c, Source: src, Published: hierarchyClaim(c),
					Measured: fmt.Sprintf("%s per creation (median; p90 %s)", units.Time(s.PerCreateNS.Median), units.Time(s.PerCreateNS.P90)),
					Values:   map[string]float64{"per_create_ns_median": s.PerCreateNS.Median}, Notes: []string{s.Label}})
			}
		}
	}
	for _, c := range hierarchyMemory {
		for _, m := range d.Memory {
			if m.Name == c {
				reps = append(reps, result.Replication{Name: "hierarchy: memory " + c, Source: src, Published: hierarchyClaim(c),
					Measured: fmt.Sprintf("%s PSS, %s resident, %s virtual per context, %d held", units.Bytes(m.PSSBytes), units.Bytes(m.RSSBytes), units.Bytes(m.VirtBytes), m.Contexts),
					Values:   map[string]float64{"pss_bytes": m.PSSBytes, "virtual_bytes": m.VirtBytes, "contexts": float64(m.Contexts)}, Notes: []string{m.Label}})
			}
		}
	}
	for _, f := range append(d.Failures, d.Skipped...) {
		for _, c := range append(append([]string{}, hierarchyCreation...), hierarchyMemory...) {
			if f.Name == c {
				reps = append(reps, result.Replication{Name: "hierarchy: " + c, Source: src, Published: hierarchyClaim(c), Measured: "not measured here (" + f.Error + ")"})
			}
		}
	}
	return reps
}

// ladderMultiple is r's multiple of the baseline as the ladder stores and
// prints it (the × column): its interval's median, the median of the
// per-round ratios, where the blocks paired; else the ladder's stored
// multiple (the ratio of the medians); nil where the ladder set none. It
// is never recomputed here as a ratio of the medians, which can lie
// outside the interval, and the interval is read first so that a file
// written when the stored multiple was that ratio gives the same figure.
func ladderMultiple(r result.Result) *float64 {
	if r.Multiple == nil {
		return nil
	}
	x := *r.Multiple
	if iv := r.MultipleInterval; iv != nil {
		x = iv.Median
	}
	return &x
}

func find(d *result.Document, name, placement string) *result.Result {
	for i := range d.Results {
		if d.Results[i].Name == name && d.Results[i].Placement == placement {
			return &d.Results[i]
		}
	}
	return nil
}
