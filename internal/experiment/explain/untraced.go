package explain

// untraced.go: the phases on the untraced scale. The probes slow every
// hop (probe_cost is +70..+90% on the reference machine), and the traced
// phases carry that cost where the probes fired. Each firing runs one BPF
// program and reads the clock once inside it: the part of the program
// before the read lands in the phase the event closes, the part after it
// in the phase it opens, so over a chain of phases every firing is counted
// once, split around its timestamp. A phase therefore holds, on average,
// one firing per occurrence (phase.Phase.Firings), and an interrupt two
// (its entry and its exit). Taking out firings × the cost of one firing
// leaves each phase as it would be untraced — provided every firing costs
// about the same (where one kind costs more, its excess is spread over
// every phase's correction instead of landing where it fired). The
// corrected phases are compared with the untraced hop's mean, as the
// traced ones are with the traced hop's.

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// probeNsPerFiring is one probe firing's cost, from the rounds: each
// round's traced minus untraced block mean per hop (the two cells' blocks
// of a round ran side by side, so the host's noise of that round cancels;
// means, not medians, because the cost is taken out of phases that add
// up — the kernel clock's sums — and is checked against the untraced
// hop's mean: with medians a skewed block left the corrected phases 10-12%
// above the untraced mean on the reference machine),
// over the traced blocks' firings per hop; the median of those per-round
// figures with its order-statistic interval. Dividing every round by the
// same firings keeps the interval's coverage: firings per hop barely move
// from block to block, while the time difference is what is uncertain.
// nil without firings or without two paired rounds.
func probeNsPerFiring(untraced, traced stats.Series, firings float64) *result.Interval {
	if !(firings > 0) {
		return nil
	}
	w := stats.PerRound(func(m []float64) float64 { return (m[1] - m[0]) / firings }, blockMeans(untraced), blockMeans(traced))
	if !w.OK {
		return nil
	}
	return &result.Interval{Median: w.Median, Low: w.Lo, High: w.Hi, Confidence: w.Confidence, Rounds: w.N}
}

// blockMeans is s with each block replaced by its mean, as a block of
// one: PerRound then reads the blocks' means where it reads medians.
func blockMeans(s stats.Series) stats.Series {
	out := stats.Series{Rounds: s.Rounds}
	i := 0
	for _, n := range s.Sizes {
		if n <= 0 || i+n > len(s.Values) {
			return stats.Series{} // malformed: PerRound then finds no rounds
		}
		sum := 0.0
		for _, v := range s.Values[i : i+n] {
			sum += v
		}
		out.Values = append(out.Values, sum/float64(n))
		out.Sizes = append(out.Sizes, 1)
		i += n
	}
	return out
}

// hasLevel says an interval is at the level every figure is reported at.
func hasLevel(c *result.Interval) bool {
	return c != nil && c.Confidence >= stats.Confidence-1e-9
}

// untracedScale sets each phase's UntracedNs and the untraced closure, or
// says in the notes why there is no untraced scale. A phase whose
// correction exceeds it, or whose correction's interval (firings × the
// per-firing interval's width) is wider than what is left of the phase, is
// marked: what remains is mostly the correction's own uncertainty.
func untracedScale(e *result.Explain) {
	c := e.ProbeNsPerFiring
	switch {
	case !(e.FiringsPerHop > 0):
		e.Notes = append(e.Notes, "no untraced scale: the traced blocks counted no probe firings")
		return
	case c == nil:
		e.Notes = append(e.Notes, "no untraced scale: too few rounds paired to measure a probe firing's cost")
		return
	case !hasLevel(c):
		e.Notes = append(e.Notes, "no untraced scale: too few rounds for a 95% interval of a probe firing's cost")
		return
	}
	sum := 0.0
	var marked []string
	for i := range e.Phases {
		p := &e.Phases[i]
		v := p.NsPerHop - p.Firings*c.Median
		p.UntracedNs = &v
		p.UntracedUnreliable = v < 0 || p.Firings*(c.High-c.Low) > v
		if p.UntracedUnreliable {
			marked = append(marked, p.Name)
		}
		sum += v
	}
	if e.UntracedMeanNS > 0 {
		closure := sum / e.UntracedMeanNS
		e.UntracedClosure = &closure
	}
	if len(marked) > 0 {
		e.Notes = append(e.Notes, fmt.Sprintf("not trustworthy on the untraced scale (the probes' correction is larger than the phase, or less certain than what is left of it): %s",
			strings.Join(marked, "; ")))
	}
}
