package schedule

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/model"
)

// Cell is one benchmark at one placement, with the CPUs resolved and the
// payload of the experiment it belongs to (a ring's size and working set, a
// memory run's count).
type Cell struct {
	Bench     *model.Benchmark
	Placement model.Placement
	CPUA      int   // side A's CPU; -1 when unpinned
	CPUB      int   // side B's CPU; -1 when unpinned
	Affinity  []int // the worker's CPU set
	// CPUSetA/B are where each side may legitimately be seen running.
	CPUSetA, CPUSetB []int
	// Name is how progress lines and errors call the cell; "" means the
	// benchmark's name (a ring point is "ring/thread N=16 ws=64KiB").
	Name   string
	Ring   *model.RingParams
	Memory *model.MemoryParams
	Load   *model.LoadParams
	// Trace runs the cell's blocks with the kernel phase tracer attached;
	// Probes names its probe set ("" the full one, model.ProbesLight).
	Trace  bool
	Probes string
	// Capture, on a traced cell, captures its slow hops (ctxbench explain
	// and load with --capture-above).
	Capture *model.CaptureRequest
	// Level, on a cell on two CPUs whose pair the recorded topology
	// places, is that level and LevelWords what tells the two CPUs apart
	// (the label says both).
	Level      model.Placement
	LevelWords string
	// Variant, in an interleaved A/B, names the side the cell's blocks
	// measure ("A" or "B"); Options.Before sets it up before each block.
	Variant string
	// CoreKinds, where the platform cannot pin (an unpinned cell on
	// macOS), is each CPU's core type on a part that has two (Apple
	// silicon's P and E cores): where the sides were seen says on which.
	CoreKinds map[int]host.CoreKind
}

// SeenText says on which core types each side was seen, where the cell
// records them (CoreKinds): "side A on P cores 4 and 5, side B on E core
// 0 (...)"; "" otherwise.
func (c Cell) SeenText(a, b []int) string {
	if len(c.CoreKinds) == 0 || (len(a) == 0 && len(b) == 0) {
		return ""
	}
	var parts []string
	for _, s := range []struct {
		name string
		cpus []int
	}{{"A", a}, {"B", b}} {
		if d := host.DescribeKinds(s.cpus, c.CoreKinds); d != "" {
			parts = append(parts, "side "+s.name+" on "+d)
		}
	}
	return strings.Join(parts, ", ") + " (" + host.KindsByLevelNote + ")"
}

// Key names the cell in messages, placement included.
func (c Cell) Key() string {
	name := c.Name
	if name == "" {
		name = c.Bench.Name
	}
	return name + " (" + string(c.Placement) + ")"
}

// Skip is a cell that will not run, and why.
type Skip struct {
	Bench     string
	Placement string
	Reason    string
}

// Plan resolves benchmarks × placements into cells on cpus. With no
// placements given, each benchmark runs at its ladder placements; given
// placements a benchmark does not support are skipped with its reason.
// It knows no topology: a level of it is skipped (Topology.Plan places
// them). On a platform that cannot pin (platform.Pinning), every cell is
// unpinned: the ladder's placements become unpinned, and any other asked
// for is skipped with the platform's reason.
func Plan(benches []*model.Benchmark, placements []model.Placement, cpus []int) ([]Cell, []Skip) {
	return Topology(nil).Plan(benches, placements, cpus)
}

// Plan is Plan with the levels of t: a level placement runs at the pair t
// recorded for it, and with no placements given a benchmark whose
// LadderLevels is set also runs once at each level t has within cpus,
// except one at the cross-cpu pair (that row is the level's already).
func (t Topology) Plan(benches []*model.Benchmark, placements []model.Placement, cpus []int) ([]Cell, []Skip) {
	var cells []Cell
	var skips []Skip
	pinning, noPin := platform.This.Gives(platform.Pinning)
	var kinds map[int]host.CoreKind
	if !pinning {
		kinds = host.CoreKinds()
	}
	for _, b := range benches {
		if ok, why := b.Available(); !ok {
			skips = append(skips, Skip{b.Name, "", why})
			continue
		}
		ps := placements
		if len(ps) == 0 {
			ps = b.Ladder
			if b.LadderLevels && slices.Contains(ps, model.CrossCPU) {
				ps = append(slices.Clone(ps), t.ladder(cpus)...)
			}
			if !pinning {
				ps = []model.Placement{model.Unpinned}
			}
		}
		for _, p := range ps {
			if !pinning && p != model.Unpinned {
				skips = append(skips, Skip{b.Name, string(p), noPin})
				continue
			}
			// Where nothing can be pinned every benchmark runs unpinned:
			// a single context is where it is either way, and two go where
			// the scheduler puts them (the CPUs each side was seen on say
			// where).
			if !b.Supports(p) && pinning {
				skips = append(skips, Skip{b.Name, string(p), fmt.Sprintf("%s is not offered: %s", p, b.PlacementNote)})
				continue
			}
			c, err := t.Place(b, p, cpus)
			if err != nil {
				skips = append(skips, Skip{b.Name, string(p), err.Error()})
				continue
			}
			c.CoreKinds = kinds
			cells = append(cells, c)
		}
	}
	return cells, skips
}

