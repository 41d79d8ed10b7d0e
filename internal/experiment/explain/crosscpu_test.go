package explain

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
)

// crossRun is run at cross-cpu: side A on CPU 0, B on CPU 1.
func crossRun(nsPerOp uint64, ps []model.ExplainPhase, counts map[string]float64) result.Result {
	u := run(pipeBench, false, nsPerOp, nil, nil)
	t := run(pipeBench, true, nsPerOp+nsPerOp/2, ps, counts)
	u.Cell.Placement, t.Cell.Placement = model.CrossCPU, model.CrossCPU
	u.Cell.CPUA, t.Cell.CPUA = 0, 0
	return Aggregate(u, t, "host")
}

// A run that explained thread/pipe on one CPU and across two gets a step
// between them, phase by phase by kernel transition, and the four causes
// judged from the cross-CPU phases and counts.
func TestCrossCPUStepAndClaims(t *testing.T) {
	k := func(kinds ...model.PhaseKind) []model.PhaseKind { return kinds }
	same := Aggregate(run(pipeBench, false, 2000, nil, nil),
		run(pipeBench, true, 3000, []model.ExplainPhase{
			{Name: "write(): copy into the pipe", Kinds: k(model.PhaseSyscall), From: "enter-write", To: "waking", NsPerHop: 300, PerHop: 1},
			{Name: "read() returns", Kinds: k(model.PhaseSyscall), From: "sched-exit", To: "exit-read", NsPerHop: 200, PerHop: 1},
			{Name: "pick next task", Kinds: k(model.PhaseSchedule), From: "nr-running-dec", To: "switch", NsPerHop: 500, PerHop: 1},
		}, nil), "host")
	cross := crossRun(7000, []model.ExplainPhase{
		{Name: "write(): up to the wakeup", Kinds: k(model.PhaseSyscall), From: "enter-write", To: "waking", NsPerHop: 450, PerHop: 1, CPU: "waker"},
		{Name: "IPI: flight and the idle CPU's wake-up", Kinds: k(model.PhaseIPIFlight), From: "ipi-send", To: "ipi-in", NsPerHop: 3000, PerHop: 1, CPU: "between"},
		{Name: "IPI: psi, preemption check", Kinds: k(model.PhaseIPI), From: "nr-running-inc", To: "wakeup", NsPerHop: 400, PerHop: 1, CPU: "wakee"},
		{Name: "idle-state exit", Kinds: k(model.PhaseIdleExit), From: "ipi-out", To: "idle-exit", NsPerHop: 300, PerHop: 1, CPU: "wakee"},
		{Name: "schedule(): pick the woken task", Kinds: k(model.PhaseIdleExit), From: "sched-entry", To: "switch-from-idle", NsPerHop: 600, PerHop: 1, CPU: "wakee"},
		{Name: "read() returns", Kinds: k(model.PhaseSyscall), From: "sched-exit", To: "exit-read", NsPerHop: 350, PerHop: 1, CPU: "wakee"},
	}, map[string]float64{"idle_ipis": 0.98, "ipis_sent": 0.99, "idle_enters": 0.97})
	halts := true
	d := &result.Document{Results: []result.Result{same, cross}}
	d.Environment.Virtualization.Guest = true
	d.Environment.Idle.Halts = &halts
	Derive(d)
	x := d.Derived.Explain
	var st *result.ExplainStep
	for i := range x.Steps {
		if strings.HasPrefix(x.Steps[i].What, "same CPU → cross-cpu") {
			st = &x.Steps[i]
		}
	}
	if st == nil {
		t.Fatalf("no cross-CPU step in %+v", x.Steps)
	}
	deltas := map[string]float64{}
	for _, p := range st.Phases {
		deltas[p.Name] = p.DeltaNS
	}
	// The write's and the read's own work line up by transition, whatever
	// each model calls them.
	if deltas["write(): up to the wakeup"] != 150 || deltas["read() returns"] != 150 || deltas["pick next task"] != -500 {
		t.Errorf("deltas %v", deltas)
	}
	verdicts := map[string]string{}
	for _, c := range x.Claims {
		if c.Step == "cross-cpu thread/pipe" {
			verdicts[c.Claim[:12]] = c.Verdict
		}
	}
	want := map[string]string{"the wakeup c": "confirmed", "the wakee's ": "confirmed", "the halted v": "not measurable here", "cache lines ": "confirmed"}
	for k, v := range want {
		if verdicts[k] != v {
			t.Errorf("claim %q: %q, want %q (all: %v)", k, verdicts[k], v, verdicts)
		}
	}
	// Every claim names a rung of the vocabulary (the schema refuses any
	// other); a placement's causes name their step beside it.
	steps := 0
	for _, c := range x.Claims {
		if model.RungIndex(model.Rung(c.Rung)) >= len(model.RungOrder) {
			t.Errorf("claim %q names rung %q", c.Claim, c.Rung)
		}
		if c.Step != "" {
			steps++
		}
	}
	if steps == 0 {
		t.Error("no cross-CPU claim names its step")
	}
	// Same-CPU claims are still judged from the same-CPU row alone.
	for _, c := range x.Claims {
		if c.Rung == "thread" && c.Claim == "Save floating point state" && c.Verdict == "" {
			t.Errorf("same-CPU claim without verdict: %+v", c)
		}
	}
}

