package testdoc

// attach.go: a deterministic ctxbench attach document, built the way the
// command builds one (internal/inplace's aggregation) from synthetic
// readings: a cgroup under load beside a process that exited, the
// machine's ladder figures and a pool curve in the what-if, and the check
// against the known workload.

import (
	"github.com/ctxbench/ctxbench/internal/inplace"
	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/result"
)

// attachWindow adds one second of a synthetic target: n switches away (a
// fifth preempted), each path pathNs long, a third of the switch-ins woken
// from another CPU, every switch-in waiting waitNs.
func attachWindow(t *phase.InPlaceTarget, n, pathNs, waitNs uint64) {
	inv := n / 5
	t.Counts[phase.CountOutVoluntary] += n - inv
	t.Counts[phase.CountOutInvoluntary] += inv
	t.Counts[phase.CountOutToIdle] += n / 50
	t.Counts[phase.CountTimed] += n
	t.Counts[phase.CountIn] += n
	t.Counts[phase.CountInTimed] += n
	t.Counts[phase.CountInFromIdle] += n / 40
	t.Counts[phase.CountMigrated] += n / 30
	t.Counts[phase.CountWakeups] += n - inv
	t.Counts[phase.CountWakeupsBySame] += (n - inv) / 2
	t.Counts[phase.CountWakeRemote] += (n - inv) / 3
	t.Counts[phase.CountWakeNs] += (n - inv) * pathNs / 5
	t.Counts[phase.CountWakeN] += n - inv
	t.Counts[phase.CountPreemptBySame] += inv / 2
	t.Counts[phase.CountPreemptByOther] += inv - inv/2
	cross := (n - inv) / 3
	for _, w := range []struct {
		k phase.RunQueueKind
		n uint64
		f uint64
	}{{phase.RunQueueWokenSame, n - inv - cross, 1}, {phase.RunQueueWokenCross, cross, 3}, {phase.RunQueuePreempted, inv, 5}} {
		t.Counts[phase.CountRunQueueNs+phase.Counter(w.k)] += w.n * waitNs * w.f
		t.Counts[phase.CountRunQueueN+phase.Counter(w.k)] += w.n
		t.RunQueue[w.k][phase.HistBucket(waitNs*w.f)] += w.n
	}
	seg := func(a, b phase.Slot, ns, m uint64) {
		t.Cells[a][b].Ns += ns * m
		t.Cells[a][b].Count += m
	}
	seg(phase.SlotSysEnter, phase.SlotSchedEntry, pathNs/10, n-inv)
	seg(phase.SlotSchedEntry, phase.SlotSwitch, pathNs*3/10, n)
	seg(phase.SlotSwitch, phase.SlotSchedExit, pathNs*2/10, n)
	seg(phase.SlotSchedExit, phase.SlotSysExit, pathNs/10, n-inv)
	seg(phase.SlotSysExit, phase.SlotFPULoad, pathNs/10, n-inv)
	seg(phase.SlotSchedExit, phase.SlotFPULoad, pathNs/10, inv)
	seg(phase.SlotWaking, phase.SlotWakeup, pathNs/5, n-inv)
	for _, c := range []struct {
		c phase.SwitchClass
		n uint64
	}{{phase.ClassVoluntary, n - inv}, {phase.ClassInvoluntary, inv}, {phase.ClassWokenSame, n - inv - cross},
		{phase.ClassWokenCross, cross}, {phase.ClassResumed, inv}} {
		t.Classes[c.c].Count += c.n
		t.Classes[c.c].Ns += c.n * pathNs
		t.ClassHist[c.c][phase.HistBucket(pathNs)] += c.n * 9 / 10
		t.ClassHist[c.c][phase.HistBucket(pathNs*3)] += c.n - c.n*9/10
	}
	t.Blocked[232] += (n - inv) * 2 / 3 // epoll_wait
	t.Blocked[45] += (n - inv) / 3      // recvfrom
}

// attachEdges are a target's readings at one-second edges.
func attachEdges(seconds int, n, pathNs, waitNs uint64, cpu float64, procs int) []inplace.Edge {
	var out []inplace.Edge
	var cur phase.InPlaceTarget
	var proc inplace.Counters
	for s := 0; s <= seconds; s++ {
		out = append(out, inplace.Edge{AtNs: 1e9 + uint64(s)*1e9, BPF: cur, Proc: proc})
		k := n + uint64(s%3)*n/40 // windows differ a little
		attachWindow(&cur, k, pathNs+uint64(s%2)*pathNs/20, waitNs)
		proc.Switches += k
		proc.CPUNs += uint64(cpu * 1e9)
		proc.RunQueueNs += k * waitNs * 2
		proc.Processes, proc.Threads = procs, procs
	}
	return out
}

