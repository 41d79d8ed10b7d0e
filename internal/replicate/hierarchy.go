package replicate

import (
	"context"
	"fmt"
	"time"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/export"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/runner"
)

const seedHierarchy = "seeds/000: the published context-switch cost hierarchy table, with its creation and memory claims"

func init() {
	Register(Experiment{Name: "hierarchy", Source: seedHierarchy, Order: 15,
		Summary: "the published hierarchy table (goroutine 1 thread and N threads, thread, process, container, VM) measured row by row, with the creation and memory claims",
		Run:     hierarchy})
}

// hierarchy measures every row of the published table with the default
// preset, and the creation and memory claims at full scale.
func hierarchy(ctx context.Context, e Env) ([]result.Replication, error) {
	var cells []runner.Cell
	why := map[string]string{} // name+placement of a row not measured -> the reason
	for _, h := range export.Hierarchy {
		b := bench.Lookup(h.Name)
		if b == nil {
			why[h.Name+h.Placement] = "no such benchmark"
			continue
		}
		p, _ := bench.ParsePlacement(h.Placement)
		if ok, reason := b.Available(); !ok {
			why[h.Name+h.Placement] = reason
			continue
		}
		c, err := runner.CellFor(b, p, e.CPUs)
		if err != nil {
			why[h.Name+h.Placement] = err.Error()
			continue
		}
		cells = append(cells, c)
	}
	o := runner.Options{Runs: 40, SamplesPerBlock: 8, Warmup: 1, MinTime: 2 * time.Millisecond, Seed: time.Now().UnixNano(), PerfCheck: true,
		Host: export.HostLine(e.Environment), Executor: e.Executor}
	if e.Quick {
		o.Runs, o.SamplesPerBlock, o.MinTime = 12, 4, time.Millisecond
	}
	fmt.Fprintf(e.Log, "hierarchy: %d switch rows\n", len(cells))
	outs, err := runner.Run(ctx, cells, o)
	if err != nil {
		return nil, err
	}
	doc := &result.Document{Environment: e.Environment}
	for _, oc := range outs {
		if oc.Result != nil {
			doc.Results = append(doc.Results, *oc.Result)
		} else if oc.Err != nil {
			why[oc.Cell.Bench.Name+string(oc.Cell.Placement)] = "failed: " + oc.Err.Error()
		}
	}
	lo := runner.LifecycleOptions{CPU: e.CPUs[len(e.CPUs)-1], CPUs: e.CPUs, NoSettle: true, Executor: e.Executor,
		Progress: func(k string) { fmt.Fprintf(e.Log, "hierarchy: %s\n", k) }}
	if e.Quick {
		lo.Samples = 10
		lo.N = map[string]int{"goroutine": 10000, "thread": 1000, "process": 100, "container": 20, "vm": 20}
	}
	var m1, m2 runner.Missing
	if doc.Spawn, m1, err = runner.Spawn(ctx, []string{"goroutine", "thread", "fork", "container-full", "vm"}, lo); err != nil {
		return nil, err
	}
	lo.Samples = 0
	if doc.Memory, m2, err = runner.Memory(ctx, []string{"goroutine", "thread", "process", "container", "vm"}, lo); err != nil {
		return nil, err
	}
	for _, f := range append(m1.Failed, m2.Failed...) {
		why[f.Name] = "failed: " + f.Error
	}
	for _, f := range append(m1.Skipped, m2.Skipped...) {
		why[f.Name] = f.Error
	}

	var base *result.Result // the ladder's "× goroutine" baseline, so the two agree
	if i := export.Baseline(doc); i >= 0 {
		base = &doc.Results[i]
	}
	var reps []result.Replication
	for _, h := range export.Hierarchy {
		var r *result.Result
		for i := range doc.Results {
			if doc.Results[i].Name == h.Name && doc.Results[i].Placement == h.Placement {
				r = &doc.Results[i]
			}
		}
		rep := result.Replication{Name: "hierarchy: " + h.Abstraction, Source: seedHierarchy,
			Published: fmt.Sprintf("%s per switch, %s the single-threaded goroutine", h.Published, h.PublishedX),
			Values:    map[string]float64{}}
		if r == nil {
			rep.Measured = "not measured here (" + h.Name + " " + h.Placement + ": " + why[h.Name+h.Placement] + ")"
			reps = append(reps, rep)
			continue
		}
		rep.Values["one_way_ns_median"] = r.OneWayNS.Median
		multiple := "no goroutine baseline measured"
		if base != nil {
			x := r.OneWayNS.Median / base.OneWayNS.Median
			rep.Values["multiple_of_goroutine"] = x
			multiple = fmt.Sprintf("%.1fx %s", x, base.Name)
		}
		sw := "no kernel switch expected"
		if r.SwitchesPerHop != nil {
			sw = fmt.Sprintf("%.2f switches per hop counted", *r.SwitchesPerHop)
			rep.Values["switches_per_hop"] = *r.SwitchesPerHop
		}
		rep.Measured = fmt.Sprintf("%s per hop [p10 %s – p90 %s], %s; %s (%s %s)",
			export.FormatNS(r.OneWayNS.Median), export.FormatNS(r.OneWayNS.P10), export.FormatNS(r.OneWayNS.P90), multiple, sw, h.Name, h.Placement)
		rep.Notes = []string{r.Label}
		if h.Name == "vm/switch-user" {
			rep.Mistake = "the published row assumes hardware virtualization and was not measured; the label above says what this host's KVM really does"
		} else {
			rep.Mistake = "the published figure was a guess, not a measurement"
		}
		reps = append(reps, rep)
	}
	for _, c := range export.HierarchyCreation {
		if r, ok := why[c[0]]; ok {
			reps = append(reps, result.Replication{Name: "hierarchy: creation " + c[0], Source: seedHierarchy, Published: c[1],
				Measured: "not measured here (" + r + ")"})
		}
		for _, s := range doc.Spawn {
			if s.Name == c[0] {
				reps = append(reps, result.Replication{Name: "hierarchy: creation " + c[0], Source: seedHierarchy, Published: c[1],
					Measured: fmt.Sprintf("%s per creation (median; p90 %s)", export.FormatNS(s.PerCreateNS.Median), export.FormatNS(s.PerCreateNS.P90)),
					Values:   map[string]float64{"per_create_ns_median": s.PerCreateNS.Median}, Notes: []string{s.Label}})
			}
		}
	}
	for _, c := range export.HierarchyMemory {
		if r, ok := why[c[0]]; ok {
			reps = append(reps, result.Replication{Name: "hierarchy: memory " + c[0], Source: seedHierarchy, Published: c[1],
				Measured: "not measured here (" + r + ")"})
		}
		for _, m := range doc.Memory {
			if m.Name == c[0] {
				reps = append(reps, result.Replication{Name: "hierarchy: memory " + c[0], Source: seedHierarchy, Published: c[1],
					Measured: fmt.Sprintf("%s PSS, %s resident, %s virtual per context, %d held", export.FormatBytes(m.PSSBytes), export.FormatBytes(m.RSSBytes), export.FormatBytes(m.VirtBytes), m.Contexts),
					Values:   map[string]float64{"pss_bytes": m.PSSBytes, "virtual_bytes": m.VirtBytes, "contexts": float64(m.Contexts)}, Notes: []string{m.Label}})
			}
		}
	}
	return reps, nil
}
