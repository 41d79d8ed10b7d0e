// Package explain is the experiment that says where a hop's time goes:
// each benchmark runs as two cells at its placement — untraced, and with
// the kernel phase tracer attached in its worker (internal/catalog's traced
// blocks, internal/phase's models) — interleaved block by block in one
// sitting, so the probes' cost is measured beside the phases it bought.
// The phases are the traced blocks' averages; they are never scaled to
// fit: a model that does not close within 5% of the traced hop says so.
// Beside them, each phase on the untraced scale: less the probe firings it
// holds times one firing's measured cost (untraced.go).
package explain

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// ClosureTolerance is how far the phases' sum may be from the traced hop
// before the figure says the model did not close.
const ClosureTolerance = 0.05

// Options say what to explain and how to sample it.
type Options struct {
	Benches []*model.Benchmark
	// Placements are where each benchmark is explained: same-cpu by
	// default; across two CPUs (cross-cpu, a topology level) the cross-CPU
	// phase model joins both CPUs' timelines.
	Placements []model.Placement
	// Probes is the traced cells' probe set (model.ProbesFull or
	// model.ProbesLight).
	Probes   string
	Sampling schedule.Options
	// Capture, when set, adds a third cell per benchmark: traced with the
	// slow-hop capture on (past this threshold), interleaved with the two
	// others, so that the capture's own cost is measured against the
	// traced cell in the same rounds.
	Capture *model.Threshold
}

// Run measures and splits the benchmarks that have a phase model; the
// others are skipped with the reason.
func Run(ctx context.Context, env experiment.Env, o Options) (experiment.Part, error) {
	var part experiment.Part
	placements := o.Placements
	if len(placements) == 0 {
		placements = []model.Placement{model.SameCPU}
	}
	cells, skips := schedule.Plan(o.Benches, placements, env.CPUs)
	for _, s := range skips {
		part.Skipped = append(part.Skipped, result.Failure{Name: s.Bench, Placement: s.Placement, Error: s.Reason})
	}
	var plan []schedule.Cell
	for _, c := range cells {
		if c.Bench.Phases == "" {
			part.Skipped = append(part.Skipped, result.Failure{Name: c.Bench.Name, Placement: string(c.Placement),
				Error: "no phase model: explain splits pipe, eventfd, futex and yield ping-pongs of threads, processes and containers (pipe, eventfd and futex across CPUs too), a VM's exit to user space and a VM-to-VM hop through the VMMs"})
			continue
		}
		t := c
		t.Trace, t.Probes, t.Name = true, o.Probes, c.Bench.Name+" traced"
		plan = append(plan, c, t)
		if o.Capture != nil {
			k := t
			k.Capture, k.Name = experiment.CaptureRequest(*o.Capture), c.Bench.Name+" captured"
			plan = append(plan, k)
		}
	}
	if len(plan) == 0 {
		return part, &NothingToExplain{}
	}
	so := o.Sampling
	so.PerfCheck = false // perf events and BPF probes would each slow the other's switches
	runs, err := schedule.Run(ctx, env.Runner, plan, so)
	if err != nil {
		return part, err
	}
	step := 2
	if o.Capture != nil {
		step = 3
	}
	for i := 0; i+step-1 < len(runs); i += step {
		u, t := runs[i], runs[i+1]
		if err := failure(u, t); err != "" {
			part.Failures = append(part.Failures, result.Failure{Name: u.Cell.Bench.Name, Placement: string(u.Cell.Placement), Error: err})
			continue
		}
		r := Aggregate(u, t, env.Host)
		if o.Capture != nil && r.Explain != nil {
			k := runs[i+2]
			if k.Err != nil {
				part.Failures = append(part.Failures, result.Failure{Name: u.Cell.Bench.Name + " captured", Placement: string(u.Cell.Placement), Error: k.Err.Error()})
			} else {
				r.Explain.Capture = AggregateCapture(*o.Capture, t, k)
			}
		}
		part.Results = append(part.Results, r)
	}
	return part, nil
}

// AggregateCapture is the capture cell's hops, and its cost against the
// traced cell (the user clock's hop, blocks paired by round).
func AggregateCapture(th model.Threshold, t, k schedule.CellRun) *result.Capture {
	c := experiment.Capture(th, k.Blocks)
	if c == nil {
		return nil
	}
	tv, ts, tr := perHop(t)
	kv, ks, kr := perHop(k)
	c.Cost = experiment.CaptureCostOf(stats.Series{Values: tv, Sizes: ts, Rounds: tr}, stats.Series{Values: kv, Sizes: ks, Rounds: kr},
		experiment.KernelCaptureNS(k.Blocks))
	return c
}

// NothingToExplain says no asked-for benchmark can be explained here.
type NothingToExplain struct{}

