package explain

import (
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
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

// pipePhases are four phases of the pipe model, as a worker sends them:
// label, kind, the events that bound them.
var pipePhases = []model.ExplainPhase{
	{Name: "write(): copy into the pipe", Kinds: []model.PhaseKind{model.PhaseSyscall}, From: "enter-write", To: "waking"},
	{Name: "wakeup: enqueue up the cgroup hierarchy", Kinds: []model.PhaseKind{model.PhaseWakeup}, From: "fair-begin", To: "nr-running-inc"},
	{Name: "pick next task", Kinds: []model.PhaseKind{model.PhaseSchedule}, From: "nr-running-dec", To: "switch"},
	{Name: "context switch: switch_mm up to a TLB flush", Kinds: []model.PhaseKind{model.PhaseSwitchMM}, From: "switch", To: "tlb-flush"},
}

func phases(ns ...float64) []model.ExplainPhase {
	var out []model.ExplainPhase
	for i, v := range ns {
		p := pipePhases[i]
		p.NsPerHop, p.PerHop, p.Probes = v, 1, "a -> b"
		out = append(out, p)
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

// The pipe ping-pongs of the ladder's steps, beside pipeBench.
var (
	procBench  = &model.Benchmark{Name: "process/pipe", Rung: model.Process, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
	plainBench = &model.Benchmark{Name: "container/pipe-plain", Rung: model.Container, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
	cg4Bench   = &model.Benchmark{Name: "container/pipe-cg4", Rung: model.Container, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true, Phases: "pipe"}
)

// stepsDoc is four explained rows: thread and process pipes, a plain
// container and one at cgroup depth 4.
func stepsDoc() *result.Document {
	row := func(b *model.Benchmark, nsPerOp uint64, ph []model.ExplainPhase, counts map[string]float64) result.Result {
		return Aggregate(run(b, false, nsPerOp, nil, nil), run(b, true, nsPerOp+400, ph, counts), "host")
	}
	return &result.Document{Results: []result.Result{
		row(pipeBench, 2000, phases(300, 10, 400, 0), map[string]float64{"fpu_save": 1, "fpu_restore": 1, "tlb_flush": 0}),
		row(procBench, 2100, phases(300, 10, 400, 300), map[string]float64{"fpu_save": 1, "tlb_flush": 1, "tlb_switch_kept": 1}),
		row(plainBench, 2100, phases(300, 10, 400, 300), map[string]float64{"tlb_flush": 1}),
		row(cg4Bench, 2700, phases(300, 300, 700, 300), map[string]float64{"tlb_flush": 1}),
	}}
}

// The steps are attributed phase by phase, largest change first, and each
// claim gets the verdict its evidence supports.
func TestDeriveStepsAndVerdicts(t *testing.T) {
	doc := stepsDoc()
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
		"TLB must be flushed (different address space)":    "refuted",   // the PCID kept the entries
		"Page table switch":                                "confirmed", // counted: one address-space switch per hop
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
	row := func(b *model.Benchmark, nsPerOp uint64) result.Result {
		r := Aggregate(run(b, false, nsPerOp, nil, nil), run(b, true, nsPerOp+400, phases(300, 10, 400, 300), map[string]float64{"tlb_flush": 1}), "host")
		r.BlockInfo = nil // blocks unknown: no paired interval
		return r
	}
	doc := &result.Document{Results: []result.Result{row(plainBench, 2100), row(cg4Bench, 2700)}}
	Derive(doc)
	x := doc.Derived.Explain
	if x == nil || len(x.Steps) != 1 || x.Steps[0].Confidence != 0 {
		t.Fatalf("steps: %+v", x)
	}
	for _, c := range x.Claims {
		if c.Claim == "Control group accounting" && c.Verdict != result.VerdictTooFewRounds {
			t.Errorf("%q judged %q from no interval", c.Claim, c.Verdict)
		}
	}
}

// relabel renames every phase of every row, differently in each row (so
// no name can match across rows), and drops what they say: what a label
// rewording could do at worst.
func relabel(d *result.Document) {
	for i := range d.Results {
		e := d.Results[i].Explain
		if e == nil {
			continue
		}
		for _, ps := range [][]result.ExplainPhase{e.Phases, e.Parallel, e.Unexplained} {
			for j := range ps {
				ps[j].Name = fmt.Sprintf("row %d phase %d", i, j)
				ps[j].What, ps[j].Probes = "", ""
			}
		}
	}
}

// verdicts are a derivation's claims' verdicts and its steps' changes,
// with no label in them.
func verdicts(d *result.Document) []string {
	var out []string
	for _, c := range d.Derived.Explain.Claims {
		out = append(out, claimWhat(c)+" "+c.Claim+": "+c.Verdict)
	}
	for _, s := range d.Derived.Explain.Steps {
		out = append(out, fmt.Sprintf("%s: %+.6f [%+.6f, %+.6f], traced %+.3f ns", s.What, s.Change, s.ChangeLow, s.ChangeHigh, s.TracedDeltaNS))
		for _, p := range s.Phases {
			out = append(out, fmt.Sprintf("  %v %+.3f", p.Kinds, p.DeltaNS))
		}
	}
	return out
}

// sameVerdictsRelabelled derives d, relabels every phase, derives again,
// and fails if any verdict, step or phase change moved.
func sameVerdictsRelabelled(t *testing.T, what string, d *result.Document) {
	t.Helper()
	d.Derived = nil
	Derive(d)
	if d.Derived == nil || d.Derived.Explain == nil || len(d.Derived.Explain.Claims) == 0 {
		t.Fatalf("%s: nothing derived", what)
	}
	before := verdicts(d)
	relabel(d)
	d.Derived = nil
	Derive(d)
	after := verdicts(d)
	if strings.Join(before, "\n") != strings.Join(after, "\n") {
		t.Errorf("%s: relabelled phases changed the verdicts:\nbefore:\n%s\nafter:\n%s", what, strings.Join(before, "\n"), strings.Join(after, "\n"))
	}
}

// Verdicts select phases by kind, side and the events that bound them:
// renaming every phase changes none.
func TestVerdictsIgnoreLabels(t *testing.T) {
	sameVerdictsRelabelled(t, "four rows", stepsDoc())
}

// A row traced with the light probe set counted no FPU save or TLB flush:
// the claims that rest on those counts are not measured, not refuted.
func TestLightProbesJudgeNoSwitchClaim(t *testing.T) {
	light := func(b *model.Benchmark) result.Result {
		tr := run(b, true, 2400, phases(300, 10, 400), nil)
		tr.Cell.Probes = model.ProbesLight
		return Aggregate(run(b, false, 2000, nil, nil), tr, "host")
	}
	d := &result.Document{Results: []result.Result{light(pipeBench), light(procBench)}}
	Derive(d)
	for _, c := range d.Derived.Explain.Claims {
		switch c.Claim {
		case "Save floating point state", "TLB must be flushed (different address space)", "Page table switch":
			if c.Verdict != result.VerdictNotMeasured || !strings.Contains(c.Evidence, "light probe set") {
				t.Errorf("%q from the light set: %q, %s", c.Claim, c.Verdict, c.Evidence)
			}
		}
	}
}

// A dry run's figures are synthetic: no step, no claim, no verdict.
func TestDryRunDerivesNothing(t *testing.T) {
	d := &result.Document{Results: []result.Result{
		Aggregate(run(pipeBench, false, 2000, nil, nil), run(pipeBench, true, 2400, phases(300, 10, 400, 0), nil), "host"),
		Aggregate(run(procBench, false, 2100, nil, nil), run(procBench, true, 2500, phases(300, 10, 400, 300), nil), "host"),
	}}
	d.Settings.DryRun = true
	Derive(d)
	if d.Derived != nil {
		t.Errorf("a dry run derived %+v", d.Derived.Explain)
	}
}

// The placement is ok only when the sides that ran were seen, and only on
// their CPUs; a side seen elsewhere is flagged; a side that does nothing
// (a one-sided benchmark) has nothing to see.
func TestPlacementIsChecked(t *testing.T) {
	cases := []struct {
		name         string
		seenA, seenB uint64
		ok, flagged  bool
		noB          bool // the benchmark has one side: B does nothing
	}{
		{"seen on its CPU", 1 << 1, 1 << 1, true, false, false},
		{"side B elsewhere", 1 << 1, 1<<1 | 1<<0, false, true, false},
		{"never seen", 0, 1 << 1, false, false, false},
		{"one side, seen", 1 << 1, 0, true, false, true},
	}
	for _, c := range cases {
		u, tr := run(pipeBench, false, 2000, nil, nil), run(pipeBench, true, 2400, phases(300), nil)
		for _, r := range []*schedule.CellRun{&u, &tr} {
			r.Cell.CPUSetA, r.Cell.CPUSetB = []int{1}, []int{1}
			for i := range r.Blocks {
				r.Blocks[i].Resp.A.CPUsSeen, r.Blocks[i].Resp.B.CPUsSeen = c.seenA, c.seenB
				if c.noB {
					r.Blocks[i].Resp.B = model.Counts{}
				}
			}
		}
		res := Aggregate(u, tr, "host")
		flagged := slices.ContainsFunc(res.Flags, func(f result.Flag) bool { return f.Code == "placement" })
		if res.Placed.OK != c.ok || flagged != c.flagged {
			t.Errorf("%s: ok %v (want %v), flagged %v (want %v): %+v %+v", c.name, res.Placed.OK, c.ok, flagged, c.flagged, res.Placed, res.Flags)
		}
		if !c.ok && !c.flagged && !strings.Contains(res.Placed.Note, "not verified") {
			t.Errorf("%s: note %q does not say the placement is unverified", c.name, res.Placed.Note)
		}
	}
}

// recorded reads a recorded explain document (testdata/README.md).
func recorded(t *testing.T, name string) *result.Document {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(z)
	if err != nil {
		t.Fatal(err)
	}
	d, err := result.Decode(b)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return d
}

// The verdicts of real runs: derived again from a recorded document they
// are the ones it recorded, and with every phase renamed (differently in
// every row) they are still the same.
func TestRecordedVerdictsIgnoreLabels(t *testing.T) {
	for _, name := range []string{"same-cpu-ladder.json.gz", "cross-cpu-busy.json.gz"} {
		d := recorded(t, name)
		var want []string
		for _, c := range d.Derived.Explain.Claims {
			want = append(want, claimWhat(c)+" "+c.Claim+": "+c.Verdict)
		}
		d.Derived = nil
		Derive(d)
		var got []string
		for _, c := range d.Derived.Explain.Claims {
			got = append(got, claimWhat(c)+" "+c.Claim+": "+c.Verdict)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: derived again, the verdicts are\n%s\nrecorded\n%s", name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		sameVerdictsRelabelled(t, name, d)
	}
}

// The capture cell's hops and what the capture cost against the traced
// cell, paired by round: a capture cell 10% slower costs +10%.
func TestAggregateCapture(t *testing.T) {
	tr := run(pipeBench, true, 2400, phases(300, 200, 400, 300), nil)
	k := run(pipeBench, true, 2640, phases(300, 200, 400, 300), nil)
	for i := range k.Blocks {
		k.Blocks[i].Resp.Capture = &model.Capture{Method: "ring buffer", MedianNs: 1000, CaptureNsPerHop: 40,
			Counts: model.CaptureCounts{Hops: 1000, Past: 10, Copied: 10, Kept: 2, NotKept: 8},
			Slow: []model.CapturedHop{{Ns: 9000, Slow: true, Phases: []model.HopPhase{{Name: "another task ran: x", Cause: model.CauseOtherTask,
				Task: &model.Task{Comm: "x", PID: 9}, Ns: 8000}, {Name: "w", Cause: model.CauseWork, From: "a", To: "b", Ns: 1000}}}},
			Typical: []model.CapturedHop{{Ns: 1000, Phases: []model.HopPhase{{Name: "w", Cause: model.CauseWork, From: "a", To: "b", Ns: 1000}}}}}
	}
	c := AggregateCapture(model.Threshold{AboveNs: 5000}, tr, k)
	if c == nil || c.Cost == nil || c.Blocks != 6 || c.Threshold != "5µs" {
		t.Fatalf("capture %+v", c)
	}
	if math.Abs(c.Cost.Change-0.1) > 0.01 || !(c.Cost.Low <= c.Cost.Change && c.Cost.Change <= c.Cost.High) || c.Cost.KernelNSPerHop != 40 {
		t.Errorf("cost %+v, want +10%% with its interval", c.Cost)
	}
	if c.ExcessNS.NS != 8000 || len(c.Slowest) == 0 || c.Slowest[0].Main == nil || c.Slowest[0].Main.Task.Comm != "x" {
		t.Errorf("excess %+v, slowest %+v", c.ExcessNS, c.Slowest)
	}
}

// claimWhat is what a claim is of: its step where it names one, else its
// rung (files written before steps were named held the step in rung).
func claimWhat(c result.ExplainClaim) string {
	if c.Step != "" {
		return c.Step
	}
	return c.Rung
}
