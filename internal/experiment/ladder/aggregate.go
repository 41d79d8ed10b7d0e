package ladder

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// SwitchTolerance is how far switches per hop may be from one before a
// figure is flagged (issue: 5%).
const SwitchTolerance = 0.05

// HopTolerance is how far counted hops may be from the nominal (ops ×
// hops per op) before a row says its figure is per counted hop.
const HopTolerance = 0.01

// CVWarn is the coefficient of variation above which a row gets a noise
// warning.
const CVWarn = 0.10

// Aggregate turns the blocks of one cell into a result: per-sample one-way
// figures, their summary, and the verification of switch counts and
// placement.
func Aggregate(run schedule.CellRun, host string) result.Result {
	c := run.Cell
	resps := make([]model.Response, len(run.Blocks))
	for i, b := range run.Blocks {
		resps[i] = b.Resp
	}
	b := c.Bench
	r := result.Result{
		Name: b.Name, Rung: string(b.Rung), Placement: string(c.Placement), Kind: string(b.Kind),
		Description: b.Description, Op: b.Op, HopsPerOp: b.HopsPerOp,
		IterationsPerSample: run.Iters, Blocks: len(resps), Settings: settings(b, resps),
		Flags: []result.Flag{}, Variant: c.Variant,
	}
	t := tally(&r, b, resps, run.Iters)
	summarizeCell(&r, &t)
	verifySwitches(&r, c, resps, t, run.Perf)
	checkPlacement(&r, c, t.seen)
	r.Warnings = append(r.Warnings, noiseWarnings(r.OneWayNS.Summary, c.Placement)...)
	if run.Missed != "" {
		fix := "quiet the machine, pin with --cpus, or give more time with --target-budget"
		if strings.Contains(run.Missed, "more blocks cannot") {
			fix = "more sittings narrow it (each run adds one to the history), not more blocks; or ask for a wider target"
		}
		r.Warnings = append(r.Warnings, result.Warning{Code: "target-ci", Message: "did not reach the target interval: " + run.Missed, Fix: fix})
	}
	keepBlockFlags(&r, resps)
	if len(resps) > 0 && len(resps[0].Evidence) > 0 {
		r.Evidence = maps.Clone(resps[0].Evidence)
	}
	if len(resps) > 0 {
		r.KVM = resps[0].KVM
	}
	var contended *result.Flag
	r.BlockInfo, contended = experiment.Blocks(run.Blocks)
	for i := range r.BlockInfo {
		r.BlockInfo[i].Samples = t.sizes[i] // after any warm-up dropped
	}
	if contended != nil {
		r.Flags = append(r.Flags, *contended)
		r.Verification.Verified = false
	}
	r.Label = Label(c, r.Settings, host)
	if len(resps) > 0 && resps[0].Label != nil {
		// The benchmark described itself from what it found (how a VM's
		// guest really ran, what a container entered); placement and host
		// still come from here.
		l := *resps[0].Label
		l.Placement, l.Host = c.PlacementText(), host
		r.Label = l
	}
	return r
}

// counts is what a cell's blocks add up to: the per-sample cycles and
// block sizes beside r.Samples, the hops counted and nominal, the switches
// of both sides, and the CPUs each side was seen on.
type counts struct {
	cycles            []float64
	sizes             []int // samples per block: blocks are the unit of every interval
	tscOK             bool
	hops, nominalHops float64 // nominal: over the blocks whose hops are counted
	sw, vol, invol    int64
	seen              experiment.Sightings
}

// tally puts every block's samples into r as one-way figures and adds up
// the rest.
func tally(r *result.Result, b *model.Benchmark, resps []model.Response, iters uint64) counts {
	t := counts{sizes: make([]int, len(resps)), tscOK: true}
	for bi, resp := range resps {
		t.sizes[bi] = len(resp.NS)
		it := iters
		if resp.Iters > 0 {
			it = resp.Iters
			r.IterationsPerSample = it
		}
		perSample := float64(it) * b.HopsPerOp
		if b.Hops != nil && resp.A.Ops > 0 {
			// Where the hops are counted, a sample is divided by the
			// counted hops (their ratio to the nominal over the block).
			nominal := float64(resp.A.Ops) * b.HopsPerOp
			if counted := b.HopsIn(resp); counted > 0 {
				perSample *= counted / nominal
				t.nominalHops += nominal
			}
		}
		for i, ns := range resp.NS {
			r.Samples = append(r.Samples, float64(ns)/perSample)
			if resp.TSC[i] == 0 {
				t.tscOK = false
			}
			t.cycles = append(t.cycles, float64(resp.TSC[i])/perSample)
		}
		t.vol += resp.A.Voluntary + resp.B.Voluntary
		t.invol += resp.A.Involuntary + resp.B.Involuntary
		t.sw += resp.A.Switches() + resp.B.Switches()
		t.hops += b.HopsIn(resp)
		t.seen.Add(resp.A, resp.B)
	}
	return t
}

