package experiment

import (
	"math"
	"testing"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

var (
	work = model.HopPhase{Name: "read() returns", Cause: model.CauseWork, Kinds: []model.PhaseKind{model.PhaseSyscall}, From: "sched-exit", To: "exit-read"}
	tick = model.HopPhase{Name: "interrupts: timer", Cause: model.CauseInterrupts, Kinds: []model.PhaseKind{model.PhaseInterrupts}}
)

func with(p model.HopPhase, ns float64) model.HopPhase { p.Ns = ns; p.Count = 1; return p }

func behind(pid int, ns float64) model.HopPhase {
	return model.HopPhase{Name: "another task ran: spinner", Cause: model.CauseOtherTask, Task: &model.Task{Comm: "spinner", PID: pid}, Ns: ns, Count: 1}
}

// captureBlocks are six blocks whose typical hop is 4 µs of work and whose
// slow hops add a spinner's 100–150 µs and, in some, a tick; one sampled
// slow hop in each stands for three.
func captureBlocks() []schedule.Block {
	var out []schedule.Block
	for r := range 6 {
		extra := 100000 + 10000*float64(r)
		slow := []model.CapturedHop{
			{Ns: 4000 + extra + 2000, Slow: true, Phases: []model.HopPhase{with(work, 4000), behind(500+r, extra), with(tick, 2000)}},
			{Ns: 4000 + extra, Slow: true, Phases: []model.HopPhase{with(work, 4000), behind(500+r, extra)}},
			{Ns: 4000 + extra/2, Slow: true, Weight: 3, Phases: []model.HopPhase{with(work, 4000), behind(500+r, extra/2)}},
		}
		typical := []model.CapturedHop{
			{Ns: 4000, Phases: []model.HopPhase{with(work, 4000)}},
			{Ns: 4100, Phases: []model.HopPhase{with(work, 4100)}},
		}
		c := &model.Capture{Threshold: model.Threshold{Quantile: 0.99}, Method: "ring buffer", MedianNs: 4050, P50Ns: 4000, P99Ns: 9000,
			Counts:          model.CaptureCounts{Hops: 10000, Past: 100, Copied: 100, Kept: 3, NotKept: 97, Sampled: 300, Typical: 2},
			CaptureNsPerHop: 50, Slow: slow, Typical: typical}
		out = append(out, schedule.Block{Round: r, Resp: model.Response{Capture: c}})
	}
	return out
}

// The capture over blocks: counts add up, the slowest come first, each slow
// hop's excess is over its block's typical hop and its main part is the
// spinner; slow against typical, the spinner's difference is resolved and
// holds nearly all the excess, the work's is zero, each with the blocks'
// interval (a sampled hop weighs for the hops it stands for).
func TestCaptureAggregates(t *testing.T) {
	c := Capture(model.Threshold{Quantile: 0.99}, captureBlocks())
	if c == nil || c.Blocks != 6 || c.Counts.Hops != 60000 || c.Counts.NotKept != 6*97 || c.Threshold != "p99" {
		t.Fatalf("capture %+v", c)
	}
	if len(c.Slowest) != Keep && len(c.Slowest) != 18 || c.Slowest[0].Ns < c.Slowest[1].Ns || c.Slowest[0].Ns != 4000+150000+2000 {
		t.Fatalf("slowest %d, first %.0f", len(c.Slowest), c.Slowest[0].Ns)
	}
	h := c.Slowest[0]
	if m := h.Main; m == nil || m.Cause != model.CauseOtherTask || m.Task.Comm != "spinner" || math.Abs(h.ExcessNs-(h.Ns-4050)) > 1 || m.Share < 0.9 {
		t.Errorf("the slowest hop's excess %.0f and main part %+v", h.ExcessNs, h.Main)
	}
	// Per block, the weighted slow hop: (2·(extra)+ 3·extra/2)/5 behind the
	// spinner, over blocks extra from 100 to 150 µs.
	var spinner, workDelta *float64
	for _, p := range c.Phases {
		switch p.Cause {
		case model.CauseOtherTask:
			spinner = &p.Delta.NS
			if !p.Delta.Resolved() || p.Delta.Blocks != 6 || len(p.Tasks) != 6 {
				t.Errorf("the spinner's difference %+v over %d tasks", p.Delta, len(p.Tasks))
			}
		case model.CauseWork:
			v := p.Delta.NS
			workDelta = &v
		}
	}
	want := 0.7 * 125000
	if spinner == nil || math.Abs(*spinner-want)/want > 0.05 {
		t.Errorf("the spinner's difference %v, want about %.0f (the weighted mean over blocks)", spinner, want)
	}
	if workDelta == nil || math.Abs(*workDelta+50) > 1 {
		t.Errorf("the work's difference %v, want -50 (4000 against the typical 4050)", workDelta)
	}
	var share float64
	for _, cc := range c.Causes {
		if cc.Cause == model.CauseOtherTask {
			share = cc.Share
		}
	}
	if share < 0.95 || c.ExcessNS.Blocks != 6 || !(c.ExcessNS.Low <= c.ExcessNS.NS && c.ExcessNS.NS <= c.ExcessNS.High) {
		t.Errorf("the spinner's share %.3f of the excess %+v", share, c.ExcessNS)
	}
	if c.Phases[0].Cause != model.CauseOtherTask {
		t.Errorf("largest difference first: %+v", c.Phases[0])
	}
}

// The cost is capture on against off, paired by round; the kernel's own
// time is beside it.
func TestCaptureCost(t *testing.T) {
	var tv, kv []float64
	var sizes, rounds []int
	for r := range 8 {
		base := 5000 + 100*float64(r%3)
		tv, kv = append(tv, base), append(kv, base*1.1)
		sizes, rounds = append(sizes, 1), append(rounds, r)
	}
	cost := CaptureCostOf(stats.Series{Values: tv, Sizes: sizes, Rounds: rounds}, stats.Series{Values: kv, Sizes: sizes, Rounds: rounds}, 52)
	if cost == nil || math.Abs(cost.Change-0.1) > 1e-6 || cost.Rounds != 8 || cost.NSPerHop == nil || cost.KernelNSPerHop != 52 {
		t.Fatalf("cost %+v", cost)
	}
	if CaptureCostOf(stats.Series{Values: tv[:1], Sizes: sizes[:1], Rounds: rounds[:1]}, stats.Series{Values: kv[:1], Sizes: sizes[:1], Rounds: rounds[:1]}, 0) != nil {
		t.Error("a cost from one round")
	}
	if Capture(model.Threshold{AboveNs: 50000}, []schedule.Block{{Resp: model.Response{}}}) != nil {
		t.Error("a capture from blocks that captured nothing")
	}
}
