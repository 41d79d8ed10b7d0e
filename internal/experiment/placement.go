package experiment

import (
	"fmt"
	"math/bits"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// Sightings are where a cell's two sides were seen running over its
// blocks (bit i: CPU i, at sample boundaries), and whether each side ran
// at all (did an op): a benchmark with one side (a reference row) has no
// side B to see.
type Sightings struct {
	A, B       uint64
	RanA, RanB bool
}

// Add adds a block's counts of both sides.
func (s *Sightings) Add(a, b model.Counts) {
	s.A |= a.CPUsSeen
	s.B |= b.CPUsSeen
	s.RanA = s.RanA || a.Ops > 0 || a.CPUsSeen != 0
	s.RanB = s.RanB || b.Ops > 0 || b.CPUsSeen != 0
}

// CheckPlacement records where each side of cell c was allowed and where
// it was seen, and says the placement held only when it was checked: a
// side seen outside its CPUs is flagged, and a side that ran on CPUs it
// was given but was never seen leaves the placement unverified (ok false,
// and a note) rather than taken on trust.
func CheckPlacement(r *result.Result, c schedule.Cell, s Sightings) {
	seenA, seenB := s.A, s.B
	r.Placed = result.PlacementInfo{
		Requested: string(c.Placement), CPUA: c.CPUSetA, CPUB: c.CPUSetB,
		ObservedA: maskCPUs(seenA), ObservedB: maskCPUs(seenB), OK: true,
	}
	high := slices.ContainsFunc(append(slices.Clone(c.CPUSetA), c.CPUSetB...), func(cpu int) bool { return cpu >= 64 })
	if high {
		r.Placed.Note = "the kernels record CPU sightings in a 64-bit mask: a side seen only on CPUs 64 and above shows no observation, and such CPUs are not checked"
	}
	for _, side := range []struct {
		name    string
		seen    uint64
		ran     bool
		allowed []int
	}{{"A", seenA, s.RanA, c.CPUSetA}, {"B", seenB, s.RanB, c.CPUSetB}} {
		if bad := outside(side.seen, side.allowed); len(bad) > 0 {
			r.Placed.OK = false
			r.Flags = append(r.Flags, result.Flag{Code: "placement", Message: fmt.Sprintf("side %s was seen on CPUs %v, outside %v", side.name, bad, side.allowed)})
			continue
		}
		if side.ran && side.seen == 0 && len(side.allowed) > 0 && !high {
			r.Placed.OK = false
			note := fmt.Sprintf("side %s was never seen on a CPU (the measurement reports no sightings): its placement on %v is not verified", side.name, side.allowed)
			if r.Placed.Note != "" {
				note = r.Placed.Note + "; " + note
			}
			r.Placed.Note = note
		}
	}
	// Where nothing could be pinned, where the sides ran is the placement.
	if seen := c.SeenText(r.Placed.ObservedA, r.Placed.ObservedB); seen != "" {
		r.Placed.Note = strings.TrimPrefix(r.Placed.Note+"; "+seen, "; ")
	}
}

func maskCPUs(m uint64) []int {
	out := []int{}
	for m != 0 {
		i := bits.TrailingZeros64(m)
		out = append(out, i)
		m &^= 1 << uint(i)
	}
	return out
}

// outside is the CPUs of m not among allowed (none when any CPU is).
func outside(m uint64, allowed []int) []int {
	if len(allowed) == 0 {
		return nil
	}
	for _, c := range allowed {
		if c < 64 {
			m &^= 1 << uint(c)
		}
	}
	return maskCPUs(m)
}
