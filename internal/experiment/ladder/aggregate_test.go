package ladder

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

var (
	spinBench = &model.Benchmark{Name: "test/futex-spin", Rung: model.Thread, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true,
		Placements: []model.Placement{model.CrossCPU}}
	pipeBench = &model.Benchmark{Name: "test/pipe", Rung: model.Thread, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true,
		Switched: "another thread", Mechanism: "pipe", Placements: []model.Placement{model.SameCPU}}
)

func resp(opsA, swA, swB uint64, seenA, seenB uint64) model.Response {
	return model.Response{
		NS: []uint64{1000, 1100, 1200}, TSC: []uint64{2600, 2860, 3120},
		A: model.Counts{Ops: opsA, Voluntary: int64(swA), CPUsSeen: seenA},
		B: model.Counts{Ops: opsA, Voluntary: int64(swB), CPUsSeen: seenB},
	}
}

func cellRun(c schedule.Cell, iters uint64, resps ...model.Response) schedule.CellRun {
	r := schedule.CellRun{Cell: c, Iters: iters}
	for i, x := range resps {
		r.Blocks = append(r.Blocks, schedule.Block{Round: i, Resp: x})
	}
	return r
}

func TestAggregateFlags(t *testing.T) {
	spin, _ := schedule.Place(spinBench, model.CrossCPU, []int{0, 1})
	// 100 round trips = 200 hops, 3 switches in all: a spinning handoff.
	r := Aggregate(cellRun(spin, 10, resp(100, 2, 1, 1, 2)), "host")
	if r.Verification.Verified || len(r.Flags) != 1 || r.Flags[0].Code != "switch-count" || !strings.Contains(r.Flags[0].Message, "spinning") {
		t.Fatalf("spinning handoff not flagged: %+v", r.Flags)
	}
	pipe, _ := schedule.Place(pipeBench, model.SameCPU, []int{0, 1})
	// 200 hops, 200 switches, but side B seen on CPU 0 although pinned to 1.
	r = Aggregate(cellRun(pipe, 10, resp(100, 100, 100, 2, 3)), "host")
	if !r.Verification.Verified || *r.SwitchesPerHop != 1 {
		t.Fatalf("one switch per hop not verified: %+v", r.Verification)
	}
	if r.Placed.OK || len(r.Flags) != 1 || r.Flags[0].Code != "placement" {
		t.Fatalf("placement outside the CPU set not flagged: %+v %+v", r.Placed, r.Flags)
	}
	if r.OneWayNS.Median != 1100.0/20 || r.OneWayCycles == nil || r.OneWayCycles.Median != 2860.0/20 {
		t.Fatalf("per-hop arithmetic: median %v cycles %+v", r.OneWayNS.Median, r.OneWayCycles)
	}
	if l := r.Label.String(); !strings.Contains(l, "same CPU") || !strings.HasSuffix(l, "on host") || r.Label.What != "another thread" {
		t.Fatalf("label %q", l)
	}
	// A flag raised by a later block is kept beside an earlier flag, and a
	// flag raised by every block is kept once.
	b1, b2 := resp(100, 100, 100, 2, 3), resp(100, 100, 100, 2, 3)
	b1.Flags = []model.Flag{{Code: "isolation", Message: "shared CPU"}}
	b2.Flags = []model.Flag{{Code: "isolation", Message: "shared CPU"}, {Code: "noise", Message: "busy"}}
	r = Aggregate(cellRun(pipe, 10, resp(100, 100, 100, 2, 3), b1, b2), "host")
	codes := map[string]int{}
	for _, f := range r.Flags {
		codes[f.Code]++
	}
	if codes["placement"] == 0 || codes["isolation"] != 1 || codes["noise"] != 1 || r.Verification.Verified {
		t.Fatalf("flags of later blocks: %+v", r.Flags)
	}
	// A benchmark that describes itself keeps its words; placement and host
	// are the aggregation's.
	self := resp(100, 100, 100, 2, 2)
	self.Label = &model.Label{What: "process in another container", Isolation: "pid+net namespaces; verified"}
	r = Aggregate(cellRun(pipe, 10, self), "host")
	if r.Label.What != "process in another container" || r.Label.Placement == "" || r.Label.Host != "host" {
		t.Fatalf("self-described label: %+v", r.Label)
	}
}

// Fewer than one switch per hop across CPUs names a cause only where the
// run knows it: a *-spin benchmark spins by design; any other row states
// what was counted, and never claims spinning or idle-polling.
func TestFewerSwitchesNamesOnlyAKnownCause(t *testing.T) {
	futex := &model.Benchmark{Name: "process/futex", Rung: model.Process, Kind: model.Switch, HopsPerOp: 2, ExpectSwitch: true,
		Placements: []model.Placement{model.CrossCPU}}
	c, _ := schedule.Place(futex, model.CrossCPU, []int{0, 1})
	// 100 round trips = 200 hops, 184 switches: 0.92 per hop.
	r := Aggregate(cellRun(c, 10, resp(100, 92, 92, 1, 2)), "host")
	if len(r.Flags) != 1 || r.Flags[0].Code != "switch-count" {
		t.Fatalf("0.92 switches per hop not flagged: %+v", r.Flags)
	}
	m := r.Flags[0].Message
	if !strings.Contains(m, "0.92") || !strings.Contains(m, "some hand-offs completed without the waiter sleeping") {
		t.Errorf("the observation is not stated: %q", m)
	}
	if strings.Contains(m, "spinning") || strings.Contains(m, "polling") {
		t.Errorf("a row that never spins is given a cause the run did not measure: %q", m)
	}
	spin, _ := schedule.Place(spinBench, model.CrossCPU, []int{0, 1})
	r = Aggregate(cellRun(spin, 10, resp(100, 92, 92, 1, 2)), "host")
	if len(r.Flags) != 1 || !strings.Contains(r.Flags[0].Message, "spins before it sleeps") {
		t.Errorf("a spinning row does not say it spins: %+v", r.Flags)
	}
}
