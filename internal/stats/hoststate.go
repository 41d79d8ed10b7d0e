package stats

// hoststate.go: the host's own speed, seen per block and kept out of
// comparisons.
//
// On a shared cloud host a vCPU's speed moves for reasons of its own: on
// the reference machine (AMD EPYC, 2-vCPU Firecracker/KVM guest) a
// pointer chase through 64 KiB — the same work every time — ran 5–50%
// slower for stretches of 1–15 s, and a same-CPU pipe hop slowed with it
// (correlation +0.97 over 50 ms windows; the hop by about 0.74 of the
// chase's slowdown on the log scale). Every block times that chase (the
// host probe) on its CPUs before and after its samples. A block's probe is
// its host state; the slope of the blocks' log medians on their log probes
// says how much of the host's slowness reaches the figure, and the
// host-adjusted figure is what the figure would have been had every block
// run at the reference probe:
//
//	adjusted block median = block median · (reference / probe)^β.
//
// The figure the user reads stays the measured one; the adjusted one is
// what comparisons between sittings use, where the host's state would
// otherwise be mixed into the change (docs/methodology.md, "The host's
// state"). The assumption, stated wherever it is used: the host's
// slowness reaches a cell's hops as a power β of the probe's, one β per
// machine; the slope is estimated within groups (a cell of one build),
// so a build that changes the figure does not bias it, and it is applied
// only where it is resolved (its 95% interval excludes zero).

import (
	"math"
	"slices"
)

// UsualReading is the host's usual reading, the reference the host-adjusted
// figures are moved to: the lower quartile of the positive probe readings,
// which stays in the host's fast state while up to three quarters of the
// blocks ran slow (slow states only ever raise a reading); 0 without one.
// A run's host state (internal/session) and the history's view of each
// machine (ctxbench history) both take it here.
func UsualReading(readings []float64) float64 {
	var s []float64
	for _, r := range readings {
		if r > 0 {
			s = append(s, r)
		}
	}
	if len(s) == 0 {
		return 0
	}
	slices.Sort(s)
	return s[(len(s)-1)/4]
}

// MinProbeBlocks is the fewest probed blocks (over all groups) a slope is
// estimated from.
const MinProbeBlocks = 8

// ProbePoint is one block: its median and its host probe (both positive).
type ProbePoint struct {
	Median, Probe float64
}

// Slope is how the blocks' log medians move with their log probes: the
// ordinary least-squares slope β within groups (each group centred on its
// own means), its standard error and degrees of freedom, and the 95%
// interval [Lo, Hi]. Applied is the β adjustments use: β where its
// interval excludes zero, clamped to [0, MaxBeta], else 0 (no host effect
// resolved, nothing adjusted). N is the points used.
type Slope struct {
	Beta    float64 `json:"beta"`
	SE      float64 `json:"se"`
	Lo      float64 `json:"low"`
	Hi      float64 `json:"high"`
	DF      int     `json:"df"`
	N       int     `json:"blocks"`
	Applied float64 `json:"applied"`
	OK      bool    `json:"-"`
}

// MaxBeta bounds an applied slope: a hop slowing more than twice as fast
// as the probe (on the log scale) is not a host effect the probe explains.
const MaxBeta = 2

// HostSlope estimates the slope from groups of blocks (one group per cell
// of one build: the slope is read from how blocks of the same thing differ
// with the host's state). Points with a non-positive or non-finite value
// are skipped; a group with fewer than two points adds nothing. OK is
// false with fewer than MinProbeBlocks points or no spread in the probes.
func HostSlope(groups [][]ProbePoint) Slope {
	var sxx, sxy, syy float64
	n, g := 0, 0
	type xy struct{ x, y float64 }
	for _, grp := range groups {
		var pts []xy
		for _, p := range grp {
			if p.Median > 0 && p.Probe > 0 && finite(p.Median, p.Probe) {
				pts = append(pts, xy{math.Log(p.Probe), math.Log(p.Median)})
			}
		}
		if len(pts) < 2 {
			continue
		}
		var mx, my float64
		for _, p := range pts {
			mx += p.x
			my += p.y
		}
		mx /= float64(len(pts))
		my /= float64(len(pts))
		for _, p := range pts {
			sxx += sq(p.x - mx)
			sxy += (p.x - mx) * (p.y - my)
			syy += sq(p.y - my)
		}
		n += len(pts)
		g++
	}
	s := Slope{N: n, DF: n - g - 1}
	// A spread in the probes below 0.1% (as a log-scale SD) is no spread:
	// the readings' own rounding.
	if n < MinProbeBlocks || s.DF < 1 || !(sxx/float64(n) > 1e-6) {
		return s
	}
	s.Beta = sxy / sxx
	resid := math.Max(0, syy-s.Beta*sxy) / float64(s.DF)
	s.SE = math.Sqrt(resid / sxx)
	half := tQuantile(float64(s.DF), 0.975) * s.SE
	s.Lo, s.Hi = s.Beta-half, s.Beta+half
	if s.Lo > 0 || s.Hi < 0 {
		s.Applied = math.Min(math.Max(s.Beta, 0), MaxBeta)
	}
	s.OK = finite(s.Beta, s.SE, s.Lo, s.Hi)
	if !s.OK {
		s.Applied = 0
	}
	return s
}

// AdjustBlocks is each block median moved to the reference probe:
// median·(reference/probe)^beta. A block without a probe (0) is kept as
// measured. nil when the lengths differ or reference is not positive.
func AdjustBlocks(medians, probes []float64, reference, beta float64) []float64 {
	if len(medians) != len(probes) || !(reference > 0) {
		return nil
	}
	out := make([]float64, len(medians))
	for i, m := range medians {
		out[i] = m
		if p := probes[i]; p > 0 && beta != 0 {
			out[i] = m * math.Pow(reference/p, beta)
		}
	}
	return out
}

// Adjusted is a sitting's figure with the host's state taken out: the
// centre of its adjusted block medians (AdjustBlocks; the Hodges–Lehmann
// estimate, CentreInterval) with its precision interval. It is the centre
// of the block medians, not the median of the samples, because a history
// keeps block medians only and a comparison must read every sitting alike:
// moving the samples' median by the centre's shift instead mixed the two
// statistics and left a third of the host's spread in (the tests).
func Adjusted(f SittingFigure, medians, probes []float64, reference, beta float64) (SittingFigure, bool) {
	adj := AdjustBlocks(medians, probes, reference, beta)
	after := CentreInterval(adj)
	if adj == nil || !after.OK || !(f.Median > 0) {
		return SittingFigure{}, false
	}
	out := f
	out.Median = after.Median
	out.CILow, out.CIHigh = after.Lo, after.Hi
	out.Confidence = after.Confidence
	out.Blocks = len(adj)
	return out, finite(out.Median, out.CILow, out.CIHigh)
}
