package attach

// verify.go: ctxbench attach --check, the attach against a workload of
// known behaviour. Three parts, in one sitting, on one CPU:
//
//  1. The ladder's thread/pipe same-cpu hop (its kernel, pingpong.c, in
//     this process), block by block untraced and traced by the attach's
//     probes, interleaved: the ladder's figure on both scales, and the
//     attach's direct cost of that hop's switches.
//  2. The known workload (pipeload.c: a stated number of pipe hops per
//     second, counted work between them) with and without the attach,
//     windows interleaved (without, with, without, per round): what the
//     attach takes from its throughput, paired by round.
//  3. One attach to the workload for the duration, as any target: the
//     attach section, whose switch rate is set against the workload's
//     /proc counters and whose direct cost against part 1's.

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// CheckOptions are --check's: the workload's rate and how many rounds
// each interleaved part runs.
type CheckOptions struct {
	HopsPerSecond uint64
	Rounds        int
	// Window is each throughput window (0: 1 s).
	Window time.Duration
}

// checkCPU is the CPU the check runs on: the last the run may use.
func checkCPU(env experiment.Env) int {
	if len(env.CPUs) == 0 {
		return 0
	}
	return env.CPUs[len(env.CPUs)-1]
}

func verify(ctx context.Context, env experiment.Env, o Options) (experiment.Part, error) {
	c := *o.Check
	if c.Rounds < 2 {
		return experiment.Part{}, &BadInput{fmt.Sprintf("--check needs at least 2 rounds, not %d", c.Rounds)}
	}
	if c.Window <= 0 {
		c.Window = time.Second
	}
	if o.Duration <= 0 {
		return experiment.Part{}, &BadInput{fmt.Sprintf("--duration %v: want a positive duration", o.Duration)}
	}
	cpu := checkCPU(env)
	ck := &result.AttachCheck{HopsPerS: float64(c.HopsPerSecond), CPU: cpu, Rounds: c.Rounds}
	fmt.Fprintf(env.Log, "ctxbench: --check on CPU %d: the ladder's thread/pipe hop, untraced and traced (%d rounds)\n", cpu, c.Rounds)
	if err := ladderHop(ctx, o, cpu, c.Rounds, ck); err != nil {
		return experiment.Part{}, err
	}
	w, err := catalog.StartPipeLoad(ctx, c.HopsPerSecond, cpu)
	if err != nil {
		return experiment.Part{}, err
	}
	defer w.Stop()
	fmt.Fprintf(env.Log, "ctxbench: --check: the known workload at %d hops/s, with and without the attach (%d rounds of %v)\n",
		c.HopsPerSecond, c.Rounds, c.Window)
	if err := throughput(ctx, o, w, c, ck); err != nil {
		return experiment.Part{}, err
	}
	targets, err := Check(Options{Targets: []TargetSpec{{Pid: w.Pid()}}, Duration: o.Duration})
	if err != nil {
		return experiment.Part{}, err
	}
	targets[0].Name = fmt.Sprintf("pid %d (ctxbench's known workload: %d pipe hops/s on CPU %d)", w.Pid(), c.HopsPerSecond, cpu)
	s0 := w.State()
	a, err := attach(ctx, env, o, targets)
	if err != nil {
		return experiment.Part{}, err
	}
	s1 := w.State()
	if s1.NowNs > s0.NowNs {
		ck.AchievedPerS = float64(s1.Hops-s0.Hops) / (float64(s1.NowNs-s0.NowNs) / 1e9)
	}
	if len(a.Targets) == 1 {
		ns := a.Targets[0].NsPerSwitch.Value
		if ck.LadderTracedNs.Median > 0 {
			ck.RatioToTracedHop = ns / ck.LadderTracedNs.Median
		}
		if ck.LadderNsPerSwitch.Median > 0 {
			ck.RatioToLadderSwitch = ns / ck.LadderNsPerSwitch.Median
		}
	}
	a.Check = ck
	return experiment.Part{Attach: a}, nil
}

