// Package catalog is every benchmark ctxbench can run, in explicit tables —
// one file per family, each a function returning its rows, as perf bench's
// builtin table lists its collections — and the glue that runs one block of
// each inside a worker process (a C kernel, a partner process, a container
// pair, a VM, another runtime's probe). Nothing registers itself: Entries
// concatenates the tables, in ladder order.
//
// To add a ping-pong benchmark: write its C kernel (internal/kernels) and
// add one row to the family's table here. docs/architecture.md shows a real
// example.
package catalog

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
)

// Entries is every benchmark, hidden ones included, in ladder order. The
// tables are built once (probe rows read the probe table, availability is
// checked lazily by each row's Needs).
var Entries = sync.OnceValue(func() []*model.Benchmark {
	all := slices.Concat(floorRows(), goroutineRows(), threadRows(), processRows(), macosRows(), containerRows(), vmRows(),
		probeRows(), referenceRows(), ringRows(), spawnRows(), memoryRows(), publishedRows(), loadRows())
	slices.SortStableFunc(all, func(a, b *model.Benchmark) int { return model.RungIndex(a.Rung) - model.RungIndex(b.Rung) })
	seen := map[string]bool{}
	for _, b := range all {
		if seen[b.Name] {
			panic("catalog: duplicate benchmark " + b.Name) // a table error, caught by every test
		}
		seen[b.Name] = true
		platformNeeds(b)
		if b.Phases != "" {
			b.Run = traced(b, b.Run)
		}
	}
	return all
})

// All returns every ladder benchmark (not the hidden ones, nor the rows of
// another platform's primitives: platform.go) in ladder order.
func All() []*model.Benchmark {
	var out []*model.Benchmark
	for _, b := range Entries() {
		if !b.Hidden && native(b) {
			out = append(out, b)
		}
	}
	return out
}

// Lookup finds a benchmark, hidden or not, by name.
func Lookup(name string) *model.Benchmark {
	for _, b := range Entries() {
		if b.Name == name {
			return b
		}
	}
	return nil
}

// Select resolves names to ladder benchmarks. A name may be a benchmark, a
// rung ("thread" means every thread benchmark), a prefix ending in "/", or
// "all".
func Select(names []string) ([]*model.Benchmark, error) {
	var out []*model.Benchmark
	seen := map[string]bool{}
	add := func(b *model.Benchmark) {
		if !seen[b.Name] {
			seen[b.Name] = true
			out = append(out, b)
		}
	}
	for _, n := range names {
		if b := Lookup(n); b != nil && !b.Hidden {
			add(b)
			continue
		}
		matched := false
		for _, b := range All() {
			if n == "all" || string(b.Rung) == n || strings.HasPrefix(b.Name, strings.TrimSuffix(n, "/")+"/") {
				add(b)
				matched = true
			}
		}
		if !matched {
			return nil, fmt.Errorf("unknown benchmark %q (see 'ctxbench list')", n)
		}
	}
	return out, nil
}

var cleanupOnce sync.Mutex

// ParentCleanup removes what workers killed before they could clean up
// left behind: the cgroup trees of containers (their names carry the
// creator's pid). It runs in the process that starts workers, before a run
// and after a worker was killed.
func ParentCleanup() {
	cleanupOnce.Lock()
	defer cleanupOnce.Unlock()
	for _, ctl := range []string{"cpu", "memory"} {
		if h, err := container.FindHierarchy(ctl); err == nil {
			_, _ = container.SweepStale(h)
		}
	}
}

// HostProbe times the host probe on each of cpus (kernels.HostProbe): the
// worker reads it around every block.
func HostProbe(cpus []int) []float64 { return kernels.HostProbe(cpus) }

// WorkerCleanup stops what a block started (container children and
// cgroups) while the worker can still name them; it runs in a worker asked
// to stop.
func WorkerCleanup() { _ = container.CleanupAll() }