func (*NothingToExplain) Error() string {
	return "nothing to explain: no benchmark asked for has a phase model at the placements asked for here"
}

func failure(u, t schedule.CellRun) string {
	switch {
	case u.Err != nil:
		return u.Err.Error()
	case t.Err != nil:
		return "traced: " + t.Err.Error()
	case len(u.Blocks) == 0 || len(t.Blocks) == 0:
		return "no block ran"
	}
	return ""
}

// perHop are a run's samples per hop and its block sizes and rounds.
func perHop(r schedule.CellRun) (v []float64, sizes, rounds []int) {
	for _, b := range r.Blocks {
		it := r.Iters
		if b.Resp.Iters > 0 {
			it = b.Resp.Iters
		}
		for _, ns := range b.Resp.NS {
			v = append(v, float64(ns)/(float64(it)*r.Cell.Bench.HopsPerOp))
		}
		sizes = append(sizes, len(b.Resp.NS))
		rounds = append(rounds, b.Round)
	}
	return v, sizes, rounds
}

// Aggregate turns an untraced and a traced cell into one result: the
// untraced figure (the benchmark's own), and its explanation.
func Aggregate(u, t schedule.CellRun, host string) result.Result {
	samples, sizes, rounds := perHop(u)
	tsamples, tsizes, trounds := perHop(t)
	r := untraced(u, t, host, samples, sizes)

	ts := stats.SummarizeBlocks(tsamples, tsizes)
	e := &result.Explain{Blocks: len(t.Blocks), UntracedOneWayNS: r.OneWayNS.Median, TracedOneWayNS: ts.Median,
		TracedMeanNS: ts.Mean, UntracedMeanNS: r.OneWayNS.Mean, Probes: probeSet(t.Cell.Probes)}
	if c := stats.PairedChange(samples, sizes, rounds, tsamples, tsizes, trounds); c.OK {
		e.ProbeCost, e.ProbeCostLow, e.ProbeCostHigh, e.ProbeCostConfidence = c.Ratio-1, c.Lo-1, c.Hi-1, c.Confidence
	}
	r.Explain = e
	sum, ok := tracedPhases(e, t.Blocks)
	if !ok {
		r.Flags = append(r.Flags, result.Flag{Code: "explain", Message: "the traced blocks returned no phases"})
		return r
	}
	if e.KernelHopNS > 0 {
		e.KernelClosure = sum / e.KernelHopNS
	}
	if e.TracedMeanNS > 0 {
		e.Closure = sum / e.TracedMeanNS
	}
	if math.Abs(e.Closure-1) > ClosureTolerance {
		r.Warnings = append(r.Warnings, result.Warning{Code: "explain-closure",
			Message: fmt.Sprintf("the phases sum to %.0f%% of the traced hop (%.0f of %.0f ns): the model does not close within %.0f%% (%.0f ns per hop on the kernel's clock not attributed); the phases are shown as measured, not scaled",
				100*e.Closure, sum, e.TracedMeanNS, 100*ClosureTolerance, e.UnattributedNS),
			Fix: "see the not-attributed time in the JSON; rare paths (migrations, interrupts in odd places) are the usual cause"})
	}
	e.ProbeNsPerFiring = probeNsPerFiring(stats.Series{Values: samples, Sizes: sizes, Rounds: rounds},
		stats.Series{Values: tsamples, Sizes: tsizes, Rounds: trounds}, e.FiringsPerHop)
	untracedScale(e)
	return r
}

// untraced is the benchmark's own figure from the untraced cell u (its
// samples per hop in blocks of sizes), flagged where its blocks — or the
// traced cell t's — stayed contended, with its switches per hop verified
// and where the sides ran checked in both cells' blocks.
func untraced(u, t schedule.CellRun, host string, samples []float64, sizes []int) result.Result {
	b := u.Cell.Bench
	r := result.Result{
		Name: b.Name, Rung: string(b.Rung), Placement: string(u.Cell.Placement), Kind: string(b.Kind),
		Description: b.Description, Op: b.Op, HopsPerOp: b.HopsPerOp, IterationsPerSample: u.Iters,
		Samples: samples, OneWayNS: result.Figure{Summary: stats.SummarizeBlocks(samples, sizes)}, Blocks: len(u.Blocks), Flags: []result.Flag{},
		Label: model.Label{What: b.Switched, Mechanism: b.Mechanism, Placement: u.Cell.PlacementText(), Host: host},
	}
	// A figure whose blocks stayed contended is flagged, as the ladder's
	// are; so is an explanation whose traced blocks did (other work on the
	// traced CPUs is time the phases cannot hold).
	var contended *result.Flag
	r.BlockInfo, contended = experiment.Blocks(u.Blocks)
	if _, tc := experiment.Blocks(t.Blocks); contended == nil && tc != nil {
		contended = tc
		contended.Message = "traced blocks: " + contended.Message
	}
	if contended != nil {
		r.Flags = append(r.Flags, *contended)
	}
	var sw int64
	var hops float64
	for _, blk := range u.Blocks {
		sw += blk.Resp.A.Switches() + blk.Resp.B.Switches()
		hops += b.HopsIn(blk.Resp)
	}
	r.Verification.Method = "getrusage(RUSAGE_THREAD) voluntary + involuntary switches of both sides over the untraced blocks"
	if hops > 0 && b.ExpectSwitch {
		x := float64(sw) / hops
		one := 1.0
		r.SwitchesPerHop, r.Verification.ExpectedPerHop, r.Verification.Hops = &x, &one, hops
		r.Verification.Verified = math.Abs(x-1) <= 0.05
	}
	// Where the sides ran, seen by the kernels at sample boundaries in both
	// cells' blocks (the traced ones are the same hops, probed).
	var seen experiment.Sightings
	for _, blk := range append(slices.Clone(u.Blocks), t.Blocks...) {
		seen.Add(blk.Resp.A, blk.Resp.B)
	}
	experiment.CheckPlacement(&r, u.Cell, seen)
	return r
}

