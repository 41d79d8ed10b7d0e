package inplace

import (
	"math"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/result"
)

// window adds one second's worth of a synthetic target to t: n switches
// away (half blocked, half preempted), each path pathNs long in two
// segments, each switch-in woken on the same CPU with a wait of waitNs.
func window(t *phase.InPlaceTarget, n, pathNs, waitNs uint64) {
	t.Counts[phase.CountOutVoluntary] += n / 2
	t.Counts[phase.CountOutInvoluntary] += n - n/2
	t.Counts[phase.CountTimed] += n
	t.Counts[phase.CountIn] += n
	t.Counts[phase.CountInTimed] += n
	t.Counts[phase.CountRunQueueNs+phase.Counter(phase.RunQueueWokenSame)] += n * waitNs
	t.Counts[phase.CountRunQueueN+phase.Counter(phase.RunQueueWokenSame)] += n
	t.RunQueue[phase.RunQueueWokenSame][phase.HistBucket(waitNs)] += n
	t.Cells[phase.SlotSchedEntry][phase.SlotSwitch].Ns += n * pathNs / 2
	t.Cells[phase.SlotSchedEntry][phase.SlotSwitch].Count += n
	t.Cells[phase.SlotSwitch][phase.SlotFPULoad].Ns += n * pathNs / 2
	t.Cells[phase.SlotSwitch][phase.SlotFPULoad].Count += n
	for _, c := range []phase.SwitchClass{phase.ClassVoluntary, phase.ClassWokenSame} {
		t.Classes[c].Count += n / 2
		t.Classes[c].Ns += n / 2 * pathNs
		t.ClassHist[c][phase.HistBucket(pathNs)] += n / 2
	}
	t.Classes[phase.ClassInvoluntary].Count += n - n/2
	t.Classes[phase.ClassInvoluntary].Ns += (n - n/2) * pathNs
	t.ClassHist[phase.ClassInvoluntary][phase.HistBucket(pathNs)] += n - n/2
	t.Classes[phase.ClassResumed].Count += n - n/2
	t.Classes[phase.ClassResumed].Ns += (n - n/2) * pathNs
}

// edges is a target read at one-second edges: per second n switches of
// pathNs, the target on CPU cpuPerS of a CPU, its /proc counting procN per
// second.
func edges(seconds int, n, pathNs uint64, cpuPerS float64, procN uint64) []Edge {
	var out []Edge
	var cur phase.InPlaceTarget
	var proc Counters
	for s := 0; s <= seconds; s++ {
		out = append(out, Edge{AtNs: uint64(s) * 1e9, BPF: cur, Proc: proc})
		window(&cur, n, pathNs, 4000)
		proc.Switches += procN
		proc.CPUNs += uint64(cpuPerS * 1e9)
		proc.RunQueueNs += n * 4000
		proc.Processes, proc.Threads = 1, 2
	}
	return out
}

