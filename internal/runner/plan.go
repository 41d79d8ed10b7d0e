package runner

import (
	"fmt"

	"github.com/ctxbench/ctxbench/internal/bench"
)

// Cell is one benchmark at one placement, with the CPUs resolved.
type Cell struct {
	Bench     *bench.Benchmark
	Placement bench.Placement
	CPUA      int   // side A's CPU; -1 when unpinned
	CPUB      int   // side B's CPU; -1 when unpinned
	Affinity  []int // the worker's CPU set
	// CPUSetA/B are where each side may legitimately be seen running.
	CPUSetA, CPUSetB []int
}

// Key names the cell in messages.
func (c Cell) Key() string { return c.Bench.Name + " (" + string(c.Placement) + ")" }

// Skip is a cell that will not run, and why.
type Skip struct {
	Bench     string `json:"name"`
	Placement string `json:"placement"`
	Reason    string `json:"reason"`
}

// Plan resolves benchmarks × placements into cells on cpus. With no
// placements given, each benchmark runs at its ladder placements; given
// placements a benchmark does not support are skipped with its reason.
func Plan(benches []*bench.Benchmark, placements []bench.Placement, cpus []int) ([]Cell, []Skip) {
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
			c, err := place(b, p, cpus)
			if err != nil {
				skips = append(skips, Skip{b.Name, string(p), err.Error()})
				continue
			}
			cells = append(cells, c)
		}
	}
	return cells, skips
}

// place picks CPUs. Same-cpu uses the last CPU of the list (CPU 0 usually
// takes more interrupts and housekeeping); cross-cpu the first and the last.
func place(b *bench.Benchmark, p bench.Placement, cpus []int) (Cell, error) {
	c := Cell{Bench: b, Placement: p, CPUA: -1, CPUB: -1}
	if len(cpus) == 0 {
		return c, fmt.Errorf("no CPUs to run on")
	}
	last := cpus[len(cpus)-1]
	switch p {
	case bench.SameCPU:
		c.CPUA, c.CPUB = last, last
		c.Affinity = []int{last}
		c.CPUSetA, c.CPUSetB = []int{last}, []int{last}
	case bench.CrossCPU:
		if len(cpus) < 2 || cpus[0] == last {
			return c, fmt.Errorf("cross-cpu needs two CPUs, and only CPU %d is available (see --cpus)", last)
		}
		c.CPUA, c.CPUB = cpus[0], last
		c.Affinity = []int{cpus[0], last}
		c.CPUSetA, c.CPUSetB = []int{cpus[0]}, []int{last}
		if b.Rung == bench.Goroutine {
			// Goroutines are placed by the runtime inside the process's set.
			c.CPUA, c.CPUB = -1, -1
			c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
		}
	case bench.Unpinned:
		c.Affinity = append([]int(nil), cpus...)
		c.CPUSetA, c.CPUSetB = c.Affinity, c.Affinity
	}
	return c, nil
}

// CellFor places one benchmark at one placement on cpus (see Plan).
func CellFor(b *bench.Benchmark, p bench.Placement, cpus []int) (Cell, error) {
	return place(b, p, cpus)
}
