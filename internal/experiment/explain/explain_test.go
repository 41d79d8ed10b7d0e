package explain

import (
	"math"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

var pipeBench = &model.Benchmark{Name: "thread/pipe", Rung: model.Thread, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}

// run builds a cell's blocks: each block 4 samples of ns per op, one
// switch per hop, and (traced) the given phases per hop.
func run(b *model.Benchmark, trace bool, nsPerOp uint64, phases []model.ExplainPhase, counts map[string]float64) schedule.CellRun {
	c := schedule.Cell{Bench: b, Placement: model.SameCPU, CPUA: 1, CPUB: 1, Trace: trace}
	r := schedule.CellRun{Cell: c, Iters: 100}
	for round := range 6 {
		resp := model.Response{NS: []uint64{}, TSC: []uint64{}}
		for s := range 4 {
			ns := 100 * (nsPerOp + uint64(round) + uint64(s))
			resp.NS, resp.TSC = append(resp.NS, ns), append(resp.TSC, ns)
		}
		resp.A = model.Counts{Ops: 500, Voluntary: 500}
		resp.B = model.Counts{Ops: 500, Voluntary: 500}
		if trace {
			resp.Explain = &model.Explain{Method: "raw tracepoints only", Model: "pipe hop, same CPU", Hops: 1000, HopNsPerHop: 1100,
				UnattributedNsPerHop: 50, Phases: phases, Counts: counts}
		}
		r.Blocks = append(r.Blocks, schedule.Block{Round: round, Resp: resp})
	}
	return r
}

func phases(ns ...float64) []model.ExplainPhase {
	names := []string{"write(): copy into the pipe", "wakeup: enqueue up the cgroup hierarchy", "pick next task", "context switch: switch_mm up to a TLB flush"}
	var out []model.ExplainPhase
	for i, v := range ns {
		out = append(out, model.ExplainPhase{Name: names[i], NsPerHop: v, PerHop: 1, Probes: "a -> b"})
	}
	return out
}

// The phases are the traced blocks' averages, in time order; the closure
// is their sum over the traced hop on the user clock; the probes' cost is
// the paired ratio; a model that does not close is said to, never scaled.
func TestAggregateClosesAndNeverScales(t *testing.T) {
	u := run(pipeBench, false, 2000, nil, nil)                                                      // 1000 ns per hop
	tr := run(pipeBench, true, 2400, phases(300, 200, 400, 300), map[string]float64{"fpu_save": 1}) // 1200 per hop; phases 1200
	r := Aggregate(u, tr, "host")
	e := r.Explain
	if e == nil || len(e.Phases) != 4 || e.Phases[0].Name != "write(): copy into the pipe" {
		t.Fatalf("explain %+v", e)
	}
	if math.Abs(e.Closure-1200/e.TracedMeanNS) > 1e-9 || math.Abs(e.Closure-1) > 0.05 {
		t.Errorf("closure %.3f (traced mean %.0f): want the phases' 1200 ns over it, near 1", e.Closure, e.TracedMeanNS)
	}
	if !(e.ProbeCost > 0.1 && e.ProbeCostLow <= e.ProbeCost && e.ProbeCost <= e.ProbeCostHigh) {
		t.Errorf("probe cost %.3f [%.3f, %.3f], want about +20%%", e.ProbeCost, e.ProbeCostLow, e.ProbeCostHigh)
	}
	if !(e.ProbeCostConfidence > 0.5 && e.ProbeCostConfidence <= 1) {
		t.Errorf("probe cost interval's level %.3f not recorded", e.ProbeCostConfidence)
	}
	if r.SwitchesPerHop == nil || *r.SwitchesPerHop != 1 || !r.Verification.Verified {
		t.Errorf("switches per hop %v", r.SwitchesPerHop)
	}
	for _, w := range r.Warnings {
		if w.Code == "explain-closure" {
			t.Errorf("a closing model was warned about: %s", w.Message)
		}
	}
	// Phases that explain only half of the hop are shown as they are.
	half := run(pipeBench, true, 2400, phases(150, 100, 200, 150), nil)
	r = Aggregate(u, half, "host")
	warned := false
	for _, w := range r.Warnings {
		warned = warned || w.Code == "explain-closure"
	}
	if !warned || r.Explain.Phases[0].NsPerHop != 150 {
		t.Errorf("half a hop explained: warned %v, first phase %.0f ns (want 150, unscaled)", warned, r.Explain.Phases[0].NsPerHop)
	}
	// No phases at all: flagged, not invented.
	none := run(pipeBench, false, 2400, nil, nil)
	none.Cell.Trace = true
	if r := Aggregate(u, none, "host"); len(r.Flags) == 0 || r.Explain == nil || len(r.Explain.Phases) != 0 {
		t.Errorf("no phases: flags %+v", r.Flags)
	}
}

// The steps are attributed phase by phase, largest change first, and each
// claim gets the verdict its evidence supports.
func TestDeriveStepsAndVerdicts(t *testing.T) {
	proc := &model.Benchmark{Name: "process/pipe", Rung: model.Process, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
	plain := &model.Benchmark{Name: "container/pipe-plain", Rung: model.Container, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
	cg4 := &model.Benchmark{Name: "container/pipe-cg4", Rung: model.Container, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
	row := func(b *model.Benchmark, nsPerOp uint64, ph []model.ExplainPhase, counts map[string]float64) result.Result {
		return Aggregate(run(b, false, nsPerOp, nil, nil), run(b, true, nsPerOp+400, ph, counts), "host")
	}
	doc := &result.Document{Results: []result.Result{
		row(pipeBench, 2000, phases(300, 10, 400, 0), map[string]float64{"fpu_save": 1, "fpu_restore": 1, "tlb_flush": 0}),
		row(proc, 2100, phases(300, 10, 400, 300), map[string]float64{"fpu_save": 1, "tlb_flush": 1, "tlb_switch_kept": 1}),
		row(plain, 2100, phases(300, 10, 400, 300), map[string]float64{"tlb_flush": 1}),
		row(cg4, 2700, phases(300, 300, 700, 300), map[string]float64{"tlb_flush": 1}),
	}}
	Derive(doc)
	x := doc.Derived.Explain
	if x == nil || len(x.Steps) != 3 { // thread → process, process → container, plain → cg4
		t.Fatalf("steps: %+v", x)
	}
	tp := x.Steps[0]
	if tp.From != "thread/pipe" || tp.To != "process/pipe" || tp.Phases[0].Name != "context switch: switch_mm up to a TLB flush" || tp.Phases[0].DeltaNS != 300 {
		t.Errorf("thread → process: %+v", tp)
	}
	if pc := x.Steps[1]; pc.From != "process/pipe" || pc.To != "container/pipe-plain" || pc.TracedDeltaNS != 0 {
		t.Errorf("process → container: %+v", pc)
	}
	cg := x.Steps[2]
	if cg.To != "container/pipe-cg4" || cg.TracedDeltaNS != 590 || !cg.Resolved {
		t.Errorf("plain → cg4: %+v", cg)
	}
	verdict := map[string]string{}
	for _, c := range x.Claims {
		verdict[c.Claim] = c.Verdict
		if c.Evidence == "" {
			t.Errorf("claim %q has no evidence", c.Claim)
		}
	}
	for claim, want := range map[string]string{
		"Save floating point state":                        "confirmed",
		"TLB may be flushed":                               "refuted",
		"TLB must be flushed (different address space)":    "refuted", // the PCID kept the entries
		"Control group accounting":                         "confirmed",
		"Namespace context switch":                         "not measured",
		"VMCS (Virtual Machine Control Structure) updates": "not measurable here",
	} {
		if verdict[claim] != want {
			t.Errorf("%q: verdict %q, want %q", claim, verdict[claim], want)
		}
	}
	if !strings.Contains(x.Claims[0].Source, "Context Switching Experiment") {
		t.Errorf("claims cite %q", x.Claims[0].Source)
	}
}

// A cause judged by a step whose interval is below 95% or missing gets no
// verdict: with no paired rounds the change's bounds are zeros, which would
// otherwise read as "no change" and refute the cause.
func TestNoVerdictWithoutA95Interval(t *testing.T) {
	plain := &model.Benchmark{Name: "container/pipe-plain", Rung: model.Container, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
	cg4 := &model.Benchmark{Name: "container/pipe-cg4", Rung: model.Container, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
	row := func(b *model.Benchmark, nsPerOp uint64) result.Result {
		r := Aggregate(run(b, false, nsPerOp, nil, nil), run(b, true, nsPerOp+400, phases(300, 10, 400, 300), map[string]float64{"tlb_flush": 1}), "host")
		r.BlockInfo = nil // blocks unknown: no paired interval
		return r
	}
	doc := &result.Document{Results: []result.Result{row(plain, 2100), row(cg4, 2700)}}
	Derive(doc)
	x := doc.Derived.Explain
	if x == nil || len(x.Steps) != 1 || x.Steps[0].Confidence != 0 {
		t.Fatalf("steps: %+v", x)
	}
	for _, c := range x.Claims {
		if c.Claim == "Control group accounting" && c.Verdict != tooFewRounds {
			t.Errorf("%q judged %q from no interval", c.Claim, c.Verdict)
		}
	}
}
