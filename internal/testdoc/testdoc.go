// Package testdoc builds deterministic result documents for tests and golden
// files: the ladder part through the real pipeline (schedule.Run with
// schedule.FakeExecutor and the ladder's own aggregation and derived
// figures, so verification, labels and multiples are the shipped code), on
// a fixed fake environment, with fixed timestamps.
//
// The ring, creation, memory, pool and replication sections are synthetic
// numbers with a plausible shape, made here so that every chart of the
// report has something to draw. Every document is marked as a dry run.
// Nothing in this package measures anything.
package testdoc

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Host is the host line of the fake environment, as labels carry it.
const Host = "Test CPU 9000, 2 CPUs; virtual machine guest, hypervisor KVM; Linux 6.1.0-test"

// LadderCells are the benchmarks and placements of the fake ladder.
var LadderCells = []struct {
	Name       string
	Placements []model.Placement
}{
	{"floor/asm-swap", []model.Placement{model.SameCPU}},
	{"goroutine/chan-gomaxprocs1", []model.Placement{model.SameCPU}},
	{"goroutine/chan-gomaxprocsN", []model.Placement{model.CrossCPU}},
	{"thread/pipe", []model.Placement{model.SameCPU, model.CrossCPU, model.Unpinned}},
	{"thread/futex", []model.Placement{model.SameCPU, model.CrossCPU}},
	{"process/pipe", []model.Placement{model.SameCPU, model.CrossCPU}},
	{"reference/syscall", []model.Placement{model.SameCPU}},
}

// Options shape a fake document.
type Options struct {
	Seed int64 // FakeExecutor seed: another seed is another draw
	Runs int   // samples per cell (default 20)
	// Scale multiplies every ladder sample (2 doubles every figure).
	Scale float64
	// Redraw, when non-zero, replaces every ladder sample by a new draw
	// (seeded by Redraw) from a distribution fixed by Seed: documents with
	// one Seed and different Redraws are two draws of the same thing.
	Redraw int64
	// Only keeps these placements (nil: all of LadderCells).
	Only []model.Placement
	// Experiments adds the synthetic ring, creation, memory, pool and
	// replication sections.
	Experiments bool
	// Capture explains thread/pipe at its placements with captured slow
	// hops (synthetic: Capture).
	Capture bool
}

// Environment is the fixed fake machine.
func Environment() result.Environment {
	return result.Environment{
		Hostname: "testhost", OS: "linux", Arch: "amd64", Kernel: "6.1.0-test", KernelBuild: "#1 SMP test",
		Cmdline: "quiet mitigations=auto",
		CPU: result.CPUInfo{
			Model: "Test CPU 9000", Vendor: "GenuineTest", Family: 6, ModelID: 1, Stepping: 1, Microcode: "0x1",
			Logical: 2, Online: "0-1", Allowed: []int{0, 1}, ThreadsPerCore: 1,
			TSC: result.TSCInfo{Constant: true, Nonstop: true, Usable: true, HzMeasured: 2.6e9},
			Caches: []result.Cache{
				{Level: 1, Type: "Data", SizeBytes: 48 << 10, SharedWith: "0"},
				{Level: 1, Type: "Instruction", SizeBytes: 32 << 10, SharedWith: "0"},
				{Level: 2, Type: "Unified", SizeBytes: 1 << 20, SharedWith: "0"},
				{Level: 3, Type: "Unified", SizeBytes: 32 << 20, SharedWith: "0-1"},
			},
		},
		Virtualization: result.Virtualization{Guest: true, HypervisorVendor: "KVMKVMKVM",
			KVM: result.KVMInfo{Device: true, Usable: true, Backend: "vmx"}, Label: "virtual machine guest, hypervisor KVM"},
		Clocksource: "tsc",
		Mitigations: map[string]string{"meltdown": "Not affected", "spectre_v2": "Mitigation: Retpolines", "retbleed": "Mitigation: untrained return thunk"},
		Cgroup:      result.CgroupInfo{Version: "v2", CPUController: "/sys/fs/cgroup", V2Controllers: []string{"cpu", "memory"}, Own: "/", Depth: 0},
		Scheduler:   result.SchedInfo{Policy: "SCHED_OTHER"},
		Idle:        result.IdleInfo{Driver: "haltpoll", Governor: "haltpoll", States: []string{"POLL", "haltpoll"}},
		Perf:        result.PerfInfo{Paranoid: 2, Software: true, Hardware: false, Reason: "no PMU in this guest"},
		Load:        result.LoadInfo{Load1: 0.1, Load5: 0.2, Runnable: 1, Procs: 120},
		Steal:       result.StealInfo{Percent: 0.4, BusyPercent: 51, Seconds: 12},
		Warnings: []result.Warning{
			{Code: "virtualized", Message: "this is a virtual machine: every figure includes the hypervisor's share", Fix: "compare only figures from one sitting on one machine"},
		},
	}
}

