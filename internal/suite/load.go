package suite

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/experiment/load"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
)

// LoadKind is a kind of woken context: thread or process.
type LoadKind = load.Kind

// ParseLoadKind reads --kind in the load experiment's terms.
func ParseLoadKind(s string) (LoadKind, error) { return load.ParseKind(s) }

// LoadSweep is the load experiment's options, which the command line fills
// from its flags: the one type from a flag to the experiment.
type LoadSweep = load.Options

// LoadOptions are a load sweep: the experiment's own options, and what the
// suite adds around them.
type LoadOptions struct {
	LoadSweep
	// NoReference leaves out the ladder's futex hop of each kind at each
	// placement, measured otherwise in the same sitting (a quick ladder
	// cell) and set beside the lightest level's wake-up.
	NoReference bool
	CPUs        []int
	Settings    result.Settings
}

// Load is a planned load sweep.
type Load struct {
	Settings result.Settings
	Levels   int
	o        load.Options
	cells    []load.Cell
	skipped  []result.Failure
	ref      []*model.Benchmark
	refAt    []model.Placement
}

// PlanLoad plans the sweep; every error is the input's fault.
func PlanLoad(o LoadOptions) (*Load, error) {
	lo := o.LoadSweep
	if lo.Topology == nil && slices.ContainsFunc(lo.Placements, model.Placement.IsLevel) {
		lo.Topology = experiment.Topology(machine.Topology(machine.Options{}))
	}
	cells, skipped, err := load.Plan(lo, o.CPUs)
	if err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		if len(skipped) > 0 {
			return nil, fmt.Errorf("nothing to run: %s %s: %s", skipped[0].Name, skipped[0].Placement, skipped[0].Error)
		}
		return nil, fmt.Errorf("nothing to run")
	}
	set := recordCapture(o.Settings, lo.Capture)
	set.Runs, set.SamplesPerBlock, set.Warmup, set.MinTimeNS, set.SpanNS = lo.Blocks, 1, 0, lo.Block.Nanoseconds(), lo.Span.Nanoseconds()
	if len(lo.Placements) == 0 {
		set.Placements = []string{string(model.SameCPU)}
	}
	l := &Load{Settings: set, Levels: len(cells), o: lo, cells: cells, skipped: skipped}
	if !o.NoReference {
		for _, k := range lo.Kinds {
			if b := catalog.Lookup(load.ReferenceOf(k)); b != nil && !slices.Contains(l.ref, b) {
				l.ref = append(l.ref, b)
			}
		}
		l.refAt = lo.Placements
		if len(l.refAt) == 0 {
			l.refAt = []model.Placement{model.SameCPU}
		}
	}
	return l, nil
}

// Spec is the sweep's session: the reference hops first (a quick ladder
// run of the same futex handoff), then the levels; the derivation sets
// each series' reference.
func (l *Load) Spec(spec session.Spec) session.Spec {
	spec = begin(spec, loadFake{load.FakeExecutor{Seed: spec.Seed}, schedule.FakeExecutor{Seed: spec.Seed}})
	if len(l.ref) > 0 {
		so := schedule.Options{Runs: 12, SamplesPerBlock: 2, Warmup: 1, MinTime: time.Millisecond, PerfCheck: false}
		refAt := slices.DeleteFunc(slices.Clone(l.refAt), func(p model.Placement) bool { return p == model.Unpinned })
		if len(refAt) > 0 {
			spec.Steps = append(spec.Steps, func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
				part, err := ladder.Run(ctx, env, ladder.Options{Benches: l.ref, Placements: refAt, Sampling: so})
				if ctx.Err() != nil {
					return part, ctx.Err()
				}
				if err != nil {
					// The reference is a cross-check: without it the levels
					// still stand, and the document says why it is missing.
					part.Warnings = append(part.Warnings, result.Warning{Code: "reference", Message: "the ladder's futex hop beside the load could not be measured: " + err.Error()})
				}
				return part, nil //nolint:nilerr // a reference that failed is a warning in the document, not the run's error
			})
		}
	}
	spec.Steps = append(spec.Steps, func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		part, err := load.Run(ctx, env, l.cells, l.o)
		part.Skipped = append(part.Skipped, l.skipped...)
		return part, err
	})
	spec.Derive = []func(*result.Document){func(d *result.Document) {
		if d.Loads == nil {
			d.Loads = []result.LoadSeries{}
		}
		load.Reference(d)
	}}
	return spec
}

// loadFake serves a dry run's load blocks and its reference ladder cells.
type loadFake struct {
	load   load.FakeExecutor
	ladder schedule.FakeExecutor
}

func (f loadFake) Block(ctx context.Context, c schedule.Cell, req model.Request, t time.Duration) (model.Response, error) {
	if req.Load != nil || req.Bench == catalog.LoadWork {
		return f.load.Block(ctx, c, req, t)
	}
	return f.ladder.Block(ctx, c, req, t)
}