// Attach is a deterministic attach section: with check, --check's (the
// known workload its one target), else two targets (a cgroup under load
// and a process that exited).
func Attach(check bool) *result.Attach {
	vol, inv, cpu := 1.05, 0.02, 21000.0
	pool := &result.PoolSeries{Server: "postgres", Client: "pgxpool", Placement: "cross-cpu"}
	for _, p := range []struct {
		n   int
		qps float64
	}{{4, 24000}, {16, 25500}, {64, 24800}} {
		pool.Points = append(pool.Points, result.PoolPoint{Pool: p.n, QPS: result.PoolEstimate{Median: p.qps},
			PerQuery: result.PoolPerQuery{ServerVoluntary: &vol, ServerInvoluntary: &inv, ServerCPUNs: &cpu}})
	}
	var progs []inplace.Programs
	for s := 0; s <= 10; s++ {
		progs = append(progs, inplace.Programs{AtNs: 1e9 + uint64(s)*1e9, Cost: []phase.ProgramCost{
			{Name: "ctxb_in_sched_entry", Runs: uint64(s) * 16000, RunNs: uint64(s) * 16000 * 110},
			{Name: "ctxb_in_switch", Runs: uint64(s) * 16100, RunNs: uint64(s) * 16100 * (205 + uint64(s%2)*10)},
			{Name: "ctxb_in_waking", Runs: uint64(s) * 12900, RunNs: uint64(s) * 12900 * 160}}})
	}
	exited := attachEdges(4, 300, 9000, 20000, 0.05, 1)
	r := inplace.Run{Method: "raw tracepoints only", Probes: "full", DurationSeconds: 10, WindowSeconds: 1, RateLimit: 100000,
		Ended: "duration", Programs: progs, StatsOn: true, Arch: "amd64", HWNote: "hardware events: no PMU exposed",
		ProbeStatus: []result.AttachProbe{{Tracepoint: "sched_switch", Attached: true}, {Tracepoint: "sched_entry_tp", Attached: true},
			{Tracepoint: "x86_fpu_regs_activated", Attached: true}, {Tracepoint: "sys_enter", Attached: true}},
		Ladder: []inplace.Ladder{{Name: "thread/pipe", Placement: "same-cpu", OneWayNs: 2580, Sittings: 7, At: "2026-11-27T01:47:00Z"},
			{Name: "thread/pipe", Placement: "cross-cpu", OneWayNs: 17200, Sittings: 7, At: "2026-11-27T01:47:00Z"}},
		Pool: pool, PoolFile: "pools.json",
		Targets: []inplace.Target{
			{Kind: "cgroup", Name: "cgroup /ctxbench-pgdemo", Cgroup: "/sys/fs/cgroup/cpu/ctxbench-pgdemo", CgroupDepth: 1,
				Edges: attachEdges(10, 16000, 6000, 12000, 0.46, 9), ProcMethod: "/proc/<pid>/task/<tid>/status; schedstat",
				Preempters: []phase.Preempter{{TGID: 4242, Comm: "pgbench", N: 5000}, {TGID: 15, Comm: "rcu_preempt", N: 70}}},
			{Kind: "pid", Name: "pid 4321 (worker)", Pid: 4321, CgroupDepth: 0, Edges: exited, ExitedAfterNs: 4500000000,
				ProcMethod: "/proc/<pid>/task/<tid>/status; schedstat"},
		},
		Notes: []string{"pid 4321 (worker) exited after 4.5 s: the window it exited in is left out (its own counters went with it); the figures are what was seen before"},
	}
	if check {
		r.Targets = []inplace.Target{{Kind: "pid", Name: "pid 977 (ctxbench's known workload: 50000 pipe hops/s on CPU 1)", Pid: 977,
			Edges: attachEdges(5, 50000, 2450, 1100, 0.96, 1), ProcMethod: "/proc/<pid>/task/<tid>/status; schedstat"}}
		r.Probes, r.Notes, r.Pool, r.PoolFile, r.DurationSeconds = "light", nil, nil, "", 5
		r.Programs = r.Programs[:6]
	}
	a := inplace.Aggregate(r)
	if !check {
		return a
	}
	a.Check = &result.AttachCheck{HopsPerS: 50000, AchievedPerS: 49998, CPU: 1, Rounds: 6,
		LadderOneWayNs:    result.Interval{Median: 2544, Low: 2507, High: 2639, Confidence: 0.95, Rounds: 6},
		LadderTracedNs:    result.Interval{Median: 3514, Low: 3460, High: 3611, Confidence: 0.95, Rounds: 6},
		LadderNsPerSwitch: result.Interval{Median: 2301, Low: 2268, High: 2341, Confidence: 0.95, Rounds: 6},
		RatioToTracedHop:  0.70, RatioToLadderSwitch: 1.07,
		ThroughputCost: result.Interval{Median: 0.051, Low: 0.021, High: 0.083, Confidence: 0.969, Rounds: 6}, WorkPerS: 9.07e6}
	return a
}