// The figures are what the readings hold: the rate, the cost per switch,
// the share lost and the wait, each with its interval over the windows,
// the kinds adding up, and the agreement with /proc.
func TestAggregateFigures(t *testing.T) {
	r := Run{Method: "raw tracepoints only", Probes: "light", DurationSeconds: 8, WindowSeconds: 1, Ended: "duration",
		Targets: []Target{{Kind: "pid", Name: "pid 7 (test)", Pid: 7, Edges: edges(8, 50000, 2000, 0.8, 50500)}}}
	a := Aggregate(r)
	if len(a.Targets) != 1 || a.Seconds != 8 {
		t.Fatalf("%d targets, %v s", len(a.Targets), a.Seconds)
	}
	at := a.Targets[0]
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	near("switches_per_s", at.SwitchesPerS.Value, 50000)
	near("switches_per_s median", at.SwitchesPerS.Median, 50000)
	near("ns_per_switch", at.NsPerSwitch.Value, 2000)
	// 50,000 switches of 2 µs a second over 0.8 s of CPU: 12.5%.
	near("share_lost", at.ShareLost.Value, 0.125)
	near("run queue share", at.RunQueue.ShareOfWall.Value, 0.2)
	near("agreement", at.Proc.Agreement, 50000.0/50500)
	near("cpu per s", at.CPUPerS, 0.8)
	if f := at.ShareLost; f.Windows != 8 || f.Low > f.Median || f.High < f.Median || f.Confidence < 0.95 {
		t.Errorf("share lost's interval %+v", f)
	}
	if len(at.Windows) != 8 || at.Windows[3].NsPerSwitch == nil || *at.Windows[3].NsPerSwitch != 2000 {
		t.Errorf("windows %+v", at.Windows)
	}
	var out, in float64
	for _, k := range at.Kinds {
		switch k.Kind {
		case "voluntary", "involuntary":
			out += k.Share
		case "woken_same_cpu", "woken_cross_cpu", "resumed":
			in += k.Share
		}
	}
	near("away shares", out, 1)
	near("in shares", in, 1)
	if len(at.Phases) != 2 || at.Closure != 1 || at.Percentiles == nil || math.Abs(at.Percentiles.P50/2000-1) > 0.125 {
		t.Errorf("phases %+v, closure %v, percentiles %+v", at.Phases, at.Closure, at.Percentiles)
	}
	if len(at.RunQueue.Kinds) != 1 || at.RunQueue.Kinds[0].MeanNs != 4000 {
		t.Errorf("waits %+v", at.RunQueue.Kinds)
	}
	if a.Indirect.Available || !strings.Contains(a.Indirect.Reason, "no hardware performance counters") || a.Indirect.Share != nil {
		t.Errorf("indirect %+v", a.Indirect)
	}
}

// Under a rate limit the direct time of the untimed switches is counted at
// the timed ones' mean: the share lost stays the whole target's.
func TestAggregateScalesASample(t *testing.T) {
	e := edges(4, 10000, 3000, 0.5, 10000)
	for i := range e {
		// Every switch counted, a quarter of them timed.
		b := &e[i].BPF
		timed := b.Counts[phase.CountTimed]
		b.Counts[phase.CountTimed] = timed / 4
		b.Counts[phase.CountUntimed] = timed - timed/4
		for s := range b.Cells {
			for d := range b.Cells[s] {
				b.Cells[s][d].Ns /= 4
				b.Cells[s][d].Count /= 4
			}
		}
	}
	at := Aggregate(Run{Targets: []Target{{Kind: "pid", Edges: e}}}).Targets[0]
	if math.Abs(at.NsPerSwitch.Value-3000) > 1 || math.Abs(at.ShareLost.Value-0.06) > 1e-6 || math.Abs(at.TimedShare-0.25) > 1e-9 {
		t.Errorf("ns per switch %v, share lost %v, timed share %v", at.NsPerSwitch.Value, at.ShareLost.Value, at.TimedShare)
	}
}

// A target that exited, or read in one window only, still gives what was
// seen; one never read gives an empty summary, not a failure.
func TestAggregateShortAndExited(t *testing.T) {
	r := Run{Targets: []Target{
		{Kind: "pid", Name: "a", Edges: edges(1, 100, 1000, 0.1, 100), ExitedAfterNs: 1.5e9},
		{Kind: "pid", Name: "b"},
	}}
	a := Aggregate(r)
	if at := a.Targets[0]; at.ExitedAfterSeconds == nil || *at.ExitedAfterSeconds != 1.5 || at.SwitchesPerS.Value != 100 || at.SwitchesPerS.Windows != 1 {
		t.Errorf("exited target %+v", at)
	}
	if at := a.Targets[1]; at.Switches != 0 || at.Kinds == nil || at.Windows == nil || at.Phases == nil {
		t.Errorf("unread target %+v", at)
	}
}

// The machine's /proc count (ctxt) holds every switch, away from idle too,
// and ctxbench's own: the agreement sets like against like.
func TestAggregateMachineAgreement(t *testing.T) {
	e := edges(2, 1000, 1000, 1, 0)
	for i := range e {
		e[i].BPF.Counts[phase.CountInFromIdle] = uint64(i) * 200
		e[i].Proc.Switches = uint64(i) * (1000 + 200 + 50)
		e[i].Self = uint64(i) * 50
	}
	at := Aggregate(Run{Targets: []Target{{Kind: "all", Edges: e}}}).Targets[0]
	if math.Abs(at.Proc.Agreement-1) > 1e-9 {
		t.Errorf("agreement %v, want 1", at.Proc.Agreement)
	}
}

