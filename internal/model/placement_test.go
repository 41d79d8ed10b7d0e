package model

import "testing"

func TestLevelPlacements(t *testing.T) {
	for _, l := range Levels {
		p, err := ParsePlacement(string(l))
		if err != nil || p != l || !p.IsLevel() || !p.TwoCPUs() {
			t.Errorf("%s: parsed %q, %v; level %v", l, p, err, p.IsLevel())
		}
	}
	if SameCPU.IsLevel() || CrossCPU.IsLevel() || !CrossCPU.TwoCPUs() || Unpinned.TwoCPUs() {
		t.Error("same-cpu, cross-cpu and unpinned are not levels; cross-cpu alone is on two CPUs")
	}
	if _, err := ParsePlacement("numa"); err == nil {
		t.Error("numa accepted")
	}
	pair := &Benchmark{Placements: []Placement{SameCPU, CrossCPU}}
	one := &Benchmark{Placements: []Placement{SameCPU, Unpinned}}
	for _, l := range Levels {
		if !pair.Supports(l) || one.Supports(l) {
			t.Errorf("%s: a benchmark across CPUs supports every level, one without cross-cpu none", l)
		}
	}
}
