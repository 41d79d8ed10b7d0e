// Package experiment is the contract every experiment keeps: what it is
// given to run with (Env) and what it hands back (Part), and what every
// experiment checks the same way: its blocks (blocks.go), the placement its
// sides were seen at (placement.go), and the slow-hop capture's blocks
// aggregated for explain and load alike (capture.go).
//
// The experiments live in the packages below, one each:
//   - ladder: the switch ladder, and an interleaved A/B's two sides of each
//     cell with their paired change (ab.go: ctxbench ab);
//   - ring: N contexts passing a token around a ring (ctxbench ring);
//   - lifecycle: creation and memory per context (ctxbench spawn, memory);
//   - pool: connection pools against real servers (ctxbench pool);
//   - aa: the A/A self-test, the same cells in several sittings (ctxbench aa);
//   - explain: the kernel phases of a hop, traced with BPF (ctxbench explain);
//   - load: wake-up and request latency under open-loop load (ctxbench load);
//   - replicate: the published experiments and every published figure
//     (ctxbench replicate).
//
// Each supplies only its plan and its aggregation: the scheduler
// (internal/schedule) runs the blocks, the session (internal/session) turns
// the parts into one result document, and internal/suite composes the
// experiments of each command. No experiment imports another.
package experiment

import (
	"io"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Env is what an experiment runs with.
type Env struct {
	Environment result.Environment
	CPUs        []int  // the CPUs the run may use, sorted
	Host        string // the host line every label ends with
	// Runner is how blocks are run (executor, progress, seed, dry run,
	// cleanup): built once by the session, passed to the scheduler as is.
	Runner schedule.Runner
	Log    io.Writer // progress lines of long experiments, never inside a timed region
	// Learned, when the machine's history knows it, is the between-sitting
	// component a cell's reproducibility interval will carry (what
	// --target-ci aims at where it is known); nil without a history.
	Learned func(name, placement string) (stats.Between, bool)
	// Promise, when the machine's history is open, is told the cells a
	// run has planned (name and placement each) before it measures them,
	// and says what change between this run and another the history lets
	// compare resolve; nil without a history.
	Promise func(cells [][2]string)
	// Recorded, when the machine's history is open, is the latest figure
	// the history holds of a cell on this machine, of any build (what
	// ctxbench attach sets a target's switches beside); nil without a
	// history.
	Recorded func(name, placement string) (RecordedFigure, bool)
}

// RecordedFigure is a cell's latest figure in the machine's history.
type RecordedFigure struct {
	// MedianNS is its median one-way ns; Sittings how many sittings of the
	// machine recorded the cell; At when the latest ran (RFC 3339, UTC).
	MedianNS float64
	Sittings int
	At       string
}

// Topology is the levels of the CPU topology the environment recorded, as
// the scheduler places cells at them.
func (e Env) Topology() schedule.Topology { return Topology(e.Environment.Topology) }

// Topology is recorded levels as the scheduler takes them.
func Topology(levels []result.TopologyLevel) schedule.Topology {
	var t schedule.Topology
	for _, l := range levels {
		t = append(t, schedule.Level{Name: l.Name, A: l.CPUs[0], B: l.CPUs[1], Words: l.Description, At: l.At})
	}
	return t
}

// Part is what one experiment adds to the result document.
type Part struct {
	Results      []result.Result
	Rings        []result.Ring
	Loads        []result.LoadSeries
	Spawn        []result.Spawn
	Memory       []result.Memory
	Pools        *result.Pools
	Replications []result.Replication
	AA           *result.AA
	Attach       *result.Attach
	Failures     []result.Failure
	Skipped      []result.Failure
	Warnings     []result.Warning
}

// Add appends o's pieces to p.
func (p *Part) Add(o Part) {
	p.Results = append(p.Results, o.Results...)
	p.Rings = append(p.Rings, o.Rings...)
	p.Loads = append(p.Loads, o.Loads...)
	p.Spawn = append(p.Spawn, o.Spawn...)
	p.Memory = append(p.Memory, o.Memory...)
	if o.Pools != nil {
		p.Pools = o.Pools
	}
	p.Replications = append(p.Replications, o.Replications...)
	if o.AA != nil {
		p.AA = o.AA
	}
	if o.Attach != nil {
		p.Attach = o.Attach
	}
	p.Failures = append(p.Failures, o.Failures...)
	p.Skipped = append(p.Skipped, o.Skipped...)
	p.Warnings = append(p.Warnings, o.Warnings...)
}
