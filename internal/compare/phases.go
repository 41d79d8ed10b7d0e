package compare

// phases.go: rows that ctxbench explain split into phases, compared phase
// by phase on the kernel's clock.

import (
	"github.com/ctxbench/ctxbench/internal/result"
)

// PhaseChange is one explained row of the base against one other file:
// every phase either has, in time order, with ns per hop on each side.
// Untraced says both files have the phases on the untraced scale too (the
// probes' cost per firing taken out, ctxbench explain): a change there is
// not the probes' cost changing with the firings.
type PhaseChange struct {
	Name, Placement, Input string
	Untraced               bool
	Phases                 []PhaseDelta
}

// PhaseDelta is one phase of a PhaseChange (0 ns where a side lacks it):
// on the traced scale, and on the untraced one where PhaseChange.Untraced.
// CPU is its side on a hop across CPUs (a name, the interrupts, can occur
// on each).
type PhaseDelta struct {
	Phase, CPU                    string
	BaseNS, CurNS                 float64
	BaseUntracedNS, CurUntracedNS float64
}

// phaseChanges pairs the explained rows of the base with each other file's.
func phaseChanges(inputs []Input, o Options) []PhaseChange {
	if len(inputs) < 2 {
		return nil
	}
	key := func(r result.Result) string {
		if o.IgnorePlacement {
			return r.Name
		}
		return r.Name + "\x00" + r.Placement
	}
	var out []PhaseChange
	for _, b := range inputs[0].Doc.Results {
		if b.Explain == nil {
			continue
		}
		for _, in := range inputs[1:] {
			for _, r := range in.Doc.Results {
				if r.Explain == nil || key(r) != key(b) {
					continue
				}
				out = append(out, phaseChange(b, r, in.Label))
			}
		}
	}
	return out
}

// phaseChange pairs two explained rows phase by phase: the base's phases
// in time order, then the other's new ones.
func phaseChange(b, r result.Result, label string) PhaseChange {
	pc := PhaseChange{Name: b.Name, Placement: b.Placement, Input: label,
		Untraced: b.Explain.UntracedClosure != nil && r.Explain.UntracedClosure != nil}
	key := func(p result.ExplainPhase) string { return p.CPU + "\x00" + p.Name }
	untraced := func(p result.ExplainPhase) float64 {
		if pc.Untraced && p.UntracedNs != nil {
			return *p.UntracedNs
		}
		return 0
	}
	cur := map[string]*PhaseDelta{}
	for _, p := range r.Explain.Phases {
		d := cur[key(p)]
		if d == nil {
			d = &PhaseDelta{Phase: p.Name, CPU: p.CPU}
			cur[key(p)] = d
		}
		d.CurNS += p.NsPerHop
		d.CurUntracedNS += untraced(p)
	}
	seen := map[string]bool{}
	for _, p := range b.Explain.Phases {
		d := PhaseDelta{Phase: p.Name, CPU: p.CPU, BaseNS: p.NsPerHop, BaseUntracedNS: untraced(p)}
		if c := cur[key(p)]; c != nil && !seen[key(p)] {
			d.CurNS, d.CurUntracedNS = c.CurNS, c.CurUntracedNS
		}
		seen[key(p)] = true
		pc.Phases = append(pc.Phases, d)
	}
	for _, p := range r.Explain.Phases {
		if !seen[key(p)] {
			seen[key(p)] = true
			pc.Phases = append(pc.Phases, *cur[key(p)])
		}
	}
	return pc
}
