package catalog

// capture.go: a traced block's captured hops, kept and read in the worker.
// The kernel copied out every hop past the threshold (as many as its
// buffer took) and one of every Nth hop as a sample of all of them; here
// the block keeps the Keep slowest and an even sample of the other slow
// ones (each standing for the ones it was drawn from: its weight), and of
// the samples those in the median band (the 40th to the 60th percentile
// of the sampled hops) as its typical hops. Every copied hop is counted,
// kept or not.

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/phase"
)

// maxTypical is the typical hops a block keeps (those nearest the median).
const maxTypical = 16

// captureOf keeps a block's hops. loop: the benchmark's hops are a loop
// between samples, and a hop in which its tasks made other syscalls is the
// loop's own work between two samples (not timed): counted, not kept.
func captureOf(req model.CaptureRequest, hops []phase.CapturedHop, st phase.CaptureStats, split func(phase.CapturedHop) phase.HopBreakdown, loop bool) *model.Capture {
	c := &model.Capture{Threshold: req.Threshold, Method: st.Method, CrossCopy: st.CrossCopy,
		Counts: model.CaptureCounts{Hops: st.Hops, Warmup: st.Warmup, Past: st.Past, Copied: st.SlowOut, Lost: st.SlowLost,
			Sampled: st.SampleOut, SampleLost: st.SampleLost, Stale: st.Stale},
		P50Ns: phase.HistQuantile(st.Hist, 0.5), P90Ns: phase.HistQuantile(st.Hist, 0.9), P99Ns: phase.HistQuantile(st.Hist, 0.99),
		P99_9Ns: phase.HistQuantile(st.Hist, 0.999)}
	if st.Hops > 0 {
		c.CaptureNsPerHop = float64(st.CaptureNs) / float64(st.Hops)
	}
	if st.Unreadable > 0 {
		c.Notes = append(c.Notes, fmt.Sprintf("%d copied hops could not be read", st.Unreadable))
	}
	if !st.CrossCopy {
		c.Notes = append(c.Notes, "this kernel cannot read another CPU's entries from BPF (bpf_map_lookup_percpu_elem, Linux 5.19+): a hop across CPUs shows the wakee's CPU only, the waker's part as not recorded")
	}
	var slow, samples []phase.CapturedHop
	for _, h := range hops {
		if loop && split(h).OtherSyscalls {
			if h.Slow {
				c.Counts.Boundary++
			}
			continue
		}
		if h.Slow {
			slow = append(slow, h)
		}
		if h.Sampled {
			samples = append(samples, h)
		}
	}
	// The median band of the sampled hops.
	slices.SortFunc(samples, func(a, b phase.CapturedHop) int { return cmp.Compare(a.Ns(), b.Ns()) })
	if n := len(samples); n > 0 {
		c.MedianNs = float64(samples[n/2].Ns())
		if n%2 == 0 {
			c.MedianNs = (float64(samples[n/2-1].Ns()) + float64(samples[n/2].Ns())) / 2
		}
		band := samples[n*40/100 : max(n*40/100+1, n*60/100)]
		slices.SortStableFunc(band, func(a, b phase.CapturedHop) int {
			return cmp.Compare(math.Abs(float64(a.Ns())-c.MedianNs), math.Abs(float64(b.Ns())-c.MedianNs))
		})
		for _, h := range band[:min(len(band), maxTypical)] {
			c.Typical = append(c.Typical, wireHop(h, split))
		}
		c.Counts.Typical = uint64(len(c.Typical))
	}
	// The slowest, then an even sample of the rest.
	slices.SortFunc(slow, func(a, b phase.CapturedHop) int { return cmp.Compare(b.Ns(), a.Ns()) })
	keep := max(req.Keep, 1)
	for _, h := range slow[:min(len(slow), keep)] {
		c.Slow = append(c.Slow, wireHop(h, split))
	}
	if rest := slow[min(len(slow), keep):]; len(rest) > 0 {
		n := min(len(rest), keep)
		w := float64(len(rest)) / float64(n)
		for i := range n {
			hw := wireHop(rest[i*len(rest)/n], split)
			hw.Weight = w
			c.Slow = append(c.Slow, hw)
		}
	}
	c.Counts.Kept = uint64(len(c.Slow))
	c.Counts.NotKept = c.Counts.Copied - min(c.Counts.Copied, c.Counts.Kept+c.Counts.Boundary)
	for _, h := range append(slices.Clone(c.Slow), c.Typical...) {
		if h.Truncated {
			c.Counts.Truncated++
		}
	}
	return c
}

// wireHop is a captured hop read through its model, as the worker sends it.
// Another task that is a thread of this worker (not a measured side) is
// marked as ctxbench's own.
func wireHop(h phase.CapturedHop, split func(phase.CapturedHop) phase.HopBreakdown) model.CapturedHop {
	b := split(h)
	for i, p := range b.Phases {
		if p.Task != nil && ownThread(p.Task.PID) {
			t := *p.Task
			t.Self = true
			b.Phases[i].Task = &t
		}
	}
	return model.CapturedHop{Ns: float64(b.Ns), Slow: h.Slow, WakerCPU: h.WakerCPU, WakeeCPU: h.WakeeCPU, WakerPID: h.WakerTID,
		WakeePID: h.WakeeTID, Migrated: b.Migrated, ThresholdNs: float64(h.Threshold), Phases: b.Phases, Pieces: b.Pieces,
		Closure: b.Closure, Truncated: b.Truncated}
}

// ownThread says tid is a thread of this process (the worker's threads
// outlive its blocks).
func ownThread(tid int) bool { return tid > 0 && host.IsOwnThread(tid) }