// tracedPhases sets e's phases and per-hop figures from the traced blocks:
// each block's per-hop figures, averaged over the blocks that returned
// phases (every block makes the same number of hops), in time order. It
// returns the phases' sum per hop; false when no block returned phases.
func tracedPhases(e *result.Explain, blocks []schedule.Block) (float64, bool) {
	var phases, parallel, unexplained phaseSum
	var kernel, other, unattributed, firings float64
	counts := map[string]float64{}
	n := 0.0
	for _, blk := range blocks {
		x := blk.Resp.Explain
		if x == nil {
			continue
		}
		n++
		e.Method, e.Model, e.Gaps = x.Method, x.Model, x.Gaps
		for _, note := range x.Notes {
			if !slices.Contains(e.Notes, note) {
				e.Notes = append(e.Notes, note)
			}
		}
		kernel += x.HopNsPerHop
		other += x.OtherNsPerHop
		unattributed += x.UnattributedNsPerHop
		firings += x.FiringsPerHop
		for k, v := range x.Counts {
			counts[k] += v
		}
		phases.add(x.Phases)
		parallel.add(x.Parallel)
		unexplained.add(x.Unexplained)
	}
	if n == 0 {
		return 0, false
	}
	e.KernelHopNS, e.OtherNS, e.UnattributedNS, e.FiringsPerHop = kernel/n, other/n, unattributed/n, firings/n
	e.Phases = phases.mean(n)
	sum := 0.0
	for _, p := range e.Phases {
		sum += p.NsPerHop
	}
	e.Parallel = parallel.mean(n)
	e.Unexplained = unexplained.mean(n)
	slices.SortFunc(e.Unexplained, func(a, b result.ExplainPhase) int { return cmp.Compare(b.NsPerHop, a.NsPerHop) })
	e.Counts = map[string]float64{}
	for k, v := range counts {
		e.Counts[k] = v / n
	}
	return sum, true
}

// probeSet names a cell's probe set as the result file records it.
func probeSet(p string) string {
	if p == model.ProbesFull {
		return "full"
	}
	return p
}

// phaseSum adds up phases by identity (side, bounding events, kinds) over
// blocks, in first-seen (time) order: across CPUs the same phase can occur
// on each side, and the two are different time; two phases are never
// added up because their labels are alike.
type phaseSum struct {
	order []string
	by    map[string]*result.ExplainPhase
}

func (s *phaseSum) add(ps []result.ExplainPhase) {
	if s.by == nil {
		s.by = map[string]*result.ExplainPhase{}
	}
	for _, p := range ps {
		key := p.Identity()
		if p.From == "" && p.To == "" && len(p.Kinds) == 0 {
			key += "\x00" + p.Name // a worker that sent no identity (the unexplained transitions)
		}
		a := s.by[key]
		if a == nil {
			a = &result.ExplainPhase{Name: p.Name, What: p.What, Probes: p.Probes, Kinds: p.Kinds, From: p.From, To: p.To, CPU: p.CPU}
			s.by[key] = a
			s.order = append(s.order, key)
		}
		a.NsPerHop += p.NsPerHop
		a.PerHop += p.PerHop
		a.Firings += p.Firings
	}
}

// mean is every phase's sum over n blocks.
func (s *phaseSum) mean(n float64) []result.ExplainPhase {
	var out []result.ExplainPhase
	for _, key := range s.order {
		p := *s.by[key]
		p.NsPerHop, p.PerHop, p.Firings = p.NsPerHop/n, p.PerHop/n, p.Firings/n
		out = append(out, p)
	}
	return out
}
