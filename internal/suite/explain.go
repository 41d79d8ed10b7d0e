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

// ExplainSweep is the explain experiment's options, which the command
// line fills from its flags: the benchmarks, placements (none: same-cpu),
// probe set and the slow-hop capture's threshold (nil: off). Explain sets
// their sampling.
type ExplainSweep = explain.Options

// ExplainOptions are what explain measures: the experiment's own options,
// each benchmark untraced and traced, sampled as the flags say (Sampling:
// the flags' terms, which Explain makes the scheduler's, ExplainSweep's;
// its samples last ExplainMinTime unless the flags gave --min-time).
type ExplainOptions struct {
	ExplainSweep
	Sampling Sampling
}

// Explain is the kernel phases of each benchmark's hop, and the ladder's
// steps and published causes judged by them (explain.Derive).
func Explain(spec session.Spec, o ExplainOptions) session.Spec {
	spec = begin(spec, schedule.FakeExecutor{Seed: spec.Seed})
	eo := o.ExplainSweep
	if len(eo.Placements) == 0 {
		eo.Placements = []model.Placement{model.SameCPU}
	}
	spec.Settings.Placements = nil
	for _, p := range eo.Placements {
		spec.Settings.Placements = append(spec.Settings.Placements, string(p))
	}
	smp := o.Sampling
	if !smp.Given.MinTime {
		smp.MinTime = ExplainMinTime
	}
	spec.Settings = recordCapture(smp.Record(spec.Settings), eo.Capture) // what the samples were, not the preset's
	eo.Sampling = smp.options()
	spec.Steps = []session.Step{func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		return explain.Run(ctx, env, eo)
	}}
	spec.Derive = []func(*result.Document){explain.Derive}
	return spec
}

// CheckTracing says what this machine lacks to trace a hop's kernel phases
// (root or CAP_BPF and CAP_PERFMON, the bpf() syscall, BTF, raw
// tracepoints); nil when nothing.
func CheckTracing() error { return bpf.Check() }
