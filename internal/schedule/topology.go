package schedule

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
)

// Level is a level of the CPU topology as the environment recorded it: a
// pair of CPUs that realises it (A wakes B) and what tells them apart.
type Level struct {
	Name  string // smt-sibling ... p-to-e, or cross-cpu
	A, B  int
	Words string
	At    string // on the cross-cpu entry: the level its pair is at ("": unknown)
}

// Topology is the levels the environment recorded, nearest first (nil: none
// known).
type Topology []Level

// find is the recorded level p.
func (t Topology) find(p model.Placement) (Level, bool) {
	for _, l := range t {
		if model.Placement(l.Name) == p {
			return l, true
		}
	}
	return Level{}, false
}

// at is the level (not cross-cpu itself) whose pair is a and z, in either
// order.
func (t Topology) at(a, z int) (Level, bool) {
	for _, l := range t {
		if model.Placement(l.Name).IsLevel() && (l.A == a && l.B == z || l.A == z && l.B == a) {
			return l, true
		}
	}
	return Level{}, false
}

// Place picks CPUs for b at p: a level of the topology at the pair recorded
// for it, if both its CPUs are in cpus; anything else as Place does, a
// cross-cpu cell also saying the level its pair is at where t knows it.
func (t Topology) Place(b *model.Benchmark, p model.Placement, cpus []int) (Cell, error) {
	if !p.IsLevel() {
		c, err := Place(b, p, cpus)
		if err == nil && p == model.CrossCPU && len(c.Affinity) == 2 {
			if l, ok := t.at(c.Affinity[0], c.Affinity[1]); ok {
				c.Level, c.LevelWords = model.Placement(l.Name), l.Words
			}
		}
		return c, err
	}
	l, ok := t.find(p)
	if !ok {
		var have []string
		for _, x := range t {
			if model.Placement(x.Name).IsLevel() {
				have = append(have, x.Name)
			}
		}
		if len(have) == 0 {
			return Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}, fmt.Errorf("this machine has no such level (its recorded topology has no level)")
		}
		return Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}, fmt.Errorf("this machine has no such level (it has %s)", strings.Join(have, ", "))
	}
	if !within(cpus, l.A, l.B) {
		return Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}, fmt.Errorf("its CPUs %d,%d are not in --cpus %s", l.A, l.B, host.FormatCPUList(cpus))
	}
	c, err := PlaceAt(b, p, l.A, l.B)
	c.Level, c.LevelWords = model.Placement(l.Name), l.Words
	return c, err
}

// ladder is the levels the default ladder adds to a benchmark it runs
// across CPUs: each level of t whose pair is within cpus, but not the one
// the cross-cpu pair (the first and the last of cpus) is at, which that
// row measures already — by the recorded pair, or by the level the
// recorded cross-cpu entry says its pair is at when cpus has the same
// first and last CPU.
func (t Topology) ladder(cpus []int) []model.Placement {
	if len(cpus) < 2 {
		return nil
	}
	first, last := cpus[0], cpus[len(cpus)-1]
	var out []model.Placement
	for _, l := range t {
		if !model.Placement(l.Name).IsLevel() || !within(cpus, l.A, l.B) {
			continue
		}
		if l.A == first && l.B == last || l.A == last && l.B == first {
			continue
		}
		if x, ok := t.find(model.CrossCPU); ok && x.At == l.Name && x.A == first && x.B == last {
			continue // the cross-cpu row is at this level already, at its own pair
		}
		out = append(out, model.Placement(l.Name))
	}
	return out
}

func within(cpus []int, a, z int) bool {
	var okA, okZ bool
	for _, c := range cpus {
		okA, okZ = okA || c == a, okZ || c == z
	}
	return okA && okZ
}
