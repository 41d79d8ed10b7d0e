package experiment

// capture.go: a cell's captured hops over its blocks (ctxbench explain and
// load with --capture-above; the worker's side is internal/catalog's).
// Blocks are the unit: within a block, the slow hops' mean part (the
// slowest with weight 1, the even sample of the others each standing for
// the ones it was drawn from) minus the typical hops' mean part is one
// observation; over blocks, its centre with the signed-rank interval
// (stats.ShiftInterval). A slow hop's own excess is over its block's
// typical hop, and its main part the one that took most of it.

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Keep is how many of the slowest hops a cell keeps for display (each
// block keeps as many, and as many others sampled).
const Keep = 8

// CaptureSamples is about how many hops a block samples for its typical
// hops.
const CaptureSamples = 64

// CaptureRequest is what a traced cell with capture asks of its blocks.
func CaptureRequest(th model.Threshold) *model.CaptureRequest {
	return &model.CaptureRequest{Threshold: th, Keep: Keep, Samples: CaptureSamples}
}

// keyed is a block's hops' parts by identity: the weighted mean per hop.
type keyed struct {
	order []string
	first map[string]model.HopPhase
	tasks map[string][]model.Task
}

func (k *keyed) note(p model.HopPhase) string {
	key := p.Key()
	if _, ok := k.first[key]; !ok {
		k.first[key] = p
		k.order = append(k.order, key)
	}
	if p.Task != nil && !slices.Contains(k.tasks[key], *p.Task) {
		k.tasks[key] = append(k.tasks[key], *p.Task)
	}
	return key
}

// means is the weighted mean of each part per hop, and of the hop, over
// hops.
func (k *keyed) means(hops []model.CapturedHop) (map[string]float64, float64) {
	out := map[string]float64{}
	var w, total float64
	for _, h := range hops {
		hw := h.Weight
		if hw <= 0 {
			hw = 1
		}
		w += hw
		total += hw * h.Ns
		for _, p := range h.Phases {
			out[k.note(p)] += hw * p.Ns
		}
	}
	if w == 0 {
		return nil, 0
	}
	for key := range out {
		out[key] /= w
	}
	return out, total / w
}

// Capture aggregates the capture cell's blocks. Cost is left to the
// experiment (how a hop is timed differs); nil when no block captured.
func Capture(th model.Threshold, blocks []schedule.Block) *result.Capture {
	var caps []*model.Capture
	var rounds []int
	for _, b := range blocks {
		if b.Resp.Capture != nil {
			caps = append(caps, b.Resp.Capture)
			rounds = append(rounds, b.Round)
		}
	}
	if len(caps) == 0 {
		return nil
	}
	c := &result.Capture{Threshold: th.String(), Quantile: th.Quantile, AboveNS: float64(th.AboveNs), Blocks: len(caps),
		Phases: []result.CapturePhase{}, Causes: []result.CaptureCause{}, Slowest: []result.CapturedHop{}, Typical: []result.CapturedHop{}}
	k := &keyed{first: map[string]model.HopPhase{}, tasks: map[string][]model.Task{}}
	var p50, p90, p99, p999, med []float64
	var slowAll, typAll []model.CapturedHop
	type blockMeans struct {
		slow, typ     map[string]float64
		slowNs, typNs float64
		slowOK, typOK bool
	}
	var per []blockMeans
	for i, x := range caps {
		c.Method = x.Method
		addCounts(&c.Counts, x.Counts)
		p50, p90, p99, p999 = append(p50, x.P50Ns), append(p90, x.P90Ns), append(p99, x.P99Ns), append(p999, x.P99_9Ns)
		if x.MedianNs > 0 {
			med = append(med, x.MedianNs)
		}
		for _, n := range x.Notes {
			if !slices.Contains(c.Notes, n) {
				c.Notes = append(c.Notes, n)
			}
		}
		var m blockMeans
		m.slow, m.slowNs = k.means(x.Slow)
		m.typ, m.typNs = k.means(x.Typical)
		m.slowOK, m.typOK = len(x.Slow) > 0, len(x.Typical) > 0
		per = append(per, m)
		for _, h := range x.Slow {
			h.Round = rounds[i]
			if m.typOK {
				h.ExcessNs = h.Ns - m.typNs
				h.Main = mainPart(h, m.typ, k)
			}
			slowAll = append(slowAll, h)
		}
		for _, h := range x.Typical {
			h.Round = rounds[i]
			typAll = append(typAll, h)
		}
	}
	c.HopNS = result.CapturePercentiles{P50: stats.Median(p50), P90: stats.Median(p90), P99: stats.Median(p99), P99_9: stats.Median(p999)}
	if len(med) > 0 {
		c.MedianNS = stats.Median(med)
	}
	// The slowest overall (a sampled hop stands for others, but is itself
	// one hop: it may be among them).
	slices.SortStableFunc(slowAll, func(a, b model.CapturedHop) int { return cmp.Compare(b.Ns, a.Ns) })
	for _, h := range slowAll[:min(len(slowAll), Keep)] {
		h.Weight = 0
		c.Slowest = append(c.Slowest, h)
	}
	// The typical hops nearest the median, from different blocks.
	slices.SortStableFunc(typAll, func(a, b model.CapturedHop) int {
		return cmp.Compare(math.Abs(a.Ns-c.MedianNS), math.Abs(b.Ns-c.MedianNS))
	})
	seen := map[int]bool{}
	for _, h := range typAll {
		if len(c.Typical) == 3 {
			break
		}
		if !seen[h.Round] {
			seen[h.Round] = true
			c.Typical = append(c.Typical, h)
		}
	}
	// Part by part, block by block.
	diff := func(get func(m blockMeans) (float64, float64)) (result.Difference, float64, float64) {
		var d, s, t []float64
		for _, m := range per {
			if !m.slowOK || !m.typOK {
				continue
			}
			a, b := get(m)
			d, s, t = append(d, a-b), append(s, a), append(t, b)
		}
		out := result.Difference{Blocks: len(d)}
		if w := stats.ShiftInterval(d); w.OK {
			out.NS, out.Low, out.High, out.Confidence = w.Median, w.Lo, w.Hi, w.Confidence
		} else if len(d) == 1 {
			out.NS, out.Low, out.High = d[0], d[0], d[0]
		}
		return out, mean(s), mean(t)
	}
	c.ExcessNS, _, _ = diff(func(m blockMeans) (float64, float64) { return m.slowNs, m.typNs })
	excess := c.ExcessNS.NS
	byCause := map[model.Cause]*result.CaptureCause{}
	for _, key := range k.order {
		p := k.first[key]
		d, s, t := diff(func(m blockMeans) (float64, float64) { return m.slow[key], m.typ[key] })
		cp := result.CapturePhase{Name: p.Name, Cause: p.Cause, Kinds: p.Kinds, From: p.From, To: p.To, CPU: p.CPU, Tasks: k.tasks[key],
			SlowNS: s, TypicalNS: t, Delta: d}
		if excess > 0 {
			cp.Share = d.NS / excess
		}
		c.Phases = append(c.Phases, cp)
		if byCause[p.Cause] == nil {
			byCause[p.Cause] = &result.CaptureCause{Cause: p.Cause}
		}
		for _, task := range k.tasks[key] {
			if !slices.Contains(byCause[p.Cause].Tasks, task) {
				byCause[p.Cause].Tasks = append(byCause[p.Cause].Tasks, task)
			}
		}
	}
	slices.SortStableFunc(c.Phases, func(a, b result.CapturePhase) int { return cmp.Compare(math.Abs(b.Delta.NS), math.Abs(a.Delta.NS)) })
	for _, cause := range model.Causes() {
		cc := byCause[cause]
		if cc == nil {
			continue
		}
		d, s, t := diff(func(m blockMeans) (float64, float64) {
			var a, b float64
			for _, key := range k.order {
				if k.first[key].Cause == cause {
					a += m.slow[key]
					b += m.typ[key]
				}
			}
			return a, b
		})
		cc.SlowNS, cc.TypicalNS, cc.Delta = s, t, d
		if excess > 0 {
			cc.Share = d.NS / excess
		}
		c.Causes = append(c.Causes, *cc)
	}
	if c.Counts.Lost > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d hops past the threshold were not copied out: the kernel's buffer was full (the slowest shown are the slowest of those copied)", c.Counts.Lost))
	}
	if c.Counts.Boundary > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d hops past the threshold held other syscalls of the benchmark's tasks (its loop between two samples, which no sample times): counted, not kept", c.Counts.Boundary))
	}
	if c.Counts.Warmup > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d hops fell in the relative threshold's warm-up (its first hops on each CPU of each block) and were not judged", c.Counts.Warmup))
	}
	return c
}

