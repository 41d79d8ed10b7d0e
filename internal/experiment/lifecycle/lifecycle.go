// Package lifecycle is the creation and memory experiment: what it costs
// to create a context of each kind (goroutine ... fork from 1 GiB ...
// container, VM, other runtimes' tasks) and what a parked one costs to keep.
// Each kind is a hidden catalog entry (spawn/KIND, memory/KIND) that runs
// in a worker like every block, so a fork from a 1 GiB parent or 100,000
// parked goroutines never happen in the process that runs the harness.
package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Options control the creation and memory measurements.
type Options struct {
	Samples  int            // creation samples per kind; 0 = each kind's default
	PinLast  bool           // pin the creating thread to the last CPU
	N        map[string]int // memory: contexts to hold per kind; absent = the kind's default
	NoSettle bool           // memory: don't wait for /proc/meminfo to settle
}

// lookup finds a measurement (tests stand in their own).
var lookup = catalog.Lookup

// SpawnKinds and MemoryKinds list the measurements, in catalog order.
func SpawnKinds() []string  { return kinds(catalog.SpawnPrefix) }
func MemoryKinds() []string { return kinds(catalog.MemoryPrefix) }

func kinds(prefix string) []string {
	var out []string
	for _, b := range catalog.Entries() {
		if k, ok := strings.CutPrefix(b.Name, prefix); ok {
			out = append(out, k)
		}
	}
	return out
}

// SpawnBlocks is how many blocks (workers) a kind's creation samples are
// taken in when their number is given: blocks, not samples, are the unit
// of the interval, and six is the fewest that give a 95% one. With each
// kind's own number of samples (a fork from 1 GiB takes a few, a goroutine
// hundreds) a kind runs in one worker and its interval says so.
const SpawnBlocks = stats.MinBlocks95

// Spawn measures creation cost.
func Spawn(ctx context.Context, env experiment.Env, kinds []string, o Options) (experiment.Part, error) {
	cpu := -1
	if o.PinLast {
		cpu = env.CPUs[len(env.CPUs)-1]
	}
	blocks := 1
	if o.Samples >= SpawnBlocks {
		blocks = SpawnBlocks
	}
	return run(ctx, env, catalog.SpawnPrefix, kinds, 10*time.Minute, max(o.Samples, 1), blocks, func(c *schedule.Cell) { c.CPUA = cpu },
		func(c schedule.Cell, r model.Response, n int) error {
			if r.Spawn == nil {
				return errors.New("the worker returned no creation data")
			}
			return schedule.CheckSamples(r, n)
		},
		func(part *experiment.Part, c schedule.Cell, bs []schedule.Block) {
			first := bs[0].Resp.Spawn
			s := result.Spawn{Name: c.Bench.Name, Kind: first.Context, Description: c.Bench.Description, Op: first.Op,
				Label: first.Label, Notes: first.Notes}
			var sizes []int
			for _, b := range bs {
				for _, ns := range b.Resp.NS {
					s.Samples = append(s.Samples, float64(ns))
				}
				sizes = append(sizes, len(b.Resp.NS))
			}
			s.PerCreateNS, s.BlockSamples = stats.SummarizeBlocks(s.Samples, sizes), sizes
			part.Spawn = append(part.Spawn, s)
		}, o.Samples == 0)
}

// Memory measures what contexts cost to keep, one worker per kind.
func Memory(ctx context.Context, env experiment.Env, kinds []string, o Options) (experiment.Part, error) {
	return run(ctx, env, catalog.MemoryPrefix, kinds, 15*time.Minute, 1, 1,
		func(c *schedule.Cell) {
			c.Memory = &model.MemoryParams{N: o.N[strings.TrimPrefix(c.Bench.Name, catalog.MemoryPrefix)], NoSettle: o.NoSettle}
		},
		func(_ schedule.Cell, r model.Response, _ int) error {
			if r.Memory == nil {
				return errors.New("the worker returned no memory data")
			}
			return nil
		},
		func(part *experiment.Part, c schedule.Cell, bs []schedule.Block) {
			part.Memory = append(part.Memory, memoryResult(c.Bench.Name, c.Bench.Description, *bs[0].Resp.Memory))
		}, false)
}

// run measures each kind in blocks worker blocks through the scheduler
// (interleaved across kinds); a kind that cannot run here is skipped (with
// why), not failed, so a ladder without root or KVM still succeeds.
func run(ctx context.Context, env experiment.Env, prefix string, kinds []string, timeout time.Duration, samples, blocks int,
	setup func(*schedule.Cell), check func(schedule.Cell, model.Response, int) error,
	take func(*experiment.Part, schedule.Cell, []schedule.Block), anySamples bool) (experiment.Part, error) {
	var part experiment.Part
	var cells []schedule.Cell
	for _, k := range kinds {
		name := prefix + k
		b := lookup(name)
		if b == nil {
			part.Failures = append(part.Failures, result.Failure{Name: name, Error: "no such measurement"})
			continue
		}
		if ok, why := b.Available(); !ok {
			part.Skipped = append(part.Skipped, result.Failure{Name: name, Error: why})
			continue
		}
		c, err := schedule.Place(b, model.Unpinned, env.CPUs)
		if err != nil {
			part.Failures = append(part.Failures, result.Failure{Name: name, Error: err.Error()})
			continue
		}
		setup(&c)
		cells = append(cells, c)
	}
	if len(cells) == 0 {
		return part, nil
	}
	per := max(1, samples/blocks) // at least `blocks` blocks (the last may be short)
	so := schedule.Options{Runs: max(samples, 1), SamplesPerBlock: per, NoCalibration: true,
		Timeout: schedule.FixedTimeout(timeout),
		Check:   func(c schedule.Cell, r model.Response, n int) error { return check(c, r, n) },
	}
	if anySamples {
		// Each kind takes its own default number of samples, in one block.
		so.Samples = func(schedule.Cell) int { return 0 }
		so.Check = func(c schedule.Cell, r model.Response, _ int) error { return check(c, r, 0) }
	}
	runs, err := schedule.Run(ctx, env.Runner, cells, so)
	if err != nil {
		return part, err
	}
	for _, r := range runs {
		if r.Err == nil && len(r.Blocks) == 0 {
			r.Err = fmt.Errorf("no block ran")
		}
		if r.Err != nil {
			part.Failures = append(part.Failures, result.Failure{Name: r.Cell.Bench.Name, Error: r.Err.Error()})
			continue
		}
		take(&part, r.Cell, r.Blocks)
	}
	return part, nil
}

func memoryResult(name, what string, m model.MemoryData) result.Memory {
	r := result.Memory{Name: name, Kind: m.Context, Description: what, Label: m.Label,
		Contexts: m.Reached, Requested: m.Requested, RSSBytes: m.RSS, PSSBytes: m.PSS,
		KernelBytes: m.KernelStack + m.PageTables, SlabBytes: m.Slab, VirtBytes: m.Virtual,
		ChargedBytes: m.Charged, ChargedUserBytes: m.ChargedUser, ChargedKernelBytes: m.ChargedKernel,
		CreateNS: m.CreateNS, Limit: m.Limit, Limits: m.Limits, Notes: m.Notes,
		RuntimeBytes: m.Runtime, RuntimeMetric: m.RuntimeMetric}
	if r.Label == "" {
		r.Label = what
	}
	return r
}
