package suite

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

// topoLadder runs thread/pipe and process/pipe through the dry-run
// executor on the machine a recorded sysfs tree describes, at placements
// (none: the default ladder), on cpus (nil: every online CPU).
func topoLadder(t *testing.T, tree string, placements []model.Placement, cpus []int) *result.Document {
	t.Helper()
	root := "../host/testdata/topology/" + tree
	env := machine.Collect(machine.Options{Root: root, NoProbe: true})
	if cpus == nil {
		for _, c := range host.ReadTopology(host.Root(root)).CPUs {
			cpus = append(cpus, c.ID)
		}
	}
	benches := []*model.Benchmark{catalog.Lookup("thread/pipe"), catalog.Lookup("process/pipe")}
	for _, b := range benches {
		if ok, why := b.Available(); !ok {
			testenv.SkipFor(t, why, testenv.Cgo, testenv.Native) // process/pipe: no single-threaded side under an emulator
		}
	}
	spec := session.Spec{DryRun: true, Environment: &env, CPUs: cpus, Seed: 1, Log: io.Discard}
	spec = Ladder(spec, LadderOptions{Benches: benches, Placements: placements,
		Sampling: Sampling{Runs: 2, SamplesPerBlock: 2, MinTime: time.Millisecond}})
	doc, err := session.Run(context.Background(), spec)
	if err != nil {
		t.Fatalf("%s: %v", tree, err)
	}
	return doc
}

type cellAt struct {
	name, placement string
	cpus            []int
}

func cellsOf(doc *result.Document) []cellAt {
	var out []cellAt
	for _, r := range doc.Results {
		out = append(out, cellAt{r.Name, r.Placement, []int{firstOr(r.Placed.CPUA), firstOr(r.Placed.CPUB)}})
	}
	return out
}

func firstOr(s []int) int {
	if len(s) == 0 {
		return -1
	}
	return s[0]
}

// The default ladder runs thread/pipe and process/pipe once at each level
// of the topology present, at the pair the environment recorded, except a
// level at the cross-cpu pair: on the guest it is the ladder it always was.
func TestLadderRunsEachLevel(t *testing.T) {
	for _, c := range []struct {
		tree string
		want []model.Placement // besides same-cpu and cross-cpu, in order
	}{
		{"guest", nil},
		// The level the cross-cpu pair (first and last CPU) is at is not run
		// again at its own pair: other-package on the two sockets, other-llc
		// on the two CCDs, same-llc on the laptop.
		{"intel-2s-smt", []model.Placement{model.SMTSibling, model.SameLLC}},
		{"amd-2ccd", []model.Placement{model.SMTSibling, model.SameLLC}},
		{"intel-hybrid", []model.Placement{model.SMTSibling, model.PToE}},
		{"amd-epyc-2s-nps2", []model.Placement{model.SameLLC, model.OtherLLC, model.OtherNode}},
	} {
		doc := topoLadder(t, c.tree, nil, nil)
		levels := map[string][2]int{}
		for _, l := range doc.Environment.Topology {
			levels[l.Name] = l.CPUs
		}
		for _, name := range []string{"thread/pipe", "process/pipe"} {
			var got []model.Placement
			for _, cl := range cellsOf(doc) {
				if cl.name != name {
					continue
				}
				got = append(got, model.Placement(cl.placement))
				if p := model.Placement(cl.placement); p.IsLevel() {
					if want := levels[cl.placement]; cl.cpus[0] != want[0] || cl.cpus[1] != want[1] {
						t.Errorf("%s %s %s: CPUs %v, the level's pair is %v", c.tree, name, p, cl.cpus, want)
					}
				}
			}
			want := append([]model.Placement{model.SameCPU, model.CrossCPU}, c.want...)
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: placements %v, want %v (topology %v)", c.tree, name, got, want, doc.Environment.Topology)
			}
		}
		if len(doc.Skipped) > 0 {
			t.Errorf("%s: the default ladder skipped %v", c.tree, doc.Skipped)
		}
	}
}

