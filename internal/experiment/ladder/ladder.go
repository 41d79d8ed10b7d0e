// Package ladder is the switch ladder experiment: every benchmark at every
// placement asked for, each cell measured in interleaved blocks by the
// scheduler, each cell's blocks turned into one verified figure
// (Aggregate), and the figures derived from several rows.
package ladder

import (
	"context"
	"math"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Options say what to run and how to sample it.
type Options struct {
	Benches    []*model.Benchmark
	Placements []model.Placement // none: each benchmark's ladder placements
	// PerBench, when set for a benchmark, are its placements instead.
	PerBench map[string][]model.Placement
	// Sampling is the scheduler's options; how blocks are run (executor,
	// progress, seed, dry run, cleanup) is the Env's Runner.
	Sampling schedule.Options
	// Variants, for an interleaved A/B, measure every cell once per
	// variant ("A", "B"), the variants' blocks interleaved round by round
	// like any cells (Sampling.Before sets each up); nil: one of each.
	Variants []string
}

// NothingToRun says no cell of the plan can run here; the command line
// reports it as bad input.
type NothingToRun struct{ Why string }

func (e *NothingToRun) Error() string { return "nothing to run: " + e.Why }

// Run measures the plan and aggregates every cell.
func Run(ctx context.Context, env experiment.Env, o Options) (experiment.Part, error) {
	var part experiment.Part
	var cells []schedule.Cell
	var skips []schedule.Skip
	topo := env.Topology()
	for _, b := range o.Benches {
		ps := o.Placements
		if p, ok := o.PerBench[b.Name]; ok {
			ps = p
		}
		c, s := topo.Plan([]*model.Benchmark{b}, ps, env.CPUs)
		cells, skips = append(cells, c...), append(skips, s...)
	}
	if len(o.Variants) > 0 && len(cells) > 0 {
		var out []schedule.Cell
		for _, c := range cells {
			for _, v := range o.Variants {
				vc := c
				vc.Variant = v
				vc.Name = c.Bench.Name + " [" + v + "]"
				out = append(out, vc)
			}
		}
		cells = out
	}
	if len(cells) == 0 {
		why := "no benchmark is available here"
		if len(skips) > 0 {
			why = skips[0].Bench + " " + skips[0].Placement + ": " + skips[0].Reason
		}
		for _, s := range skips {
			part.Skipped = append(part.Skipped, result.Failure{Name: s.Bench, Placement: s.Placement, Error: s.Reason})
		}
		return part, &NothingToRun{why}
	}
	if env.Promise != nil && len(o.Variants) == 0 {
		planned := make([][2]string, len(cells))
		for i, c := range cells {
			planned[i] = [2]string{c.Bench.Name, string(c.Placement)}
		}
		env.Promise(planned)
	}
	so := o.Sampling
	if so.Precision != nil {
		p := *so.Precision
		p.Width = Width
		if env.Learned != nil {
			// Where the machine has learned how far its sittings move, the
			// target is the reproducibility interval's width, not the
			// sitting's own.
			p.Width = func(r schedule.CellRun) float64 { return reproWidth(r, env.Learned, false) }
			p.Floor = func(r schedule.CellRun) float64 { return reproWidth(r, env.Learned, true) }
		}
		so.Precision = &p
	}
	runs, err := schedule.Run(ctx, env.Runner, cells, so)
	if err != nil {
		return part, err
	}
	for _, r := range runs {
		if r.Err != nil {
			part.Failures = append(part.Failures, result.Failure{Name: r.Cell.Bench.Name, Placement: string(r.Cell.Placement), Error: r.Err.Error()})
			continue
		}
		res := Aggregate(r, env.Host)
		resolution(&res, env.Environment.CPU.TSC)
		part.Results = append(part.Results, res)
	}
	for _, s := range skips {
		part.Skipped = append(part.Skipped, result.Failure{Name: s.Bench, Placement: s.Placement, Error: s.Reason})
	}
	return part, nil
}

// Width is a cell's relative interval half-width from its blocks so far
// (the larger side, as the tables print it): what --target-ci narrows.
// The per-sample figure's scale (ops and hops per sample) cancels out.
func Width(run schedule.CellRun) float64 {
	s := summarize(run)
	if s.Median <= 0 || s.Confidence == 0 {
		return math.Inf(1)
	}
	return math.Max(s.CIHigh-s.Median, s.Median-s.CILow) / s.Median
}

// reproWidth is the relative half-width of the cell's reproducibility
// interval from its blocks so far and the learned between-sitting
// component (Width where none is learned); with floor, the width it would
// have with a perfectly precise sitting.
func reproWidth(run schedule.CellRun, learned func(name, placement string) (stats.Between, bool), floor bool) float64 {
	b, ok := learned(run.Cell.Bench.Name, string(run.Cell.Placement))
	if !ok {
		if floor {
			return 0
		}
		return Width(run)
	}
	s := summarize(run)
	lo, hi := s.CILow, s.CIHigh
	if floor {
		lo, hi = s.Median, s.Median
	}
	rp, ok := stats.Reproducibility(s.Median, lo, hi, s.Confidence, s.Blocks, b, stats.Confidence)
	if !ok {
		if floor {
			return 0
		}
		return math.Inf(1)
	}
	return math.Max(rp.High-s.Median, s.Median-rp.Low) / s.Median
}

// summarize is the cell's figure from its blocks so far.
func summarize(run schedule.CellRun) stats.Summary {
	var v []float64
	var sizes []int
	for _, b := range run.Blocks {
		it := run.Iters
		if b.Resp.Iters > 0 {
			it = b.Resp.Iters
		}
		for _, ns := range b.Resp.NS {
			v = append(v, float64(ns)/float64(max(it, 1)))
		}
		sizes = append(sizes, len(b.Resp.NS))
	}
	return stats.SummarizeBlocks(v, sizes)
}
