package lifecycle

import (
	"context"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// spawnExecutor answers a creation block the way a real one does: one
// value per sample and a SpawnData.
type spawnExecutor struct{}

func (spawnExecutor) Block(_ context.Context, c schedule.Cell, req model.Request, _ time.Duration) (model.Response, error) {
	r := model.Response{NS: make([]uint64, req.Samples), TSC: make([]uint64, req.Samples),
		Spawn: &model.SpawnData{Context: "test", Op: "one creation", Label: c.Bench.Name}}
	for i := range r.NS {
		r.NS[i] = 1000
	}
	return r, nil
}

// A creation or memory kind that cannot run on this machine is skipped with
// its reason, not failed: a ladder without root or KVM still succeeds.
func TestUnavailableKindsAreSkipped(t *testing.T) {
	missing := &model.Benchmark{Name: catalog.SpawnPrefix + "test-missing", Rung: model.Reference, Kind: model.RefKind, Hidden: true,
		Needs: func() (bool, string) { return false, "needs a widget" }}
	here := &model.Benchmark{Name: catalog.SpawnPrefix + "test-here", Rung: model.Reference, Kind: model.RefKind, Hidden: true, HopsPerOp: 1}
	defer func(l func(string) *model.Benchmark) { lookup = l }(lookup)
	lookup = func(name string) *model.Benchmark {
		return map[string]*model.Benchmark{missing.Name: missing, here.Name: here}[name]
	}
	env := experiment.Env{CPUs: []int{0}, Runner: schedule.Runner{Executor: spawnExecutor{}, Progress: schedule.NoProgress{}, DryRun: true}}
	part, err := Spawn(context.Background(), env, []string{"test-missing", "test-here", "test-unknown"}, Options{Samples: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(part.Spawn) != 1 || part.Spawn[0].Name != here.Name || len(part.Spawn[0].Samples) != 3 {
		t.Fatalf("results %+v, want only test-here with 3 samples", part.Spawn)
	}
	if len(part.Skipped) != 1 || part.Skipped[0].Error != "needs a widget" {
		t.Fatalf("skipped %+v, want one skip with its reason", part.Skipped)
	}
	if len(part.Failures) != 1 || part.Failures[0].Name != catalog.SpawnPrefix+"test-unknown" {
		t.Fatalf("failures %+v, want the unknown kind", part.Failures)
	}
}
