package schedule

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/model"
)

// asPlatform runs f with p's answers in place of the running platform's.
func asPlatform(t *testing.T, p platform.Platform, f func()) {
	t.Helper()
	saved := platform.This
	platform.This = p
	defer func() { platform.This = saved }()
	f()
}

// On macOS nothing can be pinned: the ladder's placements become one
// unpinned cell per benchmark (a one-CPU benchmark included), on every CPU,
// and a pinned placement asked for is skipped with the platform's reason.
func TestPlanWithoutPinning(t *testing.T) {
	all := []int{0, 1, 2, 3, 4, 5, 6, 7}
	asPlatform(t, platform.Darwin, func() {
		cells, skips := Plan([]*model.Benchmark{pipe, yield, chans}, nil, all)
		if len(cells) != 3 || len(skips) != 0 {
			t.Fatalf("ladder: %d cells, skips %+v; want one unpinned cell each", len(cells), skips)
		}
		for _, c := range cells {
			if c.Placement != model.Unpinned || c.CPUA != -1 || c.CPUB != -1 || len(c.Affinity) != len(all) {
				t.Errorf("%s: %+v, want unpinned on every CPU", c.Bench.Name, c)
			}
			if !strings.HasPrefix(c.PlacementText(), "unpinned") {
				t.Errorf("%s: label %q", c.Bench.Name, c.PlacementText())
			}
		}
		cells, skips = Plan([]*model.Benchmark{pipe}, []model.Placement{model.SameCPU, model.CrossCPU, model.Unpinned}, all)
		if len(cells) != 1 || cells[0].Placement != model.Unpinned || len(skips) != 2 {
			t.Fatalf("explicit placements: cells %+v, skips %+v", cells, skips)
		}
		for _, s := range skips {
			if !strings.Contains(s.Reason, "cannot pin") {
				t.Errorf("skip %+v does not say macOS cannot pin", s)
			}
		}
	})
	// Linux keeps its ladder.
	asPlatform(t, platform.Linux, func() {
		if cells, _ := Plan([]*model.Benchmark{pipe}, nil, all); len(cells) != 2 || cells[0].Placement != model.SameCPU {
			t.Errorf("Linux ladder: %+v", cells)
		}
	})
}

// Where nothing is pinned, a cell on a part with P and E cores says on
// which each side was seen; without core types it says nothing.
func TestSeenText(t *testing.T) {
	c := Cell{Bench: pipe, Placement: model.Unpinned, CoreKinds: host.KindsByLevel([]host.PerfLevel{{Name: "Performance", CPUs: 4}, {Name: "Efficiency", CPUs: 4}})}
	got := c.SeenText([]int{4, 5}, []int{0})
	if !strings.HasPrefix(got, "side A on P cores 4 and 5, side B on E core 0 (") || !strings.Contains(got, "efficiency cores first") {
		t.Errorf("SeenText = %q", got)
	}
	if (Cell{Bench: pipe}).SeenText([]int{1}, []int{2}) != "" || c.SeenText(nil, nil) != "" {
		t.Error("a description without core types or sightings")
	}
}
