package suite

// replicate.go: the published experiments in one session. Most run their
// own program (replicate.Experiment.Run) and give their replications as
// their part. The two derived from other experiments measure what they are
// derived from into the session's one document (the hierarchy its ladder
// rows and its creation and memory kinds, the hot-potato ring its rings
// per core type), and a derivation sets their replications from that
// document, in the order the experiments ran.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/experiment/lifecycle"
	"github.com/ctxbench/ctxbench/internal/experiment/replicate"
	"github.com/ctxbench/ctxbench/internal/experiment/ring"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
)

// The hierarchy's rows are sampled as the default ladder sampled them when
// the replication was written (40 samples of 2 ms in blocks of 8, one
// warm-up, unpaced), and kept so that its figures compare from one
// version to the next; --quick is a smoke test (12 samples of 1 ms in
// blocks of 4, 10 creations per kind).
const (
	hierarchyRuns, hierarchyPerBlock           = 40, 8
	hierarchyMinTime                           = 2 * time.Millisecond
	quickHierarchyRuns, quickHierarchyPerBlock = 12, 4
	quickHierarchyMinTime                      = time.Millisecond
	quickHierarchySpawnSamples                 = 10
)

// hotPotatoMinTime is the hot-potato rings' sample length. Their rounds
// per sample are fixed as published (replicate.HotPotatoSampling), so it
// only bounds each block's watchdog.
const hotPotatoMinTime = time.Millisecond

// Published is one published experiment, as `ctxbench replicate --list`
// shows it.
type Published struct{ Name, Summary, Source string }

// PublishedExperiments are the published experiments, in the order they
// run and print.
func PublishedExperiments() []Published {
	var out []Published
	for _, x := range replicate.Experiments() {
		out = append(out, Published{x.Name, x.Summary, x.Source.String()})
	}
	return out
}

// SelectPublished resolves names ("all" or none: every experiment) to the
// experiments' names, in the order they run; an unknown name is an error.
func SelectPublished(names []string) ([]string, error) {
	xs, err := replicate.Select(names)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, x := range xs {
		out = append(out, x.Name)
	}
	return out, nil
}

// FailedPublished counts the experiments among names that failed: each is
// recorded as a failure named after it (the rows a derived experiment
// measured fail under their own names, beside its replications).
func FailedPublished(d *result.Document, names []string) int {
	n := 0
	for _, f := range d.Failures {
		for _, name := range names {
			if f.Name == name && f.Placement == "" {
				n++
				break
			}
		}
	}
	return n
}

// ReplicateOptions are the experiments to replicate (SelectPublished's
// names; none: every experiment), whether quickly (fewer repetitions: a smoke test, not a
// replication), and where a failed experiment is said, quiet or not.
type ReplicateOptions struct {
	Experiments []string
	Quick       bool
	Stderr      io.Writer
}

// Replicate runs the published experiments, one step each. A failed
// experiment is recorded and said, and the others go on; only
// cancellation stops the run. The spec is for one session.Run: its steps
// tell its derivation which replications are whose.
func Replicate(spec session.Spec, o ReplicateOptions) (session.Spec, error) {
	xs, err := replicate.Select(o.Experiments)
	if err != nil {
		return spec, err
	}
	spec = begin(spec, nil)
	p := &published{xs: xs, quick: o.Quick, stderr: o.Stderr, own: make([]int, len(xs)), derive: make([]deriveReplications, len(xs))}
	for i := range xs {
		spec.Steps = append(spec.Steps, p.step(i))
	}
	spec.Derive = []func(*result.Document){p.replications}
	return spec, nil
}

// deriveReplications sets a derived experiment's replications from the
// session's document.
type deriveReplications func(d *result.Document) []result.Replication

// derivedExperiments are the published experiments computed from other
// experiments' figures (replicate.Experiment.Derived): what each measures
// into the document, and how its replications come from it.
var derivedExperiments = map[string]func(ctx context.Context, env experiment.Env, quick bool) (experiment.Part, deriveReplications, error){
	"hierarchy":       hierarchy,
	"hot-potato-ring": hotPotato,
}

