package suite

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/lifecycle"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
)

// SpawnKinds and MemoryKinds are the creation and memory measurements, in
// the catalog's order.
func SpawnKinds() []string  { return lifecycle.SpawnKinds() }
func MemoryKinds() []string { return lifecycle.MemoryKinds() }

// Spawn measures what creating each kind costs, Samples each (0: each
// kind's own), the creating thread pinned to the last CPU, and sets the
// published claims beside the figures.
func Spawn(spec session.Spec, kinds []string, samples int) session.Spec {
	o := lifecycle.Options{Samples: samples, PinLast: true}
	return lifecycleSpec(spec, func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		return lifecycle.Spawn(ctx, env, kinds, o)
	})
}

// Memory measures what keeping each kind costs, holding contexts[kind] at
// once (absent: the kind's own count), and sets the published claims
// beside the figures. settle waits for the kernel's counters to settle
// before each reading.
func Memory(spec session.Spec, kinds []string, contexts map[string]int, settle bool) session.Spec {
	o := lifecycle.Options{N: contexts, NoSettle: !settle}
	return lifecycleSpec(spec, func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		return lifecycle.Memory(ctx, env, kinds, o)
	})
}

func lifecycleSpec(spec session.Spec, step session.Step) session.Spec {
	spec = begin(spec, nil)
	spec.Steps = []session.Step{step}
	spec.Derive = []func(*result.Document){replicate.Claims}
	return spec
}
