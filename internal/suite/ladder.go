package suite

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/experiment/lifecycle"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
)

// The default ladder's creation and memory measurements: one or two per
// kind of context (fork from 1 GiB is left to `ctxbench spawn`).
var (
	ladderSpawnKinds  = []string{"goroutine", "thread", "fork", "fork-256m", "vfork-exec", "posix-spawn", "clone-exec", "container-full", "vm"}
	ladderMemoryKinds = []string{"goroutine", "thread", "process", "container", "vm"}
	// quickMemoryN are the contexts --quick holds per kind: a tenth of
	// each kind's default (a fifth for containers and VMs).
	quickMemoryN = map[string]int{"goroutine": 10000, "thread": 1000, "process": 100, "container": 20, "vm": 20}
)

// The default ladder's creation samples, the same for every kind so that
// its creation table is read at one precision (`ctxbench spawn` takes each
// kind's own, 15 to 500).
const (
	ladderSpawnSamples = 40
	quickSpawnSamples  = 15
)

// LadderOptions are what the switch ladder measures, as the flags of run
// and of ctxbench without a command say.
type LadderOptions struct {
	Benches    []*model.Benchmark // nil: every benchmark
	Placements []model.Placement  // nil: each benchmark's ladder placements
	Sampling   Sampling
	// Full is the default ladder (ctxbench with no command): the creation
	// and memory ladders after the switches (unless SwitchesOnly, or a dry
	// run, which has no synthetic creation or memory), and the claims and
	// the published hierarchy set beside them.
	Full, SwitchesOnly, Quick bool
}

// Ladder is the switch ladder: the ladder's run and its derivations, and
// for the default ladder the creation and memory ladders, the claims and
// the published hierarchy.
func Ladder(spec session.Spec, o LadderOptions) session.Spec {
	spec = begin(spec, schedule.FakeExecutor{Seed: spec.Seed})
	benches := o.Benches
	if benches == nil {
		benches = catalog.All()
	}
	spec.Steps = []session.Step{ladderStep(o.Sampling.options(), benches, o.Placements)}
	spec.Derive = []func(*result.Document){deriveLadder}
	if o.Full && !o.SwitchesOnly && !spec.DryRun {
		lo := lifecycle.Options{Samples: ladderSpawnSamples, PinLast: true, NoSettle: true}
		if o.Quick {
			lo.Samples = quickSpawnSamples
		}
		mo := lifecycle.Options{NoSettle: true}
		if o.Quick {
			mo.N = quickMemoryN
		}
		spec.Steps = append(spec.Steps,
			func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
				return lifecycle.Spawn(ctx, env, ladderSpawnKinds, lo)
			},
			func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
				return lifecycle.Memory(ctx, env, ladderMemoryKinds, mo)
			})
	}
	if o.Full {
		spec.Derive = append(spec.Derive, replicate.Claims, deriveHierarchy)
	}
	return spec
}

// ladderStep measures benchmarks at placements with the flags' sampling;
// the perf cross-check only where software perf events work here.
func ladderStep(o schedule.Options, benches []*model.Benchmark, placements []model.Placement) session.Step {
	return func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		if !env.Environment.Perf.Software {
			o.PerfCheck = false
		}
		return ladder.Run(ctx, env, ladder.Options{Benches: benches, Placements: placements, Sampling: o})
	}
}

// deriveLadder stores the figures that combine the ladder's rows.
func deriveLadder(d *result.Document) {
	d.Derived = ladder.Derive(d.Results)
	ladder.CrossCPU(d)
}

// deriveHierarchy sets the published hierarchy beside the ladder.
func deriveHierarchy(d *result.Document) {
	if d.Derived == nil {
		d.Derived = &result.Derived{}
	}
	d.Derived.Hierarchy, d.Derived.Claims = replicate.Hierarchy(d)
}