// Doc builds a fake document. It fails only when a benchmark of
// LadderCells is no longer registered.
func Doc(o Options) (*result.Document, error) {
	if o.Runs == 0 {
		o.Runs = 20
	}
	if o.Scale == 0 {
		o.Scale = 1
	}
	var cells []schedule.Cell
	for _, lc := range LadderCells {
		b := catalog.Lookup(lc.Name)
		if b == nil {
			return nil, fmt.Errorf("testdoc: benchmark %s is not registered", lc.Name)
		}
		if b.Name == "floor/asm-swap" {
			// The fake machine is x86-64 (Environment): its floor is the
			// x86-64 swap, whatever this test binary's architecture.
			x86 := *b
			x86.Description, x86.Mechanism = catalog.SwapWords("amd64")
			b = &x86
		}
		for _, p := range lc.Placements {
			if o.Only != nil && !contains(o.Only, p) {
				continue
			}
			cells = append(cells, cell(b, p))
		}
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	set := result.Settings{Preset: "custom", Runs: o.Runs, SamplesPerBlock: 2, Warmup: 1, MinTimeNS: 2e6,
		CPUs: []int{0, 1}, Seed: o.Seed, DryRun: true}
	outcomes, err := schedule.Run(context.Background(), schedule.Runner{Executor: schedule.FakeExecutor{Seed: o.Seed}, Seed: o.Seed, DryRun: true},
		cells, schedule.Options{Runs: o.Runs, SamplesPerBlock: set.SamplesPerBlock, Warmup: set.Warmup, MinTime: 2 * time.Millisecond, PerfCheck: true})
	if err != nil {
		return nil, err
	}
	env := Environment()
	doc := &result.Document{
		SchemaVersion: result.SchemaVersion,
		Tool:          result.Tool{Name: "ctxbench", Version: "test", GoVersion: "go1.test", CC: "gcc test", Cgo: true},
		Command:       []string{"ctxbench", "run", "--dry-run", fmt.Sprintf("--seed=%d", o.Seed)},
		StartedAt:     start, FinishedAt: start.Add(42 * time.Second),
		Settings: set, Environment: env, Results: []result.Result{},
		Warnings: append([]result.Warning{}, env.Warnings...),
	}
	for _, oc := range outcomes {
		if oc.Err != nil {
			doc.Failures = append(doc.Failures, result.Failure{Name: oc.Cell.Bench.Name, Placement: string(oc.Cell.Placement), Error: oc.Err.Error()})
			continue
		}
		r := ladder.Aggregate(oc, Host)
		if o.Redraw != 0 {
			rng := rand.New(rand.NewSource(o.Redraw + int64(len(doc.Results))))
			m := r.OneWayNS.Median
			for i := range r.Samples {
				r.Samples[i] = m * (0.975 + 0.05*rng.Float64())
			}
			r.OneWayNS.Summary = stats.SummarizeBlocks(r.Samples, result.BlockSizes(r.BlockInfo))
		}
		if o.Scale != 1 {
			r.Samples = stats.Scale(r.Samples, o.Scale)
			r.OneWayNS.Summary = stats.SummarizeBlocks(r.Samples, result.BlockSizes(r.BlockInfo))
			if r.OneWayCycles != nil {
				c := *r.OneWayCycles
				c.Median *= o.Scale
				r.OneWayCycles = &c
			}
		}
		doc.Results = append(doc.Results, r)
	}
	doc.Derived = ladder.Derive(doc.Results)
	doc.Skipped = []result.Failure{{Name: "vm/kvm-exit", Placement: "same-cpu", Error: "/dev/kvm is absent (fake)"}}
	if o.Experiments {
		addExperiments(doc, o.Seed)
	}
	if o.Capture {
		for i := range doc.Results {
			r := &doc.Results[i]
			if r.Name != "thread/pipe" {
				continue
			}
			cross := r.Placement == string(model.CrossCPU)
			r.Explain = &result.Explain{Method: "raw tracepoints only", Model: "pipe hop", Blocks: 10, TracedOneWayNS: 6100, UntracedOneWayNS: 3400,
				TracedMeanNS: 6500, UntracedMeanNS: 3500, ProbeCost: 0.79, ProbeCostLow: 0.7, ProbeCostHigh: 0.9, ProbeCostConfidence: 0.951, Closure: 0.99,
				Phases: []result.ExplainPhase{{Name: "write(): copy into the pipe", Kinds: []model.PhaseKind{model.PhaseSyscall}, From: "enter-write", To: "waking", NsPerHop: 3000, PerHop: 1},
					{Name: "pick next task", Kinds: []model.PhaseKind{model.PhaseSchedule}, From: "nr-running-dec", To: "switch", NsPerHop: 3400, PerHop: 1}},
				Capture: Capture(cross)}
		}
	}
	return doc, nil
}

// Capture is a synthetic cell's captured hops: a slow hop that waited
// behind another task (and, across CPUs, an IPI's flight) beside a typical
// one, as ctxbench explain --capture-above p99 would keep them.
func Capture(cross bool) *result.Capture {
	waker, wakee := 1, 1
	if cross {
		waker, wakee = 0, 1
	}
	side := func(s string) string {
		if cross {
			return s
		}
		return ""
	}
	own := func(name, from, to string, kind model.PhaseKind, sd string, ns float64) model.HopPhase {
		return model.HopPhase{Name: name, Cause: model.CauseWork, Kinds: []model.PhaseKind{kind}, From: from, To: to, CPU: side(sd), Ns: ns, Count: 1}
	}
	typical := model.CapturedHop{Ns: 4200, WakerCPU: waker, WakeeCPU: wakee, WakerPID: 1001, WakeePID: 1002, Closure: 1, Round: 2,
		Phases: []model.HopPhase{
			own("write(): copy into the pipe", "enter-write", "waking", model.PhaseSyscall, "waker", 600),
			own("wakeup: select CPU, lock runqueue", "waking", "fair-begin", model.PhaseWakeup, "waker", 700),
			own("schedule(): pick next", "sched-entry", "switch", model.PhaseSchedule, "wakee", 1700),
			own("read() returns", "sched-exit", "exit-read", model.PhaseSyscall, "wakee", 1200),
		}}
	typical.Pieces = []model.HopPiece{{CPU: waker, AtNs: 0, Ns: 600, Phase: 0}, {CPU: waker, AtNs: 600, Ns: 700, Phase: 1},
		{CPU: wakee, AtNs: 1300, Ns: 1700, Phase: 2}, {CPU: wakee, AtNs: 3000, Ns: 1200, Phase: 3}}
	other := &model.Task{Comm: "kworker/1:1", PID: 77}
	slow := model.CapturedHop{Ns: 214000, Slow: true, WakerCPU: waker, WakeeCPU: wakee, WakerPID: 1001, WakeePID: 1002, ThresholdNs: 9000, Closure: 0.99, Round: 4,
		ExcessNs: 209800, Main: &model.HopMain{Name: "another task ran: kworker/1:1", Cause: model.CauseOtherTask, Task: other, Ns: 200000, Share: 0.95},
		Phases: []model.HopPhase{
			own("write(): copy into the pipe", "enter-write", "waking", model.PhaseSyscall, "waker", 650),
			own("wakeup: select CPU, lock runqueue", "waking", "fair-begin", model.PhaseWakeup, "waker", 750),
			{Name: "another task ran: kworker/1:1", Cause: model.CauseOtherTask, CPU: side("wakee"), Task: other, Ns: 200000, Count: 1},
			{Name: "interrupts: timer", Cause: model.CauseInterrupts, Kinds: []model.PhaseKind{model.PhaseInterrupts}, CPU: side("wakee"), Ns: 8000, Count: 1},
			own("schedule(): pick next", "sched-entry", "switch", model.PhaseSchedule, "wakee", 2200),
			{Name: "not attributed: fpu-save -> fair-begin", Cause: model.CauseUnattributed, From: "fpu-save", To: "fair-begin", CPU: side("wakee"), Ns: 2100, Count: 1},
			own("read() returns", "sched-exit", "exit-read", model.PhaseSyscall, "wakee", 300),
		}}
	slow.Pieces = []model.HopPiece{{CPU: waker, AtNs: 0, Ns: 650, Phase: 0}, {CPU: waker, AtNs: 650, Ns: 750, Phase: 1},
		{CPU: wakee, AtNs: 1400, Ns: 120000, Phase: 2}, {CPU: wakee, AtNs: 121400, Ns: 8000, Phase: 3}, {CPU: wakee, AtNs: 129400, Ns: 80000, Phase: 2},
		{CPU: wakee, AtNs: 209400, Ns: 2200, Phase: 4}, {CPU: wakee, AtNs: 211600, Ns: 2100, Phase: 5}, {CPU: wakee, AtNs: 213700, Ns: 300, Phase: 6}}
	d := func(ns, lo, hi float64) result.Difference {
		return result.Difference{NS: ns, Low: lo, High: hi, Confidence: 0.951, Blocks: 10}
	}
	c := &result.Capture{Threshold: "p99", Quantile: 0.99, Method: "ring buffer", Blocks: 10,
		Counts:   model.CaptureCounts{Hops: 120000, Warmup: 6000, Past: 1180, Copied: 1180, Kept: 160, NotKept: 1020, Sampled: 2560, Typical: 160},
		HopNS:    result.CapturePercentiles{P50: 4200, P90: 5100, P99: 9200, P99_9: 61000},
		MedianNS: 4210,
		Cost: &result.CaptureCost{Change: 0.121, Low: 0.104, High: 0.133, Confidence: 0.951, KernelNSPerHop: 52, Rounds: 10,
			NSPerHop: &result.Interval{Median: 576, Low: 497, High: 633, Confidence: 0.979, Rounds: 10}},
		Slowest:  []result.CapturedHop{slow},
		Typical:  []result.CapturedHop{typical},
		ExcessNS: d(38000, 21000, 52000),
		Phases: []result.CapturePhase{
			{Name: "another task ran: kworker/1:1", Cause: model.CauseOtherTask, CPU: side("wakee"), Tasks: []model.Task{*other}, SlowNS: 31000, TypicalNS: 0, Delta: d(31000, 18000, 44000), Share: 0.82},
			{Name: "interrupts: timer", Cause: model.CauseInterrupts, Kinds: []model.PhaseKind{model.PhaseInterrupts}, CPU: side("wakee"), SlowNS: 2900, TypicalNS: 0, Delta: d(2900, 600, 4800), Share: 0.08},
			{Name: "schedule(): pick next", Cause: model.CauseWork, Kinds: []model.PhaseKind{model.PhaseSchedule}, From: "sched-entry", To: "switch", CPU: side("wakee"), SlowNS: 2100, TypicalNS: 1700, Delta: d(400, -200, 1100), Share: 0.01},
		},
		Causes: []result.CaptureCause{
			{Cause: model.CauseWork, SlowNS: 5200, TypicalNS: 4200, Delta: d(1000, 100, 2100), Share: 0.03},
			{Cause: model.CauseOtherTask, Tasks: []model.Task{*other}, SlowNS: 31000, TypicalNS: 0, Delta: d(31000, 18000, 44000), Share: 0.82},
			{Cause: model.CauseInterrupts, SlowNS: 2900, TypicalNS: 0, Delta: d(2900, 600, 4800), Share: 0.08},
		},
		Notes: []string{"6000 hops fell in the relative threshold's warm-up (its first hops on each CPU of each block) and were not judged"},
	}
	return c
}

func contains(ps []model.Placement, p model.Placement) bool {
	for _, x := range ps {
		if x == p {
			return true
		}
	}
	return false
}

// cell places b the way the runner's planner does on CPUs 0 and 1, without
// asking whether this machine could run it (the executor is fake).
func cell(b *model.Benchmark, p model.Placement) schedule.Cell {
	c := schedule.Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}
	switch p {
	case model.SameCPU:
		c.CPUA, c.CPUB, c.Affinity = 1, 1, []int{1}
		c.CPUSetA, c.CPUSetB = []int{1}, []int{1}
	case model.CrossCPU:
		c.CPUA, c.CPUB, c.Affinity = 0, 1, []int{0, 1}
		c.CPUSetA, c.CPUSetB = []int{0}, []int{1}
		if b.Rung == model.Goroutine {
			c.CPUA, c.CPUB = -1, -1
			c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
		}
	default:
		c.Affinity = []int{0, 1}
		c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
	}
	return c
}