// summarizeCell drops a warm-up that outlasted the discarded samples, then
// summarizes the figures by blocks, and flags hops that were not what the
// ops make.
func summarizeCell(r *result.Result, t *counts) {
	// Warm-up that outlasted the discarded samples, seen across blocks,
	// is dropped from every block, and said (warning code warmup).
	if drop := stats.SteadyStart(r.Samples, t.sizes); drop > 0 {
		var kept []int
		r.Samples, kept = stats.DropLeading(r.Samples, t.sizes, drop)
		if len(t.cycles) > 0 {
			t.cycles, _ = stats.DropLeading(t.cycles, t.sizes, drop)
		}
		t.sizes = kept
		r.WarmupDropped = drop
		r.Warnings = append(r.Warnings, result.Warning{Code: "warmup", Message: fmt.Sprintf(
			"the first %d measured sample(s) of every block were still warming up (above the rest of their block in most blocks: a sign test across blocks) and were dropped", drop),
			Fix: "raise --warmup"})
	}
	r.OneWayNS.Summary = stats.SummarizeBlocks(r.Samples, t.sizes)
	if t.nominalHops > 0 && math.Abs(t.hops/t.nominalHops-1) > HopTolerance {
		r.Flags = append(r.Flags, result.Flag{Code: "hop-count", Message: fmt.Sprintf(
			"%.0f hops counted where the ops make %.0f (%.3f of nominal): the figure is per counted hop", t.hops, t.nominalHops, t.hops/t.nominalHops)})
	}
	if t.tscOK && len(t.cycles) > 0 {
		s := stats.SummarizeBlocks(t.cycles, t.sizes)
		r.OneWayCycles = &s
	}
}

// verifySwitches sets the switches per hop and whether they verify the
// figure (one per hop where a kernel switch is expected), saying how they
// were counted.
func verifySwitches(r *result.Result, c schedule.Cell, resps []model.Response, t counts, perf *model.Response) {
	b := c.Bench
	v := &r.Verification
	v.Method = "getrusage(RUSAGE_THREAD) voluntary + involuntary switches of both sides over every measured block"
	var proc int64
	for _, resp := range resps {
		if resp.Process != nil {
			proc += resp.Process.Switches()
		}
	}
	switch {
	case b.Rung == model.Goroutine && b.ExpectSwitch:
		v.Method = "getrusage(RUSAGE_THREAD) of the two OS threads the goroutines are locked to, over every measured block; the whole process's count is os_switches_per_hop"
	case b.Rung == model.Goroutine:
		v.Method = "getrusage(RUSAGE_SELF) of the whole Go process (all its threads) over every measured block"
	}
	if len(resps) > 0 && resps[0].SwitchMethod != "" {
		v.Method = resps[0].SwitchMethod // the benchmark counted its own way (a probe's whole process)
	}
	v.Hops, v.Voluntary, v.Involuntary = t.hops, t.vol, t.invol
	if t.hops > 0 {
		perHop := float64(t.sw) / t.hops
		if b.ExpectSwitch {
			one := 1.0
			v.ExpectedPerHop = &one
			r.SwitchesPerHop = &perHop
			v.Verified = math.Abs(perHop-1) <= SwitchTolerance
			if !v.Verified {
				r.Flags = append(r.Flags, switchFlag(c, perHop, perf))
			}
		} else {
			v.OSSwitchesPerHop = &perHop
			v.Note = "no kernel switch is expected; the count shows what the OS did underneath"
		}
	}
	if proc > 0 && t.hops > 0 {
		x := float64(proc) / t.hops
		v.OSSwitchesPerHop = &x
	}
	if perf != nil {
		perfVerify(v, b, *perf)
	}
}

// checkPlacement records where each side was allowed and seen
// (experiment.CheckPlacement), and flags migrations counted while pinned.
func checkPlacement(r *result.Result, c schedule.Cell, seen experiment.Sightings) {
	experiment.CheckPlacement(r, c, seen)
	if m := r.Verification.PerfMigrations; m != nil && *m > 0 && c.Placement != model.Unpinned {
		r.Flags = append(r.Flags, result.Flag{Code: "placement", Message: fmt.Sprintf("%d CPU migrations counted in the perf block although both sides were pinned", *m)})
	}
}

// keepBlockFlags keeps a flag a block raised once, whichever blocks raised
// it; a flagged block leaves the figure unverified.
func keepBlockFlags(r *result.Result, resps []model.Response) {
	seen := map[model.Flag]bool{}
	for _, resp := range resps {
		for _, f := range resp.Flags {
			if !seen[f] {
				seen[f] = true
				r.Flags = append(r.Flags, f)
			}
			r.Verification.Verified = false
		}
	}
}