// published is one replicate session: which experiments run, in order,
// and what each step left for the derivation: own[i] replications of its
// own program in the document, or derive[i] for a derived experiment.
type published struct {
	xs     []replicate.Experiment
	quick  bool
	stderr io.Writer
	own    []int
	derive []deriveReplications
}

func (p *published) step(i int) session.Step {
	x := p.xs[i]
	return func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		var part experiment.Part
		var derive deriveReplications
		var err error
		if x.Run != nil {
			part.Replications, err = x.Run(ctx, env, p.quick)
		} else if measure := derivedExperiments[x.Name]; measure != nil {
			part, derive, err = measure(ctx, env, p.quick)
		} else {
			err = fmt.Errorf("no way to run %s", x.Name)
		}
		if err != nil {
			if ctx.Err() != nil {
				return experiment.Part{}, ctx.Err()
			}
			fmt.Fprintf(p.stderr, "ctxbench: %s failed: %v\n", x.Name, err)
			return experiment.Part{Failures: []result.Failure{{Name: x.Name, Error: err.Error()}}}, nil
		}
		p.own[i], p.derive[i] = len(part.Replications), derive
		return part, nil
	}
}

// replications puts every experiment's replications in the document in
// the order the experiments ran: each program's own where its step put
// them, each derived experiment's from the document.
func (p *published) replications(d *result.Document) {
	own := d.Replications
	var out []result.Replication
	for i := range p.xs {
		if p.derive[i] != nil {
			out = append(out, p.derive[i](d)...)
			continue
		}
		out = append(out, own[:p.own[i]]...)
		own = own[p.own[i]:]
	}
	d.Replications = out
}

// hierarchy measures every row of the published table, and the creation
// and memory claims at full scale, into the document.
func hierarchy(ctx context.Context, env experiment.Env, quick bool) (experiment.Part, deriveReplications, error) {
	rows, spawnKinds, memoryKinds := replicate.HierarchyCells()
	lo := ladder.Options{PerBench: map[string][]model.Placement{},
		Sampling: schedule.Options{Runs: hierarchyRuns, SamplesPerBlock: hierarchyPerBlock, Warmup: 1, MinTime: hierarchyMinTime,
			PerfCheck: env.Environment.Perf.Software}}
	if quick {
		lo.Sampling.Runs, lo.Sampling.SamplesPerBlock, lo.Sampling.MinTime = quickHierarchyRuns, quickHierarchyPerBlock, quickHierarchyMinTime
	}
	var part experiment.Part
	for _, r := range rows {
		b := catalog.Lookup(r[0])
		p, err := model.ParsePlacement(r[1])
		if b == nil || err != nil {
			part.Failures = append(part.Failures, result.Failure{Name: r[0], Placement: r[1], Error: "no such benchmark"})
			continue
		}
		lo.Benches = append(lo.Benches, b)
		lo.PerBench[b.Name] = []model.Placement{p}
	}
	fmt.Fprintf(env.Log, "hierarchy: %d switch rows\n", len(lo.Benches))
	got, err := ladder.Run(ctx, env, lo)
	var none *ladder.NothingToRun
	switch {
	case errors.As(err, &none):
		part.Skipped = append(part.Skipped, got.Skipped...)
	case err != nil:
		return part, nil, err
	default:
		part.Add(got)
	}
	so := lifecycle.Options{PinLast: true, NoSettle: true}
	if quick {
		so.Samples, so.N = quickHierarchySpawnSamples, quickMemoryN
	}
	fmt.Fprintln(env.Log, "hierarchy: creation and memory")
	sp, err := lifecycle.Spawn(ctx, env, spawnKinds, so)
	if err != nil {
		return part, nil, err
	}
	so.Samples = 0
	mem, err := lifecycle.Memory(ctx, env, memoryKinds, so)
	if err != nil {
		return part, nil, err
	}
	part.Add(sp)
	part.Add(mem)
	return part, hierarchyReplications, nil
}

