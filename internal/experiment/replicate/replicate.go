// Package replicate re-runs published context-switch experiments as they
// were published, next to the published figures, and says what each
// publication got wrong. It owns every published figure ctxbench prints:
// the cost hierarchy table and its claims (hierarchy.go), the hot-potato
// ring (hotpotato.go), the connection-pool run (pool.go), and the programs
// of the goroutine, pipe and perf bench write-ups (programs.go).
//
// Most experiments run their own program (Run). Two are derived from other
// experiments' results (Derived): the hierarchy from the ladder and the
// creation and memory runs, the hot-potato ring from a ring sweep; the
// suite (internal/suite) runs those experiments into the one document and
// hands it here.
package replicate

import (
	"context"
	"fmt"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/result"
)

// Experiment is one published experiment.
type Experiment struct {
	Name    string
	Source  Source
	Summary string
	// Run runs the experiment as published (quick: fewer repetitions, a
	// smoke test); nil for a derived experiment.
	Run func(ctx context.Context, env experiment.Env, quick bool) ([]result.Replication, error)
	// Derived says the experiment is computed from other experiments'
	// results (see the package comment).
	Derived bool
}

// Experiments is the table, in the order they run and print.
func Experiments() []Experiment {
	return []Experiment{
		{Name: "goroutine-pingpong", Source: SourceHierarchy, Run: goroutinePingPong,
			Summary: "two goroutines, two unbuffered channels, GOMAXPROCS=1 vs all CPUs, clock fixed"},
		{Name: "hierarchy", Source: SourceHierarchy, Derived: true,
			Summary: "the published hierarchy table (goroutine 1 thread and N threads, thread, process, container, VM) measured row by row, with the creation and memory claims"},
		{Name: "fork-two-pipes", Source: SourcePipes, Run: forkTwoPipes,
			Summary: "two processes, two pipes, 1,000,000 round trips unpinned; and the Go one-channel program"},
		{Name: "perf-bench-pipe", Source: SourcePerfBench, Run: perfBench,
			Summary: "perf bench sched pipe pinned to one CPU, alternated with ctxbench's own pipe rows"},
		{Name: "go-test-bench", Source: SourcePerfBench, Run: goTestBench,
			Summary: "go test -bench -cpu=1 style goroutine benchmark via testing.Benchmark"},
		{Name: "hot-potato-ring", Source: SourceHotPotato, Derived: true,
			Summary: "400-context pipe ring, threads vs processes, 10,000 rounds each, per core type"},
		{Name: "pool-10-vs-90", Source: SourcePool, Run: poolPublished,
			Summary: "the published connection-pool run: database/sql against a throwaway PostgreSQL, pool 10 vs 90, counted the published way and properly"},
	}
}

// Select resolves names ("all" or none: every experiment).
func Select(names []string) ([]Experiment, error) {
	all := Experiments()
	if len(names) == 0 {
		return all, nil
	}
	var out []Experiment
	for _, n := range names {
		found := false
		for _, x := range all {
			if x.Name == n || n == "all" {
				out = append(out, x)
				found = true
			}
		}
		if !found {
			var names []string
			for _, x := range all {
				names = append(names, x.Name)
			}
			return nil, fmt.Errorf("unknown experiment %q (have: %v)", n, names)
		}
	}
	return out, nil
}
