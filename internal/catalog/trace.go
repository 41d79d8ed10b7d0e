package catalog

// trace.go: a block run with the kernel phase tracer attached (ctxbench
// explain). The worker that runs the block opens the tracer itself — it
// is root, on the block's CPU, and knows every process of the block: its
// own, and each partner's as partner.Start creates it — so nothing of the
// tracing crosses a process boundary but the per-hop phases it read.

import (
	"context"
	"fmt"
	"os"

	"github.com/ctxbench/ctxbench/internal/bpf"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/partner"
)

// phaseModels are the phase models a benchmark's Phases may name.
var phaseModels = map[string]func(*bpf.Matrix, uint64) bpf.Breakdown{
	"pipe":  bpf.PipeHop,
	"futex": bpf.FutexHop,
	"yield": bpf.YieldHop,
}

// traced wraps a benchmark's Run: a request with Trace set runs the block
// with the tracer attached and returns its phases beside the samples.
func traced(b *model.Benchmark, run func(context.Context, model.Request) (model.Response, error)) func(context.Context, model.Request) (model.Response, error) {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		if !req.Trace {
			return run(ctx, req)
		}
		split, ok := phaseModels[b.Phases]
		if !ok || req.CPUA < 0 || req.CPUA != req.CPUB {
			return model.Response{}, fmt.Errorf("%s cannot be explained at %s: a phase model reads one CPU's hops", b.Name, req.Placement)
		}
		t, err := bpf.Open(bpf.Options{Exclude: []bpf.Group{bpf.GroupKVM}})
		if err != nil {
			return model.Response{}, err
		}
		defer t.Close() // detaches everything; nothing is pinned, so a killed worker leaves nothing either
		if err := t.Track(os.Getpid()); err != nil {
			return model.Response{}, err
		}
		var trackErr error
		ctx = partner.WithStartHook(ctx, func(pid int) {
			if err := t.Track(pid); err != nil && trackErr == nil {
				trackErr = err
			}
		})
		if err := t.Reset(); err != nil {
			return model.Response{}, err
		}
		resp, err := run(ctx, req)
		if err != nil {
			return resp, err
		}
		if trackErr != nil {
			return model.Response{}, fmt.Errorf("tracking a partner: %w", trackErr)
		}
		s, err := t.Snapshot()
		if err != nil {
			return model.Response{}, err
		}
		hops := uint64(float64(req.Iters) * float64(req.Samples+req.Warmup) * b.HopsPerOp)
		resp.Explain = explainOf(split(s.CPU(req.CPUA), hops))
		return resp, nil
	}
}

func explainOf(bd bpf.Breakdown) *model.Explain {
	e := &model.Explain{Method: bd.Method, Model: bd.Model, Hops: bd.Hops, HopNsPerHop: bd.HopNsPerHop,
		OtherNsPerHop: bd.OtherNsPerHop, UnattributedNsPerHop: bd.UnattributedNsPerHop, Closure: bd.Closure,
		Counts: bd.PerHop}
	for _, p := range bd.Phases {
		e.Phases = append(e.Phases, model.ExplainPhase{Name: p.Name, What: p.What, Probes: p.Probes, NsPerHop: p.NsPerHop, PerHop: p.PerHop})
	}
	for _, g := range bd.Gaps {
		e.Gaps = append(e.Gaps, model.ExplainGap{Work: g.Work, Inside: g.Inside, Needs: g.Needs})
	}
	return e
}
