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
	"github.com/ctxbench/ctxbench/internal/phase"
)

// noModel says why a benchmark has no phase model at its placement.
func noModel(phases string, cross bool) string {
	switch {
	case phases == "":
		return "it has no phase model"
	case cross:
		return "across CPUs only pipe, eventfd and futex ping-pongs have a phase model (a yield or a VM exit has no partner on the other CPU)"
	}
	return "a phase model reads the hops of pinned contexts"
}

// traced wraps a benchmark's Run: a request with Trace set runs the block
// with the tracer attached and returns its phases beside the samples.
func traced(b *model.Benchmark, run func(context.Context, model.Request) (model.Response, error)) func(context.Context, model.Request) (model.Response, error) {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		if !req.Trace {
			return run(ctx, req)
		}
		return runTraced(ctx, b, req, run)
	}
}

// runTraced is one traced block: it checks that b has a phase model at the
// block's placement, opens the tracer, tracks the block's processes over
// the run's window, and reads the phases (or, for a load block, only the
// captured hops) once the block is done.
func runTraced(ctx context.Context, b *model.Benchmark, req model.Request, run func(context.Context, model.Request) (model.Response, error)) (model.Response, error) {
	cross := req.CPUA >= 0 && req.CPUB >= 0 && req.CPUA != req.CPUB
	split, ok := phase.Split(b.Phases, cross)
	if req.Load != nil {
		// A load block is traced for its captured hops alone (below),
		// at any placement; traced without capture, it is what the
		// capture's cost is measured against.
		ok = true
	}
	if !ok || req.CPUA < 0 && req.Load == nil {
		return model.Response{}, fmt.Errorf("%s cannot be explained at %s: %s", b.Name, req.Placement, noModel(b.Phases, cross))
	}
	opts, err := tracerOptions(b, req)
	if err != nil {
		return model.Response{}, err
	}
	t, err := bpf.Open(opts)
	if err != nil {
		return model.Response{}, err
	}
	defer t.Close() // detaches everything; nothing is pinned, so a killed worker leaves nothing either
	if err := t.Track(os.Getpid()); err != nil {
		return model.Response{}, err
	}
	var hookErr error
	keep := func(err error) {
		if err != nil && hookErr == nil {
			hookErr = err
		}
	}
	// The window starts now, and again when each partner is ready, so
	// the partners' start-up (an exec and a Go runtime's) is not part
	// of the hops.
	ctx = partner.WithHooks(ctx, partner.Hooks{
		Started: func(pid int) { keep(t.Track(pid)) },
		Ready:   func() { keep(t.Reset()) },
	})
	if err := t.Reset(); err != nil {
		return model.Response{}, err
	}
	resp, err := run(ctx, req)
	if err != nil {
		return resp, err
	}
	if hookErr != nil {
		return model.Response{}, fmt.Errorf("tracing the partners: %w", hookErr)
	}
	s, err := t.Snapshot()
	if err != nil {
		return model.Response{}, err
	}
	if req.Capture != nil {
		hops, st, err := t.Captured()
		if err != nil {
			return model.Response{}, err
		}
		split, _ := phase.SplitHop(b.Phases)
		resp.Capture = captureOf(*req.Capture, hops, st, split, req.Load == nil)
	}
	if req.Load != nil {
		// A load block's hops are its wake-ups, among requests that
		// found their context awake and the contexts' work: the
		// matrices are no ping-pong's, and only the capture is read.
		return resp, nil
	}
	hops := uint64(float64(req.Iters) * float64(req.Samples+req.Warmup) * b.HopsPerOp)
	m := s.CPU(req.CPUA)
	if cross {
		m = s.Pair(req.CPUA, req.CPUB) // both timelines: the model joins them
	}
	if n := m.Events[phase.KindKVMUserspaceExit]; b.Phases == "kvm-exit" && n > 0 {
		// The block's self-check makes exits of its own: a hop is an
		// exit the tracer counted, not a nominal one.
		hops = n
	}
	resp.Explain = explainOf(split(m, hops))
	addEventCounts(resp.Explain, b, m, hops)
	return resp, nil
}

// tracerOptions are the tracer's settings for a block of b: the probe set
// req asks for (without the KVM probes where b has no VM exit to see) and
// the flight recorder's, when req asks for a capture.
func tracerOptions(b *model.Benchmark, req model.Request) (bpf.Options, error) {
	var exclude []bpf.Group
	if b.Phases != "kvm-exit" && b.Phases != "vm-switch-user" {
		exclude = []bpf.Group{bpf.GroupKVM} // fewer probes, less probe cost per hop
	}
	switch req.Probes {
	case model.ProbesFull:
	case model.ProbesLight:
		// The core alone (syscalls, wakeup, switch): the boundaries
		// between them merge, interrupts stay inside the phases.
		exclude = append(exclude, bpf.GroupSched, bpf.GroupSwitch, bpf.GroupInterrupts)
	default:
		return bpf.Options{}, fmt.Errorf("unknown probe set %q (want %q or %q)", req.Probes, "full", model.ProbesLight)
	}
	opts := bpf.Options{Exclude: exclude}
	if req.Capture != nil {
		c, err := captureOptions(b, req)
		if err != nil {
			return bpf.Options{}, err
		}
		opts.Capture = c
	}
	return opts, nil
}

