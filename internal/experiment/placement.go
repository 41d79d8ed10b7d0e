package experiment

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// CheckPlacement records where each side of cell c was allowed and where
// the kernels saw it run (seenA, seenB: bit i for CPU i, at sample
// boundaries), and says the placement held only when it was checked: a
// side seen outside its CPUs is flagged, and a side given CPUs but never
// seen leaves the placement unverified (ok false, and a note) rather than
// taken on trust.
func CheckPlacement(r *result.Result, c schedule.Cell, seenA, seenB uint64) {
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
		allowed []int
	}{{"A", seenA, c.CPUSetA}, {"B", seenB, c.CPUSetB}} {
		if bad := outside(side.seen, side.allowed); len(bad) > 0 {
			r.Placed.OK = false
			r.Flags = append(r.Flags, result.Flag{Code: "placement", Message: fmt.Sprintf("side %s was seen on CPUs %v, outside %v", side.name, bad, side.allowed)})
			continue
		}
		if side.seen == 0 && len(side.allowed) > 0 && !high {
			r.Placed.OK = false
			note := fmt.Sprintf("side %s was never seen on a CPU (the measurement reports no sightings): its placement on %v is not verified", side.name, side.allowed)
			if r.Placed.Note != "" {
				note = r.Placed.Note + "; " + note
			}
			r.Placed.Note = note
		}
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
