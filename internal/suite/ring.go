package suite

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/experiment/ring"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
)

// RingKind is a kind of ring member: goroutine, thread, process,
// process-mt or container.
type RingKind = ring.Kind

// ParseRingKind, ParseRingTasks, ParseRingWorkingSets and ParseRingBytes
// read the ring's flags in the ring experiment's terms.
func ParseRingKind(s string) (RingKind, error)             { return ring.ParseKind(s) }
func ParseRingTasks(items []string) ([]int, error)         { return ring.ParseTasks(items) }
func ParseRingWorkingSets(items []string) ([]int64, error) { return ring.ParseWorkingSets(items) }
func ParseRingBytes(s string) (int64, error)               { return ring.ParseBytes(s) }

// ContainerPresets are what a container ring's members can be started
// into, in order.
func ContainerPresets() []string { return container.PresetNames() }

// ringRuns are the ring presets' samples and samples per block: fewer
// samples than the ladder's, since every block builds the whole ring again
// — but six blocks at least by default, the fewest whose median interval
// reaches 95% (1 − 2·0.5⁶ = 96.9%; five reach only 93.8%). --quick keeps
// two blocks and prints the level it reached.
var ringRuns = map[string][2]int{"quick": {6, 3}, "default": {30, 5}, "thorough": {60, 6}}

// ringWarmup is the least warm-up of every block of a process ring.
const ringWarmup = 40 * time.Millisecond

// RingSweep is the ring experiment's options, which the command line
// fills from its flags (kinds, sizes, working sets, placements, stack,
// links, container preset); PlanRing sets their sampling.
type RingSweep = ring.Options

// RingOptions are a ring sweep: the experiment's own options, with the
// flags' sampling and what the suite adds around them.
type RingOptions struct {
	RingSweep
	CPUs []int
	// Levels are the levels of the CPU topology a level placement runs at
	// (nil: read from this machine where one is asked for).
	Levels []result.TopologyLevel
	// Sampling is the flags' (the rounds per sample are its Iterations);
	// the ring's own samples, blocks and warm-up replace the preset's
	// where the flags gave none (Sampling.Given), Settings is the record
	// the flags made.
	Sampling Sampling
	Settings result.Settings
}

// Ring is a planned ring sweep: what it records and how many points it
// measures, before anything is measured.
type Ring struct {
	Settings result.Settings
	Points   int
	o        ring.Options
	cells    []ring.Cell
	skipped  []result.Failure
}

// PlanRing plans the sweep. Every error is the input's fault: a point the
// machine's limits refuse, a kind that cannot run, nothing to run at all.
func PlanRing(o RingOptions) (*Ring, error) {
	smp := o.Sampling
	// The base preset, not the recorded one: "--quick --runs 3" is
	// recorded as custom but still takes quick's samples per block.
	if d := ringRuns[smp.Preset]; d[0] > 0 {
		if !smp.Given.Runs {
			smp.Runs = d[0]
		}
		if !smp.Given.SamplesPerBlock {
			smp.SamplesPerBlock = d[1]
		}
	}
	// Process rings are built from freshly exec'd processes in every block,
	// and run slower for their first tens of milliseconds: beside lmbench's
	// lat_ctx (8 alternating rounds, 8 processes) ctxbench read 1.022x with
	// one 2 ms warm-up sample and 1.004x with twenty. So unless --warmup
	// says otherwise, a process ring warms up for ringWarmup.
	if !smp.Given.Warmup && smp.MinTime > 0 && slices.ContainsFunc(o.Kinds, func(k ring.Kind) bool {
		return k == ring.Process || k == ring.ProcessMT || k == ring.Container
	}) {
		smp.Warmup = max(smp.Warmup, int((ringWarmup+smp.MinTime-1)/smp.MinTime))
	}
	set := smp.Record(o.Settings)
	ro := o.RingSweep
	if len(ro.Placements) == 0 {
		ro.Placements = []model.Placement{model.SameCPU}
		set.Placements = []string{string(model.SameCPU)}
	}
	ro.Runs, ro.SamplesPerBlock, ro.Warmup, ro.MinTime = smp.Runs, smp.SamplesPerBlock, smp.Warmup, smp.MinTime
	ro.Rounds, ro.Timeout, ro.PerfCheck = smp.Iterations, smp.Timeout, smp.PerfCheck
	if o.Levels == nil && slices.ContainsFunc(ro.Placements, model.Placement.IsLevel) {
		o.Levels = machine.Topology(machine.Options{})
	}
	ro.Topology = experiment.Topology(o.Levels)
	cells, skipped, err := ring.Plan(ro, o.CPUs)
	if err != nil {
		return nil, err
	}
	if len(cells) == 0 {
		if len(skipped) > 0 {
			return nil, fmt.Errorf("nothing to run: %s", skipped[0].Error)
		}
		return nil, fmt.Errorf("nothing to run")
	}
	return &Ring{Settings: set, Points: len(cells), o: ro, cells: cells, skipped: skipped}, nil
}

// Spec is the sweep's session: the points the plan kept, and those it
// skipped with the reason.
func (r *Ring) Spec(spec session.Spec) session.Spec {
	spec = begin(spec, ring.FakeExecutor{Seed: spec.Seed})
	spec.Steps = []session.Step{func(ctx context.Context, env experiment.Env) (experiment.Part, error) {
		part, err := ring.Run(ctx, env, r.cells, r.o)
		part.Skipped = append(part.Skipped, r.skipped...)
		return part, err
	}}
	// A sweep whose every point failed still has a rings section: an empty
	// array in the JSON, never a missing one.
	spec.Derive = []func(*result.Document){func(d *result.Document) {
		if d.Rings == nil {
			d.Rings = []result.Ring{}
		}
	}}
	return spec
}