func switchFlag(c schedule.Cell, perHop float64, perf *model.Response) result.Flag {
	f := result.Flag{Code: "switch-count"}
	switch {
	case perHop < 1-SwitchTolerance && c.Placement == model.SameCPU:
		f.Message = fmt.Sprintf("%.2f switches per hop, fewer than one: a side found its turn already passed and did not block (a fast path); this is not a pure switch cost", perHop)
	case perHop < 1-SwitchTolerance && spinsByDesign(c.Bench):
		f.Message = fmt.Sprintf("%.2f switches per hop, fewer than one: this benchmark spins before it sleeps, so the waiter on the other CPU saw some hand-offs while spinning and never slept; this figure is, at least in part, a handoff latency, not a context-switch cost", perHop)
	case perHop < 1-SwitchTolerance:
		// The run counted the switches, not why some hand-offs had none
		// (the waiter may have been still running, or its idle CPU may
		// have polled): say what was counted, name no cause. The idle
		// driver is in the Environment, which Aggregate does not get.
		f.Message = fmt.Sprintf("%.2f switches per hop, fewer than one was counted: some hand-offs completed without the waiter sleeping; this figure is not a pure context-switch cost", perHop)
	default:
		f.Message = fmt.Sprintf("%.2f switches per hop, more than one: other tasks preempted the pair, the runtime woke helper threads, or a side migrated", perHop)
		if perf != nil && perf.A.PerfMigrations+perf.B.PerfMigrations > 0 {
			f.Message += fmt.Sprintf(" (%d migrations in the perf block)", perf.A.PerfMigrations+perf.B.PerfMigrations)
		}
	}
	return f
}

// spinsByDesign says the benchmark's waiter spins before it sleeps: the
// catalog names such rows *-spin.
func spinsByDesign(b *model.Benchmark) bool { return strings.HasSuffix(b.Name, "-spin") }

func perfVerify(v *result.Verification, b *model.Benchmark, p model.Response) {
	hops := b.HopsIn(p)
	if hops <= 0 {
		return
	}
	if p.A.PerfSwitches >= 0 {
		n := p.A.PerfSwitches + max(p.B.PerfSwitches, 0)
		x := float64(n) / hops
		v.PerfSwitchesPerHop = &x
	}
	if p.A.PerfMigrations >= 0 {
		m := p.A.PerfMigrations + max(p.B.PerfMigrations, 0)
		v.PerfMigrations = &m
	}
	if p.A.PerfInstructions >= 0 {
		x := float64(p.A.PerfInstructions+max(p.B.PerfInstructions, 0)) / hops
		v.InstructionsPerHop = &x
	}
	if p.A.PerfCycles >= 0 {
		x := float64(p.A.PerfCycles+max(p.B.PerfCycles, 0)) / hops
		v.CyclesPerHop = &x
	}
}

// noiseWarnings say when a row's samples varied so much that only its
// median holds (codes noise-cv and noise-spread).
func noiseWarnings(s stats.Summary, p model.Placement) []result.Warning {
	var w []result.Warning
	if s.CV >= CVWarn {
		w = append(w, result.Warning{Code: "noise-cv", Message: fmt.Sprintf("high variation (CV %.0f%%): the median is robust, the mean is not", 100*s.CV),
			Fix: "re-run with --thorough, pin with --cpus, or quiet the machine"})
	}
	if s.P10 > 0 && s.P90/s.P10 >= 2 {
		hint := "look at the raw samples"
		if p == model.Unpinned {
			hint = "unpinned runs are often bimodal (pair together or apart); use same-cpu and cross-cpu for separate figures"
		}
		w = append(w, result.Warning{Code: "noise-spread", Message: fmt.Sprintf("wide spread: p90 is %.1fx p10", s.P90/s.P10), Fix: hint})
	}
	return w
}

// settings are the benchmark's settings with what the worker really ran
// with filled in (GOMAXPROCS = the CPUs allowed).
func settings(b *model.Benchmark, resps []model.Response) []string {
	out := slices.Clone(b.Settings)
	for i, s := range out {
		if strings.HasPrefix(s, "GOMAXPROCS=CPUs") && len(resps) > 0 && resps[0].GOMAXPROCS > 0 {
			out[i] = fmt.Sprintf("GOMAXPROCS=%d", resps[0].GOMAXPROCS)
		}
	}
	return out
}

// Label is the description of what a figure is.
func Label(c schedule.Cell, settings []string, host string) model.Label {
	return model.Label{What: c.Bench.Switched, Mechanism: c.Bench.Mechanism, Placement: c.PlacementText(), Settings: settings, Host: host}
}