// interval is a median over rounds with its interval.
func interval(vals []float64) result.Interval {
	w := stats.MedianInterval(vals)
	if !w.OK {
		return result.Interval{Median: stats.Median(vals), Low: stats.Median(vals), High: stats.Median(vals), Rounds: len(vals)}
	}
	return result.Interval{Median: w.Median, Low: w.Lo, High: w.Hi, Confidence: w.Confidence, Rounds: len(vals)}
}

// ladderHop measures the ladder's thread/pipe hop untraced and traced,
// interleaved (which goes first alternates by round).
func ladderHop(ctx context.Context, o Options, cpu, rounds int, ck *result.AttachCheck) error {
	const iters, samples = 20000, 3
	var plain, traced, direct []float64
	for r := range rounds {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		for _, on := range []bool{r%2 == 1, r%2 == 0} {
			if !on {
				hops, err := catalog.ThreadPipeHops(cpu, iters, samples)
				if err != nil {
					return err
				}
				plain = append(plain, stats.Median(hops))
				continue
			}
			tr, err := catalog.OpenInPlace(catalog.InPlaceOptions{Full: o.Full, RateLimit: o.RateLimit, Self: -1})
			if err != nil {
				if catalog.InPlaceMissing(err) {
					return &BadInput{err.Error()}
				}
				return err
			}
			err = tr.SetTargets(map[int]int{os.Getpid(): 0})
			var r0, r1 phase.InPlaceReading
			var hops []float64
			if err == nil {
				r0, err = tr.Read(1)
			}
			if err == nil {
				hops, err = catalog.ThreadPipeHops(cpu, iters, samples)
			}
			if err == nil {
				r1, err = tr.Read(1)
			}
			tr.Close()
			if err != nil {
				return err
			}
			traced = append(traced, stats.Median(hops))
			d := r1.Targets[0].Sub(&r0.Targets[0])
			if t := d.Counts[phase.CountTimed]; t > 0 {
				direct = append(direct, float64(d.DirectNs())/float64(t))
			}
		}
	}
	ck.LadderOneWayNs, ck.LadderTracedNs, ck.LadderNsPerSwitch = interval(plain), interval(traced), interval(direct)
	return nil
}

// throughput is the workload's work per second without and with the
// attach: per round a window without, one with, one without; the round's
// ratio is the attached window over the mean of the two around it.
func throughput(ctx context.Context, o Options, w *catalog.PipeLoad, c CheckOptions, ck *result.AttachCheck) error {
	window := func() (float64, error) {
		s0 := w.State()
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(c.Window):
		}
		s1 := w.State()
		if s1.NowNs <= s0.NowNs {
			return 0, fmt.Errorf("the known workload stopped")
		}
		return float64(s1.Work-s0.Work) / (float64(s1.NowNs-s0.NowNs) / 1e9), nil
	}
	var ratios, offs []float64
	for range c.Rounds {
		off1, err := window()
		if err != nil {
			return err
		}
		tr, err := catalog.OpenInPlace(catalog.InPlaceOptions{Full: o.Full, RateLimit: o.RateLimit})
		if err != nil {
			return err
		}
		if err := tr.SetTargets(map[int]int{w.Pid(): 0}); err != nil {
			tr.Close()
			return err
		}
		time.Sleep(100 * time.Millisecond)
		on, err := window()
		tr.Close()
		if err != nil {
			return err
		}
		time.Sleep(100 * time.Millisecond)
		off2, err := window()
		if err != nil {
			return err
		}
		if off := (off1 + off2) / 2; off > 0 && on > 0 {
			ratios = append(ratios, on/off)
			offs = append(offs, off1, off2)
		}
	}
	ck.WorkPerS = stats.Median(offs)
	ci := stats.CentreInterval(ratios)
	cost := result.Interval{Rounds: len(ratios)}
	if ci.OK {
		cost.Median, cost.Low, cost.High, cost.Confidence = 1-ci.Median, 1-ci.Hi, 1-ci.Lo, ci.Confidence
	} else if len(ratios) > 0 {
		m := 1 - stats.Median(ratios)
		cost.Median, cost.Low, cost.High = m, 1-slices.Max(ratios), 1-slices.Min(ratios)
	} else {
		cost.Median = 0
	}
	ck.ThroughputCost = cost
	return nil
}
