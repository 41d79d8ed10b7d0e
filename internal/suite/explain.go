package suite

import (
	"context"
	"time"

	"github.com/ctxbench/ctxbench/internal/bpf"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/explain"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
)

// ExplainMinTime is explain's sample length unless --min-time says
// otherwise: longer than the ladder's, so the few milliseconds between a
// traced block's partners becoming ready and its first hop stay a small
// part of the block.
const ExplainMinTime = 10 * time.Millisecond

// ExplainOptions are what explain measures: the benchmarks, each at one
// CPU untraced and traced, with the flags' sampling; MinTimeGiven keeps
// the flags' sample length instead of ExplainMinTime.
type ExplainOptions struct {
	Benches      []*model.Benchmark
	Placements   []model.Placement // none: same-cpu
	Probes       string            // model.ProbesFull or model.ProbesLight
	Sampling     Sampling
	MinTimeGiven bool
	// Capture turns the slow-hop capture on (nil: off).
	Capture *model.Threshold
}

// Explain is the kernel phases of each benchmark's hop, and the ladder's
// steps and published causes judged by them (explain.Derive).
func Explain(spec session.Spec, o ExplainOptions) session.Spec {
	spec = begin(spec, schedule.FakeExecutor{Seed: spec.Seed})
	placements := o.Placements
	if len(placements) == 0 {
		placements = []model.Placement{model.SameCPU}
	}
	spec.Settings.Placements = nil
	for _, p := range placements {
		spec.Settings.Placements = append(spec.Settings.Placements, string(p))
	}
	smp := o.Sampling
	if !o.MinTimeGiven {
		smp.MinTime = ExplainMinTime
	}
	spec.Settings = smp.Record(spec.Settings) // what the samples were, not the preset's
	s := smp.options()
	if o.Capture != nil {
		spec.Settings.CaptureAbove = o.Capture.String()
	}
	spec.Steps = []session.Step{func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		return explain.Run(ctx, env, explain.Options{Benches: o.Benches, Placements: placements, Probes: o.Probes, Sampling: s, Capture: o.Capture})
	}}
	spec.Derive = []func(*result.Document){explain.Derive}
	return spec
}

// CheckTracing says what this machine lacks to trace a hop's kernel phases
// (root or CAP_BPF and CAP_PERFMON, the bpf() syscall, BTF, raw
// tracepoints); nil when nothing.
func CheckTracing() error { return bpf.Check() }
