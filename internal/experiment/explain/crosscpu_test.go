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
	same := Aggregate(run(pipeBench, false, 2000, nil, nil),
		run(pipeBench, true, 3000, []model.ExplainPhase{
			{Name: "write(): copy into the pipe", Probes: "sys_enter, write -> sched_waking", NsPerHop: 300, PerHop: 1},
			{Name: "read() returns", Probes: "sched_exit_tp -> sys_exit, read", NsPerHop: 200, PerHop: 1},
			{Name: "pick next task", Probes: "sched_update_nr_running_tp, change < 0 -> sched_switch, tracked to tracked", NsPerHop: 500, PerHop: 1},
		}, nil), "host")
	cross := crossRun(7000, []model.ExplainPhase{
		{Name: "write(): up to the wakeup", Probes: "sys_enter, write -> sched_waking", NsPerHop: 450, PerHop: 1, CPU: "waker"},
		{Name: "IPI: flight and the idle CPU's wake-up", Probes: "ipi_send_cpu -> …", NsPerHop: 3000, PerHop: 1, CPU: "between"},
		{Name: "IPI: psi, preemption check", Probes: "x -> sched_wakeup", NsPerHop: 400, PerHop: 1, CPU: "wakee"},
		{Name: "idle-state exit", Probes: "ipi out -> cpu_idle exit", NsPerHop: 300, PerHop: 1, CPU: "wakee"},
		{Name: "schedule(): pick the woken task", Probes: "sched_entry_tp -> sched_switch, idle to tracked", NsPerHop: 600, PerHop: 1, CPU: "wakee"},
		{Name: "read() returns", Probes: "sched_exit_tp -> sys_exit, read", NsPerHop: 350, PerHop: 1, CPU: "wakee"},
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
		if c.Rung == "cross-cpu thread/pipe" {
			verdicts[c.Claim[:12]] = c.Verdict
		}
	}
	want := map[string]string{"the wakeup c": "confirmed", "the wakee's ": "confirmed", "the halted v": "not measurable here", "cache lines ": "confirmed"}
	for k, v := range want {
		if verdicts[k] != v {
			t.Errorf("claim %q: %q, want %q (all: %v)", k, verdicts[k], v, verdicts)
		}
	}
	// Same-CPU claims are still judged from the same-CPU row alone.
	for _, c := range x.Claims {
		if c.Rung == "thread" && c.Claim == "Save floating point state" && c.Verdict == "" {
			t.Errorf("same-CPU claim without verdict: %+v", c)
		}
	}
}
