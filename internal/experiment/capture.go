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
	bs := readCaptures(c, caps, rounds)
	c.Slowest = append(c.Slowest, slowest(bs.slow)...)
	c.Typical = append(c.Typical, typical(bs.typical, c.MedianNS)...)
	c.ExcessNS, _, _ = bs.diff(func(m blockMeans) (float64, float64) { return m.slowNs, m.typNs })
	var byCause map[model.Cause]*result.CaptureCause
	c.Phases, byCause = bs.phases(c.Phases, c.ExcessNS.NS)
	c.Causes = bs.causes(c.Causes, byCause, c.ExcessNS.NS)
	c.Notes = append(c.Notes, countNotes(c.Counts)...)
	return c
}

// blockMeans is one block's slow and typical hops: each part's weighted
// mean per hop (by key) and the hop's.
type blockMeans struct {
	slow, typ     map[string]float64
	slowNs, typNs float64
	slowOK, typOK bool
}

// captured is what the blocks' captures hold, read once: their hops'
// parts by identity, each block's means, and every slow and typical hop
// (each slow one with its excess over its block's typical hop).
type captured struct {
	k             *keyed
	per           []blockMeans
	slow, typical []model.CapturedHop
}

// readCaptures reads the blocks' captures (caps, which ran in rounds): it
// adds their counts, percentiles and notes into c and returns their hops.
func readCaptures(c *result.Capture, caps []*model.Capture, rounds []int) captured {
	bs := captured{k: &keyed{first: map[string]model.HopPhase{}, tasks: map[string][]model.Task{}}}
	var p50, p90, p99, p999, med []float64
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
		m.slow, m.slowNs = bs.k.means(x.Slow)
		m.typ, m.typNs = bs.k.means(x.Typical)
		m.slowOK, m.typOK = len(x.Slow) > 0, len(x.Typical) > 0
		bs.per = append(bs.per, m)
		for _, h := range x.Slow {
			h.Round = rounds[i]
			if m.typOK {
				h.ExcessNs = h.Ns - m.typNs
				h.Main = mainPart(h, m.typ, bs.k)
			}
			bs.slow = append(bs.slow, h)
		}
		for _, h := range x.Typical {
			h.Round = rounds[i]
			bs.typical = append(bs.typical, h)
		}
	}
	c.HopNS = result.CapturePercentiles{P50: stats.Median(p50), P90: stats.Median(p90), P99: stats.Median(p99), P99_9: stats.Median(p999)}
	if len(med) > 0 {
		c.MedianNS = stats.Median(med)
	}
	return bs
}

// slowest are the Keep slowest hops overall (a sampled hop stands for
// others, but is itself one hop: it may be among them).
func slowest(hops []model.CapturedHop) []model.CapturedHop {
	slices.SortStableFunc(hops, func(a, b model.CapturedHop) int { return cmp.Compare(b.Ns, a.Ns) })
	var out []model.CapturedHop
	for _, h := range hops[:min(len(hops), Keep)] {
		h.Weight = 0
		out = append(out, h)
	}
	return out
}

// typical are three typical hops nearest the median, from different
// blocks.
func typical(hops []model.CapturedHop, median float64) []model.CapturedHop {
	slices.SortStableFunc(hops, func(a, b model.CapturedHop) int {
		return cmp.Compare(math.Abs(a.Ns-median), math.Abs(b.Ns-median))
	})
	var out []model.CapturedHop
	seen := map[int]bool{}
	for _, h := range hops {
		if len(out) == 3 {
			break
		}
		if !seen[h.Round] {
			seen[h.Round] = true
			out = append(out, h)
		}
	}
	return out
}

// diff is slow against typical of the figure get reads from a block's
// means, block by block (over the blocks that have both): the difference
// with its interval, and the slow and the typical figure's means.
func (bs captured) diff(get func(m blockMeans) (float64, float64)) (result.Difference, float64, float64) {
	var d, s, t []float64
	for _, m := range bs.per {
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

// phases appends to out each part's difference, slow against typical,
// with its share of the excess, largest first; and gathers the parts'
// causes with the tasks seen in them.
func (bs captured) phases(out []result.CapturePhase, excess float64) ([]result.CapturePhase, map[model.Cause]*result.CaptureCause) {
	k := bs.k
	byCause := map[model.Cause]*result.CaptureCause{}
	for _, key := range k.order {
		p := k.first[key]
		d, s, t := bs.diff(func(m blockMeans) (float64, float64) { return m.slow[key], m.typ[key] })
		cp := result.CapturePhase{Name: p.Name, Cause: p.Cause, Kinds: p.Kinds, From: p.From, To: p.To, CPU: p.CPU, Tasks: k.tasks[key],
			SlowNS: s, TypicalNS: t, Delta: d}
		if excess > 0 {
			cp.Share = d.NS / excess
		}
		out = append(out, cp)
		if byCause[p.Cause] == nil {
			byCause[p.Cause] = &result.CaptureCause{Cause: p.Cause}
		}
		for _, task := range k.tasks[key] {
			if !slices.Contains(byCause[p.Cause].Tasks, task) {
				byCause[p.Cause].Tasks = append(byCause[p.Cause].Tasks, task)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b result.CapturePhase) int { return cmp.Compare(math.Abs(b.Delta.NS), math.Abs(a.Delta.NS)) })
	return out, byCause
}

// causes appends to out each cause's difference (its parts summed, block
// by block), in the order reports show causes.
func (bs captured) causes(out []result.CaptureCause, byCause map[model.Cause]*result.CaptureCause, excess float64) []result.CaptureCause {
	k := bs.k
	for _, cause := range model.Causes() {
		cc := byCause[cause]
		if cc == nil {
			continue
		}
		d, s, t := bs.diff(func(m blockMeans) (float64, float64) {
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
		out = append(out, *cc)
	}
	return out
}

// countNotes say what the counts mean for what is shown: hops lost,
// left out at the benchmark's boundary, or not judged in the warm-up.
func countNotes(n model.CaptureCounts) []string {
	var out []string
	if n.Lost > 0 {
		out = append(out, fmt.Sprintf("%d hops past the threshold were not copied out: the kernel's buffer was full (the slowest shown are the slowest of those copied)", n.Lost))
	}
	if n.Boundary > 0 {
		out = append(out, fmt.Sprintf("%d hops past the threshold held other syscalls of the benchmark's tasks (its loop between two samples, which no sample times): counted, not kept", n.Boundary))
	}
	if n.Warmup > 0 {
		out = append(out, fmt.Sprintf("%d hops fell in the relative threshold's warm-up (its first hops on each CPU of each block) and were not judged", n.Warmup))
	}
	return out
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