// mainPart is the part of slow hop h that took most beyond its block's
// typical hops (typ, by key).
func mainPart(h model.CapturedHop, typ map[string]float64, k *keyed) *model.HopMain {
	var best *model.HopMain
	for _, p := range h.Phases {
		d := p.Ns - typ[p.Key()]
		if best == nil || d > best.Ns {
			best = &model.HopMain{Name: p.Name, Cause: p.Cause, Task: p.Task, Ns: d}
		}
	}
	if best != nil && h.ExcessNs > 0 {
		best.Share = best.Ns / h.ExcessNs
	}
	return best
}

func addCounts(a *model.CaptureCounts, b model.CaptureCounts) {
	a.Hops += b.Hops
	a.Warmup += b.Warmup
	a.Past += b.Past
	a.Copied += b.Copied
	a.Lost += b.Lost
	a.Kept += b.Kept
	a.NotKept += b.NotKept
	a.Sampled += b.Sampled
	a.SampleLost += b.SampleLost
	a.Typical += b.Typical
	a.Truncated += b.Truncated
	a.Boundary += b.Boundary
	a.Stale += b.Stale
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// CaptureCostOf is the capture's cost from the traced cell's and the
// capture cell's per-block hop figures (values in blocks of sizes, rounds
// as they ran) and the kernel's own copying time per hop.
func CaptureCostOf(traced, captured stats.Series, kernelNSPerHop float64) *result.CaptureCost {
	ch := stats.PairedChange(traced.Values, traced.Sizes, traced.Rounds, captured.Values, captured.Sizes, captured.Rounds)
	if !ch.OK {
		return nil
	}
	cost := &result.CaptureCost{Change: ch.Ratio - 1, Low: ch.Lo - 1, High: ch.Hi - 1, Confidence: ch.Confidence,
		KernelNSPerHop: kernelNSPerHop, Rounds: ch.N1}
	if w := stats.PerRound(func(m []float64) float64 { return m[1] - m[0] }, traced, captured); w.OK {
		cost.NSPerHop = &result.Interval{Median: w.Median, Low: w.Lo, High: w.Hi, Confidence: w.Confidence, Rounds: w.N}
	}
	return cost
}

// KernelCaptureNS is the blocks' mean of the kernel's copying time per hop.
func KernelCaptureNS(blocks []schedule.Block) float64 {
	var v []float64
	for _, b := range blocks {
		if b.Resp.Capture != nil {
			v = append(v, b.Resp.Capture.CaptureNsPerHop)
		}
	}
	return mean(v)
}
