// Package replicate re-runs published context-switch experiments as they
// were published, next to the published figures, and says what each
// publication got wrong. Other packages add their experiments with Register
// (the ring and the connection-pool experiments live with their engines).
package replicate

import (
	"context"
	"fmt"
	"io"
	"sort"
	"sync"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/runner"
)

// Env is what an experiment gets to run with.
type Env struct {
	Environment result.Environment
	CPUs        []int // CPUs allowed; pinned runs use the last one
	Quick       bool  // fewer repetitions (tests, smoke runs)
	Exe         string
	Executor    runner.Executor
	Log         io.Writer // progress lines, never inside a timed region
}

// Experiment is one published experiment.
type Experiment struct {
	Name    string
	Source  string // the seed or publication
	Summary string
	Order   int
	Run     func(ctx context.Context, e Env) ([]result.Replication, error)
}

var (
	mu          sync.Mutex
	experiments []Experiment
)

// Register adds an experiment.
func Register(x Experiment) {
	mu.Lock()
	defer mu.Unlock()
	experiments = append(experiments, x)
	sort.SliceStable(experiments, func(i, j int) bool { return experiments[i].Order < experiments[j].Order })
}

// All lists the experiments in order.
func All() []Experiment {
	mu.Lock()
	defer mu.Unlock()
	return append([]Experiment(nil), experiments...)
}

// Select resolves names ("all" or none: every experiment).
func Select(names []string) ([]Experiment, error) {
	all := All()
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