// A level asked for is run at its pair, and says so in its label; one the
// machine lacks, or whose pair is outside --cpus, is skipped with the
// reason; a cross-cpu row names the level its pair is at.
func TestLevelPlacements(t *testing.T) {
	doc := topoLadder(t, "amd-2ccd", []model.Placement{model.CrossCPU, model.OtherLLC, model.OtherNode}, nil)
	for _, r := range doc.Results {
		switch r.Placement {
		case "other-llc":
			if !strings.HasPrefix(r.Label.Placement, "other LLC (side A on CPU 23, side B on CPU 31: one package") {
				t.Errorf("other-llc label: %q", r.Label.Placement)
			}
		case "cross-cpu": // 0 and 31: no recorded level's pair
			if r.Label.Placement != "cross CPU (side A on CPU 0, side B on CPU 31)" {
				t.Errorf("cross-cpu label: %q", r.Label.Placement)
			}
		}
	}
	if len(doc.Skipped) != 2 || doc.Skipped[0].Placement != "other-node" || !strings.Contains(doc.Skipped[0].Error, "no such level") {
		t.Errorf("skipped: %+v", doc.Skipped)
	}
	doc = topoLadder(t, "guest", []model.Placement{model.CrossCPU}, nil)
	if l := doc.Results[0].Label.Placement; !strings.HasPrefix(l, "cross CPU (side A on CPU 0, side B on CPU 1; same LLC: different cores sharing L3") {
		t.Errorf("guest cross-cpu label: %q", l)
	}
	doc = topoLadder(t, "amd-2ccd", []model.Placement{model.CrossCPU, model.OtherLLC}, []int{0, 1, 2, 3})
	if len(doc.Skipped) != 2 || doc.Skipped[0].Error != "its CPUs 23,31 are not in --cpus 0-3" {
		t.Errorf("skipped: %+v", doc.Skipped)
	}
	for _, r := range doc.Results {
		if r.Placement == "cross-cpu" && r.Label.Placement != "cross CPU (side A on CPU 0, side B on CPU 3)" {
			t.Errorf("cross-cpu label outside the recorded pairs: %q", r.Label.Placement)
		}
	}
}

// A ring at a level of the topology runs at the pair the recorded tree
// gives for that level (dry run), and a level the machine lacks is skipped
// with the reason.
func TestRingAtALevel(t *testing.T) {
	root := "../host/testdata/topology/amd-2ccd"
	env := machine.Collect(machine.Options{Root: root, NoProbe: true})
	var cpus []int
	for _, c := range host.ReadTopology(host.Root(root)).CPUs {
		cpus = append(cpus, c.ID)
	}
	kind, err := ParseRingKind("thread")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := PlanRing(RingOptions{RingSweep: RingSweep{Kinds: []RingKind{kind}, Tasks: []int{2, 4}, WorkingSets: []int64{0},
		Placements: []model.Placement{model.SameLLC, model.OtherLLC, model.OtherNode}}, CPUs: cpus,
		Levels: env.Topology, Sampling: Sampling{MinTime: time.Millisecond, Preset: "quick"}})
	if err != nil {
		t.Fatal(err)
	}
	spec := plan.Spec(session.Spec{DryRun: true, Environment: &env, CPUs: cpus, Seed: 1, Log: io.Discard})
	doc, err := session.Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	pairs := map[string][2]int{}
	for _, l := range env.Topology {
		pairs[l.Name] = l.CPUs
	}
	got := map[string]int{}
	for _, r := range doc.Rings {
		got[r.Placement]++
		pair, ok := pairs[r.Placement]
		if !ok {
			t.Errorf("a ring ran at %s, which the tree does not have", r.Placement)
			continue
		}
		if at := fmt.Sprintf("between CPUs %d and %d (%s", pair[0], pair[1], r.Placement); !strings.Contains(r.Label.Placement, at) {
			t.Errorf("%s ring placed %q, want the recorded pair %v", r.Placement, r.Label.Placement, pair)
		}
	}
	if got["same-llc"] != 2 || got["other-llc"] != 2 {
		t.Errorf("ring points per placement %v, want two at same-llc and two at other-llc", got)
	}
	if !slices.ContainsFunc(doc.Skipped, func(f result.Failure) bool { return f.Placement == "other-node" }) {
		t.Errorf("other-node not skipped: %+v", doc.Skipped)
	}
}