// hierarchyReplications derives the rows' figures as the default ladder
// derives its own (the goroutine baseline and each row's multiple, the
// claims beside creation and memory), then sets them beside the published
// table.
func hierarchyReplications(d *result.Document) []result.Replication {
	deriveLadder(d)
	replicate.Claims(d)
	return replicate.HierarchyReplications(d)
}

// hotPotato runs the published 400-context rings with the ring experiment,
// one core type at a time, all members pinned to one CPU of that type (the
// publication does not say how it placed them; one CPU gives the direct
// cost), into the document.
func hotPotato(ctx context.Context, env experiment.Env, quick bool) (experiment.Part, deriveReplications, error) {
	rounds, runs, perBlock := replicate.HotPotatoSampling(quick)
	if len(env.CPUs) == 0 {
		return experiment.Part{}, nil, fmt.Errorf("no CPUs to run on")
	}
	var part experiment.Part
	var points []replicate.HotPotatoPoint
	for _, g := range replicate.CoreGroups(env.Environment, env.CPUs) {
		cpu := g.CPUs[len(g.CPUs)-1]
		o := ring.Options{
			Kinds: []ring.Kind{ring.Thread, ring.Process}, Tasks: []int{replicate.HotPotatoTasks}, WorkingSets: []int64{0},
			Placements: []model.Placement{model.SameCPU},
			Runs:       runs, SamplesPerBlock: perBlock, Warmup: 1, Rounds: rounds, MinTime: hotPotatoMinTime,
			StackBytes: catalog.DefaultRingStack, PerfCheck: env.Environment.Perf.Hardware,
		}
		cells, skipped, err := ring.Plan(o, []int{cpu})
		if err != nil {
			return part, nil, err
		}
		if len(skipped) > 0 {
			return part, nil, fmt.Errorf("%s: %s", skipped[0].Name, skipped[0].Error)
		}
		fmt.Fprintf(env.Log, "hot-potato-ring (%s): 400 threads and 400 processes on CPU %d\n", g.Name, cpu)
		got, err := ring.Run(ctx, env, cells, o)
		if err != nil {
			return part, nil, err
		}
		if len(got.Failures) > 0 {
			return part, nil, fmt.Errorf("%s: %s", got.Failures[0].Name, got.Failures[0].Error)
		}
		if pt := hotPotatoPoint(got.Rings, g, cpu); pt.Thread == nil || pt.Process == nil {
			return part, nil, fmt.Errorf("the rings of %s did not both run", g.Name)
		}
		part.Add(got)
		points = append(points, replicate.HotPotatoPoint{Group: g, CPU: cpu})
	}
	return part, func(d *result.Document) []result.Replication {
		var pts []replicate.HotPotatoPoint
		for _, pt := range points {
			// The step made sure both rings of every point ran.
			if pt := hotPotatoPoint(d.Rings, pt.Group, pt.CPU); pt.Thread != nil && pt.Process != nil {
				pts = append(pts, pt)
			}
		}
		return []result.Replication{replicate.HotPotato(d.Environment, pts, float64(rounds)*float64(runs))}
	}, nil
}

// hotPotatoPoint finds a core type's thread and process rings among rings:
// the published size, pinned to cpu.
func hotPotatoPoint(rings []result.Ring, g replicate.CoreGroup, cpu int) replicate.HotPotatoPoint {
	pt := replicate.HotPotatoPoint{Group: g, CPU: cpu}
	for i := range rings {
		r := &rings[i]
		if r.Tasks != replicate.HotPotatoTasks || len(r.CPUs) == 0 || r.CPUs[0] != cpu {
			continue
		}
		switch r.Kind {
		case string(ring.Thread):
			pt.Thread = r
		case string(ring.Process):
			pt.Process = r
		}
	}
	return pt
}
