package schedule

import (
	"fmt"

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
	// Trace runs the cell's blocks with the kernel phase tracer attached.
	Trace bool
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
func Plan(benches []*model.Benchmark, placements []model.Placement, cpus []int) ([]Cell, []Skip) {
	var cells []Cell
	var skips []Skip
	for _, b := range benches {
		if ok, why := b.Available(); !ok {
			skips = append(skips, Skip{b.Name, "", why})
			continue
		}
		ps := placements
		if len(ps) == 0 {
			ps = b.Ladder
		}
		for _, p := range ps {
			if !b.Supports(p) {
				skips = append(skips, Skip{b.Name, string(p), fmt.Sprintf("%s is not offered: %s", p, b.PlacementNote)})
				continue
			}
			c, err := Place(b, p, cpus)
			if err != nil {
				skips = append(skips, Skip{b.Name, string(p), err.Error()})
				continue
			}
			cells = append(cells, c)
		}
	}
	return cells, skips
}

// Place picks CPUs for b at p. Same-cpu uses the last CPU of the list (CPU 0
// usually takes more interrupts and housekeeping); cross-cpu the first and
// the last.
func Place(b *model.Benchmark, p model.Placement, cpus []int) (Cell, error) {
	c := Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}
	if len(cpus) == 0 {
		return c, fmt.Errorf("no CPUs to run on")
	}
	last := cpus[len(cpus)-1]
	switch p {
	case model.SameCPU:
		c.CPUA, c.CPUB = last, last
		c.Affinity = []int{last}
		c.CPUSetA, c.CPUSetB = []int{last}, []int{last}
	case model.CrossCPU:
		if len(cpus) < 2 || cpus[0] == last {
			return c, fmt.Errorf("cross-cpu needs two CPUs, and only CPU %d is available (see --cpus)", last)
		}
		c.CPUA, c.CPUB = cpus[0], last
		c.Affinity = []int{cpus[0], last}
		c.CPUSetA, c.CPUSetB = []int{cpus[0]}, []int{last}
		if b.Rung == model.Goroutine {
			// Goroutines are placed by the runtime inside the process's set.
			c.CPUA, c.CPUB = -1, -1
			c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
		}
	case model.Unpinned:
		c.Affinity = append([]int(nil), cpus...)
		c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
	default:
		return c, fmt.Errorf("unknown placement %q", p)
	}
	return c, nil
}

// Request is the worker request of one block of c.
func (c Cell) Request(iters uint64, samples, warmup int, perf bool) model.Request {
	if warmup > 0 {
		warmup = max(warmup, c.Bench.Warmup) // --warmup 0 means none, for every benchmark
	}
	return model.Request{Bench: c.Bench.Name, Placement: c.Placement, CPUA: c.CPUA, CPUB: c.CPUB,
		Iters: iters, Samples: samples, Warmup: warmup, Perf: perf, Arg: c.Bench.Arg, Ring: c.Ring, Memory: c.Memory,
		Trace: c.Trace}
}