// Place picks CPUs for b at p. Same-cpu uses the last CPU of the list (CPU 0
// usually takes more interrupts and housekeeping); cross-cpu the first and
// the last. A level of the topology needs Topology.Place.
func Place(b *model.Benchmark, p model.Placement, cpus []int) (Cell, error) {
	c := Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}
	if len(cpus) == 0 {
		return c, fmt.Errorf("no CPUs to run on")
	}
	last := cpus[len(cpus)-1]
	switch {
	case p == model.SameCPU:
		c.CPUA, c.CPUB = last, last
		c.Affinity = []int{last}
		c.CPUSetA, c.CPUSetB = []int{last}, []int{last}
	case p == model.CrossCPU:
		if len(cpus) < 2 || cpus[0] == last {
			return c, fmt.Errorf("cross-cpu needs two CPUs, and only CPU %d is available (see --cpus)", last)
		}
		return PlaceAt(b, p, cpus[0], last)
	case p == model.Unpinned:
		c.Affinity = append([]int(nil), cpus...)
		c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
	case p.IsLevel():
		return c, fmt.Errorf("this machine has no such level")
	default:
		return c, fmt.Errorf("unknown placement %q", p)
	}
	return c, nil
}

// PlaceAt places b at p (cross-cpu or a level of the topology) on the two
// CPUs a and z: side A on a, side B on z. Goroutines are placed by the
// runtime inside the pair.
func PlaceAt(b *model.Benchmark, p model.Placement, a, z int) (Cell, error) {
	c := Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}
	if !p.TwoCPUs() {
		return c, fmt.Errorf("%s is not a placement on two CPUs", p)
	}
	if a < 0 || z < 0 || a == z {
		return c, fmt.Errorf("%s needs two different CPUs, not %d and %d", p, a, z)
	}
	c.CPUA, c.CPUB = a, z
	c.Affinity = []int{a, z}
	c.CPUSetA, c.CPUSetB = []int{a}, []int{z}
	if b.Rung == model.Goroutine {
		// Goroutines are placed by the runtime inside the process's set.
		c.CPUA, c.CPUB = -1, -1
		c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
	}
	return c, nil
}

// Request is the worker request of one block of c.
func (c Cell) Request(iters uint64, samples, warmup int, perf bool) model.Request {
	if warmup > 0 {
		warmup = max(warmup, c.Bench.Warmup) // --warmup 0 means none, for every benchmark
	}
	return model.Request{Bench: c.Bench.Name, Placement: c.Placement, CPUA: c.CPUA, CPUB: c.CPUB,
		Iters: iters, Samples: samples, Warmup: warmup, Perf: perf, Arg: c.Bench.Arg, Ring: c.Ring, Memory: c.Memory, Load: c.Load,
		Trace: c.Trace, Probes: c.Probes, Capture: c.Capture}
}

// PlacementText says where the contexts ran, for the label: at a level of
// the topology, the level and what tells its two CPUs apart; across CPUs,
// the level the pair is at where the topology knows it.
func (c Cell) PlacementText() string {
	switch {
	case c.Placement == model.SameCPU:
		if c.CPUA == c.CPUB && c.CPUA >= 0 && c.Bench.Kind == model.RefKind {
			return fmt.Sprintf("pinned to CPU %d", c.CPUA)
		}
		cpu := c.CPUA
		if len(c.Affinity) > 0 {
			cpu = c.Affinity[0]
		}
		return fmt.Sprintf("same CPU (pinned to CPU %d)", cpu)
	case c.Placement == model.CrossCPU:
		at := ""
		if c.Level != "" {
			at = fmt.Sprintf("; %s: %s", levelNames[c.Level], c.LevelWords)
		}
		if c.CPUA >= 0 {
			return fmt.Sprintf("cross CPU (side A on CPU %d, side B on CPU %d%s)", c.CPUA, c.CPUB, at)
		}
		return fmt.Sprintf("cross CPU (process allowed CPUs %v%s)", c.Affinity, at)
	case c.Placement.IsLevel():
		where := fmt.Sprintf("side A on CPU %d, side B on CPU %d", c.CPUA, c.CPUB)
		if c.CPUA < 0 {
			where = fmt.Sprintf("process allowed CPUs %v", c.Affinity)
		}
		if c.LevelWords != "" {
			where += ": " + c.LevelWords
		}
		return fmt.Sprintf("%s (%s)", levelNames[c.Placement], where)
	default:
		return fmt.Sprintf("unpinned (scheduler's choice among CPUs %v)", c.Affinity)
	}
}

// levelNames are the levels of the topology as a label writes them.
var levelNames = map[model.Placement]string{
	model.SMTSibling:   "SMT siblings",
	model.SameLLC:      "same LLC",
	model.OtherLLC:     "other LLC",
	model.OtherNode:    "other NUMA node",
	model.OtherPackage: "other package",
	model.PToE:         "P core to E core",
}
