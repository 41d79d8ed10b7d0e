package compare

// decide.go: how one change is decided: on the two files' blocks, or,
// for two files of one machine, against the between-sitting spread the
// machine has learned, on host-adjusted figures where both probed the host
// (docs/methodology.md, "Comparing runs" and "The host's state").

import (
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// change tests one row's change between the base file's cell and another
// file's: against reproducibility when both files come from one machine
// (the machine part of their fingerprints: a new kernel or ctxbench build
// on it is judged by the spread its sittings have shown across builds),
// the rows ran on the same CPUs and either figure carries a spread learned
// before its own sitting — on the host-adjusted figures where both files
// probed the host and carry an adjusted spread, else on the measured ones;
// otherwise on the two files' blocks (within-sitting precision only).
// adjusted says the host-adjusted figures were tested.
func change(a, b *result.Document, base, cur Cell, alpha float64) (stats.Change, bool) {
	if !sameMachine(a, b) {
		return stats.CompareBlocks(base.Samples, base.Sizes, cur.Samples, cur.Sizes, alpha), false
	}
	return decide(hostStateOf(a, b), base, cur, alpha)
}

// decide is change for two cells known to come from one machine, whose
// host state (the newer file's, else the base's; nil: none) is hs: what
// compare and ctxbench aa both decide with.
func decide(hs *result.HostState, base, cur Cell, alpha float64) (stats.Change, bool) {
	ch := stats.CompareBlocks(base.Samples, base.Sizes, cur.Samples, cur.Sizes, alpha)
	// The history keys a cell by its CPUs too: figures taken on other CPUs
	// are not two sittings of one cell.
	if base.CPUs != cur.CPUs {
		return ch, false
	}
	if fa, fb, bw, ok := adjustedPair(hs, base, cur); ok {
		if sc := stats.SittingChange(fa, fb, bw, alpha); sc.OK {
			return sc, true
		}
	}
	if bw, ok := learned(base.Repro, cur.Repro); ok {
		// One machine whose sittings' spread is known: the change is
		// tested against reproducibility, not this pair's blocks alone
		// (which call identical runs different far more often than α).
		if sc := stats.SittingChange(stats.FigureOf(base.Summary), stats.FigureOf(cur.Summary), bw, alpha); sc.OK {
			return sc, false
		}
	}
	return ch, false
}

// hostStateOf is the host state two files are adjusted with: the newer
// file's (its history is the longer), else the base's; nil where neither
// resolved a host effect.
func hostStateOf(a, b *result.Document) *result.HostState {
	for _, d := range []*result.Document{b, a} {
		if d != nil && d.HostState != nil && d.HostState.Slope.Applied > 0 {
			return d.HostState
		}
	}
	return nil
}

// adjustedPair is the two cells' host-adjusted figures at one reference
// reading and one slope (hs's), so that the two are moved alike whatever
// reference each run knew, and the adjusted spread to test them against.
func adjustedPair(hs *result.HostState, base, cur Cell) (fa, fb stats.SittingFigure, bw stats.Between, ok bool) {
	if base.Adjusted == nil || cur.Adjusted == nil || hs == nil || hs.Slope.Applied == 0 {
		return fa, fb, bw, false
	}
	bw, ok = learned(base.Adjusted.Reproducibility, cur.Adjusted.Reproducibility)
	if !ok {
		return fa, fb, bw, false
	}
	adj := func(c Cell) (stats.SittingFigure, bool) {
		return stats.Adjusted(stats.FigureOf(c.Summary), stats.BlockMedians(c.Samples, c.Sizes), c.Probes, hs.ReferenceNS, hs.Slope.Applied)
	}
	fa, okA := adj(base)
	fb, okB := adj(cur)
	return fa, fb, bw, okA && okB
}

// learned is the between-sitting spread a change between two figures is
// tested against: the prior one (learned before its own sitting, so the
// newer file's change never inflates the spread it is judged by) with the
// more degrees of freedom.
func learned(ra, rb *result.Reproducibility) (stats.Between, bool) {
	best := stats.Between{}
	for _, r := range []*result.Reproducibility{ra, rb} {
		if p := r.PriorBetween(); p.OK && p.DF > best.DF {
			best = p
		}
	}
	return best, best.OK
}

// sameMachine says two documents come from one machine: the machine part
// of their fingerprints is equal (whatever the build under test).
func sameMachine(a, b *result.Document) bool {
	if a == nil || b == nil {
		return false
	}
	return machineKey(a) == machineKey(b)
}

func machineKey(d *result.Document) string {
	f, _, _ := result.FingerprintOf(d)
	return f.MachineKey()
}

func fingerprintKey(d *result.Document) string {
	_, k, _ := result.FingerprintOf(d)
	return k
}

func sameMachines(in []Input) bool {
	for _, x := range in[1:] {
		if !sameMachine(in[0].Doc, x.Doc) {
			return false
		}
	}
	return true
}

func sameFingerprint(in []Input) bool {
	for _, x := range in[1:] {
		if fingerprintKey(x.Doc) != fingerprintKey(in[0].Doc) {
			return false
		}
	}
	return true
}