// draw returns n samples around m with a few percent of noise.
func draw(rng *rand.Rand, m float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = m * (0.97 + 0.08*rng.Float64())
	}
	return out
}

func addExperiments(doc *result.Document, seed int64) {
	rng := rand.New(rand.NewSource(seed + 7))
	one := 1.0
	// Rings: a base cost per kind, growing once N × working set leaves L2
	// and again past L3 (the shape lat_ctx shows).
	base := map[string]float64{"goroutine": 180, "thread": 2300, "process": 2700}
	for _, kind := range []string{"goroutine", "thread", "process"} {
		for _, ws := range []int64{0, 16 << 10, 256 << 10} {
			for _, n := range []int{2, 8, 32, 128, 400} {
				total := float64(ws) * float64(n)
				cost := base[kind] * (1 + 0.04*math.Log2(float64(n)))
				if total > 1<<20 {
					cost += float64(ws) / 64 * 1.5
				}
				if total > 32<<20 {
					cost += float64(ws) / 64 * 6
				}
				raw := draw(rng, cost, 10)
				over := draw(rng, base[kind]*0.35+float64(ws)/64*1.2, 10)
				blocks := []result.BlockInfo{{Round: 0, Samples: 5}, {Round: 1, Samples: 5}}
				sizes := result.BlockSizes(blocks)
				rs, os := stats.SummarizeBlocks(raw, sizes), stats.SummarizeBlocks(over, sizes)
				r := result.Ring{Kind: kind, Placement: "same-cpu", Tasks: n, WorkingSetB: ws,
					Label: model.Label{What: fmt.Sprintf("ring of %d %s passing a token", n, plural(kind)), Workload: fmt.Sprintf("%d B touched per context", ws), Placement: "same CPU (synthetic)"},
					RawNS: rs, OverheadNS: os, NetNS: rs.Median - os.Median, Samples: raw,
					HopsCounted: float64(n * 1000), HopsExpected: float64(n * 1000), Flags: []result.Flag{},
					FootprintB: int64(n) * ws, Verified: true, Blocks: 2, BlockInfo: blocks, FitsIn: fits(int64(n) * ws)}
				if kind != "goroutine" {
					r.SwitchesPerHop = &one
				}
				if r.NetNS <= 0 { // as ring.Aggregate flags it
					r.Flags = append(r.Flags, result.Flag{Code: "net-nonpositive", Message: "net at or below zero: the one-context overhead costs as much as a whole ring hop (synthetic)"})
				}
				doc.Rings = append(doc.Rings, r)
			}
		}
	}
	// Creation and memory: a few kinds, each with the claim to set beside it.
	for _, s := range []struct {
		name, kind, claim string
		ns                float64
	}{
		{"spawn/goroutine", "goroutine", "goroutines are cheap: ~300 ns to create", 310},
		{"spawn/thread", "thread", "thread creation ~17 µs", 11000},
		{"spawn/fork-exec", "process", "fork+exec ~1 ms (TLPI)", 420000},
		{"spawn/posix-spawn", "process", "posix_spawn is flat in the parent's size", 380000},
	} {
		smp := draw(rng, s.ns, 12)
		doc.Spawn = append(doc.Spawn, result.Spawn{Name: s.name, Kind: s.kind, Description: "create and join one " + s.kind,
			Label: s.kind + " creation (synthetic)", PerCreateNS: stats.Summarize(smp), Samples: smp, Claim: s.claim})
	}
	for _, m := range []struct {
		name, kind, claim, limit string
		n, req                   int
		rss, kern, virt, claimB  float64
	}{
		{"memory/goroutine", "goroutine", "a goroutine needs 2 KiB", "", 100000, 100000, 2600, 0, 8192, 2048},
		{"memory/thread", "thread", "a thread reserves 8 MiB of stack", "", 2000, 2000, 9000, 16384, 8 << 20, 8 << 20},
		{"memory/process", "process", "a process costs megabytes", "RLIMIT_NPROC 1500 (fake)", 1500, 2000, 180000, 40000, 12 << 20, 2 << 20},
	} {
		doc.Memory = append(doc.Memory, result.Memory{Name: m.name, Kind: m.kind, Description: "hold " + m.kind + "s parked",
			Label: m.kind + " kept parked (synthetic)", Contexts: m.n, Requested: m.req, RSSBytes: m.rss, PSSBytes: m.rss * 0.8,
			KernelBytes: m.kern, VirtBytes: m.virt, ChargedBytes: m.rss * 0.9, Limit: m.limit,
			Claims: []result.Claim{{Text: m.claim, Source: "folklore", BytesPerContext: m.claimB}}})
	}
	doc.Replications = []result.Replication{{
		Name: "hot-potato-400", Source: "synthetic source", Published: "threads 1.9 µs, processes 2.3 µs per hop",
		Measured: "threads 2.4 µs, processes 2.8 µs per hop (synthetic)", Values: map[string]float64{"thread_ns": 2400, "process_ns": 2800},
		Mistake: "the published figure mixed placements",
	}}
	doc.Pools = pools(rng)
}