// The attach's own cost is the programs' run time over the run, per switch
// and as a share of a CPU per window.
func TestAggregateOverhead(t *testing.T) {
	progs := []Programs{
		{AtNs: 0, Cost: []phase.ProgramCost{{Name: "ctxb_in_switch", Runs: 0, RunNs: 0}}},
		{AtNs: 1e9, Cost: []phase.ProgramCost{{Name: "ctxb_in_switch", Runs: 50000, RunNs: 10e6}}},
		{AtNs: 2e9, Cost: []phase.ProgramCost{{Name: "ctxb_in_switch", Runs: 100000, RunNs: 20e6, Missed: 3}}},
	}
	a := Aggregate(Run{Programs: progs, StatsOn: true, Targets: []Target{{Kind: "pid", Edges: edges(2, 50000, 1000, 1, 50000)}}})
	o := a.Overhead
	if len(o.Programs) != 1 || o.Programs[0].NsPerRun != 200 || o.Programs[0].RunsPerS != 50000 || o.Missed != 3 {
		t.Fatalf("overhead %+v", o)
	}
	if math.Abs(o.NsPerSwitch-200) > 1e-9 || math.Abs(o.CPUShare.Value-0.01) > 1e-9 || o.CPUShare.Windows != 2 {
		t.Errorf("ns per switch %v, CPU share %+v", o.NsPerSwitch, o.CPUShare)
	}
}

// The what-if prices the switch rate at the ladder's hops (woken across
// CPUs at the cross-cpu one), and a pool curve's switches per query at
// the target's measured cost per switch.
func TestAggregateWhatIf(t *testing.T) {
	vol, inv := 1.0, 0.0
	cpu := 20000.0
	series := &result.PoolSeries{Server: "postgres", Client: "pgxpool", Placement: "cross-cpu", Points: []result.PoolPoint{{
		Pool: 10, QPS: result.PoolEstimate{Median: 20000},
		PerQuery: result.PoolPerQuery{ServerVoluntary: &vol, ServerInvoluntary: &inv, ServerCPUNs: &cpu}}}}
	r := Run{Ladder: []Ladder{{Name: "thread/pipe", Placement: "same-cpu", OneWayNs: 2500, Sittings: 3}},
		Pool: series, PoolFile: "pools.json",
		Targets: []Target{{Kind: "pid", CgroupDepth: 3, Edges: edges(2, 40000, 2000, 1, 40000)}}}
	w := Aggregate(r).Targets[0].WhatIf
	if w == nil || w.ShareAtLadder == nil || math.Abs(*w.ShareAtLadder-0.1) > 1e-9 {
		t.Fatalf("what-if %+v", w)
	}
	if len(w.Why) != 1 || !strings.Contains(w.Why[0], "3 cgroup levels") {
		t.Errorf("why %v", w.Why)
	}
	if p := w.Pool; p == nil || len(p.Points) != 1 || p.Points[0].ShareLost == nil || math.Abs(*p.Points[0].ShareLost-0.1) > 1e-9 {
		t.Errorf("pool %+v", w.Pool)
	}
	if w := Aggregate(Run{Targets: []Target{{Kind: "pid", Edges: edges(2, 10, 10, 1, 10)}}}).Targets[0].WhatIf; w.ShareAtLadder != nil || w.Note == "" {
		t.Errorf("no ladder: %+v", w)
	}
}

// Syscalls are named per architecture; an unknown number stays a number.
func TestSyscallName(t *testing.T) {
	if SyscallName("amd64", 232) != "epoll_wait" || SyscallName("arm64", 22) != "epoll_pwait" || SyscallName("amd64", 300) != "syscall 300" ||
		!strings.Contains(SyscallName("amd64", phase.InPlaceSyscalls-1), "or above") {
		t.Error("syscall names")
	}
}