// addEventCounts puts into e, per hop, the events of m that a claim about
// the switch can be checked against (TLB flushes, FPU saves and restores,
// and for a VM exit the exits and their reasons).
func addEventCounts(e *model.Explain, b *model.Benchmark, m *phase.Matrix, hops uint64) {
	if hops == 0 {
		return
	}
	for name, k := range map[string]phase.Kind{"tlb_flush": phase.KindTLBFlush, "fpu_save": phase.KindFPUSave, "fpu_restore": phase.KindFPULoad} {
		e.Counts[name] = float64(m.Events[k]) / float64(hops)
	}
	e.Counts["tlb_switch_flushed"] = float64(m.TLBFlushes[0]) / float64(hops)
	e.Counts["tlb_switch_kept"] = float64(m.TLBFlushes[phase.TLBKeptOnSwitch]) / float64(hops)
	if b.Phases == "kvm-exit" {
		e.Counts["kvm_exit"] = float64(m.Events[phase.KindKVMExit]) / float64(hops)
		e.Counts["kvm_userspace_exit"] = float64(m.Events[phase.KindKVMUserspaceExit]) / float64(hops)
		for _, r := range m.KVMExits {
			e.Counts[fmt.Sprintf("kvm_exit_reason_%d", r.Reason)] = float64(r.Count) / float64(hops)
		}
		if len(m.KVMExits) == 0 {
			e.Notes = append(e.Notes, "no exit reasons recorded: kvm_exit never fired (a PVM backend traps through its switcher and has no kvm_exit tracepoint)")
		}
	}
}

func explainOf(bd phase.Breakdown) *model.Explain {
	e := &model.Explain{Method: bd.Method, Model: bd.Model, Hops: bd.Hops, HopNsPerHop: bd.HopNsPerHop, FiringsPerHop: bd.FiringsPerHop,
		OtherNsPerHop: bd.OtherNsPerHop, UnattributedNsPerHop: bd.UnattributedNsPerHop, Closure: bd.Closure,
		Counts: map[string]float64{}, Notes: bd.Notes}
	for k, v := range bd.PerHop {
		e.Counts[k] = v
	}
	for _, p := range bd.Phases {
		e.Phases = append(e.Phases, wirePhase(p))
	}
	for _, p := range bd.Parallel {
		e.Parallel = append(e.Parallel, wirePhase(p))
	}
	for i, u := range bd.Unattributed { // most time first
		if i == 5 || bd.Hops == 0 {
			break
		}
		e.Unexplained = append(e.Unexplained, model.ExplainPhase{Name: u.From.String() + " -> " + u.To.String(),
			Probes: u.From.Probe() + " -> " + u.To.Probe(), NsPerHop: float64(u.Ns) / float64(bd.Hops), PerHop: float64(u.Count) / float64(bd.Hops)})
	}
	for _, g := range bd.Gaps {
		e.Gaps = append(e.Gaps, model.ExplainGap{Work: g.Work, Inside: g.Inside, Needs: g.Needs})
	}
	return e
}

// wirePhase is a phase as the worker sends it: its label, its identity
// (kinds, side, the events that bound it) and its figures.
func wirePhase(p phase.Phase) model.ExplainPhase {
	w := model.ExplainPhase{Name: p.Name, What: p.What, Probes: p.Probes, Kinds: p.Kinds, NsPerHop: p.NsPerHop, PerHop: p.PerHop,
		Firings: p.Firings, CPU: string(p.Side)}
	if p.From != phase.KindNone {
		w.From = p.From.String()
	}
	if p.To != phase.KindNone {
		w.To = p.To.String()
	}
	return w
}

// captureOptions are the flight recorder's settings for a block of b:
// its threshold, the syscalls its hops begin and end in, and how often a
// hop is sampled so that a block gives about req.Capture.Samples of them.
func captureOptions(b *model.Benchmark, req model.Request) (*bpf.CaptureOptions, error) {
	wake, sleep, ok := phase.HopCalls(b.Phases)
	if !ok {
		return nil, fmt.Errorf("%s: its hops wake no task (a yield, a VM's exit): there is no hop to capture", b.Name)
	}
	var expected float64
	if p := req.Load; p != nil {
		expected = p.Rate * float64(p.DurationNS) / 1e9
	} else {
		expected = float64(req.Iters) * float64(req.Samples+req.Warmup) * b.HopsPerOp
	}
	every := uint32(1)
	if n := req.Capture.Samples; n > 0 && expected > float64(n) {
		every = uint32(expected / float64(n))
	}
	th := req.Capture.Threshold
	return &bpf.CaptureOptions{AboveNs: uint64(th.AboveNs), Quantile: th.Quantile, SampleEvery: every, Wake: wake, Sleep: sleep}, nil
}