func fits(b int64) string {
	switch {
	case b <= 48<<10:
		return "L1d"
	case b <= 1<<20:
		return "L2"
	case b <= 32<<20:
		return "L3"
	}
	return "memory"
}

// pools builds a synthetic pools section.
func pools(rng *rand.Rand) *result.Pools {
	est := func(m float64) result.PoolEstimate {
		lo, hi := m*0.96, m*1.04
		return result.PoolEstimate{Median: m, CILow: &lo, CIHigh: &hi, Confidence: 0.95, N: 5}
	}
	f := func(v float64) *float64 { return &v }
	s := result.PoolSeries{Server: "postgres", Client: "pgxpool", Placement: "cross-cpu", Workers: 64,
		ServerCPUs: []int{0}, ClientCPUs: []int{1}, GOMAXPROCS: 1, LibraryDefaultPool: 4, Shape: "rises then flat"}
	var ns []int
	var xs []float64
	for _, n := range []int{1, 2, 4, 8, 16, 32, 64} {
		qps := 9000 * (1 - math.Exp(-float64(n)/3)) * (1 - 0.002*float64(n)) * (0.98 + 0.04*rng.Float64())
		p := result.PoolPoint{Pool: n, Workers: 64, QPS: est(qps), HeldNs: 1e9 / qps * float64(n), PoolWaitNs: float64(64-n) * 2000}
		p.LatencyNs.P50 = est(64e9 / qps)
		p.LatencyNs.P90 = est(64e9 / qps * 1.4)
		p.LatencyNs.P99 = est(64e9 / qps * (2 + float64(n)/16))
		p.LatencyNs.Max = est(64e9 / qps * 5)
		p.PerQuery = result.PoolPerQuery{ServerVoluntary: f(1 + 0.01*float64(n)), ServerInvoluntary: f(0.02 * float64(n)),
			ServerAux: f(0.05), ClientVoluntary: 1.2 - 0.01*float64(n), ClientInvoluntary: 0.01 * float64(n)}
		p.ClientBound = n == 64
		s.Points = append(s.Points, p)
		ns = append(ns, n)
		xs = append(xs, qps)
	}
	s.ClientBoundPoints = []int{64}
	if k, err := stats.FindKnee(ns, xs); err == nil {
		s.Knee = &k
	}
	r := result.Pools{
		Servers: []result.PoolServer{{Server: "postgres", Version: "15 (fake)", Embedded: true, ProcessCounters: true,
			Series: []result.PoolSeries{s}, Verdict: "throughput stops growing at pool 8 (synthetic)"}},
		Verdicts: []string{"postgres: throughput stops growing at pool 8 (synthetic)"},
		Warnings: []string{"pool 64 is client-bound (synthetic)"},
	}
	return &r
}

func plural(kind string) string {
	if kind == "process" {
		return "processes"
	}
	return kind + "s"
}