// With the wakee's CPU busy on half of the hops, the IPI cause still holds
// (a reschedule IPI reached the busy CPU), and leaving an idle state holds
// in part: the evidence says on how many hops.
func TestCrossCPUClaimsWithABusyCPU(t *testing.T) {
	k := func(kinds ...model.PhaseKind) []model.PhaseKind { return kinds }
	same := Aggregate(run(pipeBench, false, 2000, nil, nil), run(pipeBench, true, 3000, []model.ExplainPhase{
		{Name: "read() returns", Kinds: k(model.PhaseSyscall), From: "sched-exit", To: "exit-read", NsPerHop: 200, PerHop: 1},
	}, nil), "host")
	cross := crossRun(7000, []model.ExplainPhase{
		{Name: "reschedule IPI: flight", Kinds: k(model.PhaseIPIFlight), From: "ipi-send", To: "switch-from-other", NsPerHop: 1500, PerHop: 0.5, CPU: "between"},
		{Name: "IPI: flight", Kinds: k(model.PhaseIPIFlight), From: "ipi-send", To: "ipi-in", NsPerHop: 500, PerHop: 0.5, CPU: "between"},
		{Name: "idle-state exit", Kinds: k(model.PhaseIdleExit), From: "ipi-out", To: "idle-exit", NsPerHop: 150, PerHop: 0.5, CPU: "wakee"},
		{Name: "read() returns", Kinds: k(model.PhaseSyscall), From: "sched-exit", To: "exit-read", NsPerHop: 350, PerHop: 1, CPU: "wakee"},
	}, map[string]float64{"idle_ipis": 0.5, "busy_wakeups": 0.49, "ipis_sent": 1, "idle_enters": 0.5})
	d := &result.Document{Results: []result.Result{same, cross}}
	Derive(d)
	got := map[string]result.ExplainClaim{}
	for _, c := range d.Derived.Explain.Claims {
		got[c.Claim[:12]] = c
	}
	if c := got["the wakeup c"]; c.Verdict != result.VerdictConfirmed || !strings.Contains(c.Evidence, "0.49 reschedule IPIs") {
		t.Errorf("IPI: %q, %s", c.Verdict, c.Evidence)
	}
	if c := got["the wakee's "]; c.Verdict != result.VerdictInPart || !strings.Contains(c.Evidence, "on 0.49 of hops the wakee's CPU was running another task") {
		t.Errorf("idle exit: %q, %s", c.Verdict, c.Evidence)
	}
}
