package aa

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// named is an executor that only says which it is.
type named struct{ name string }

func (named) Block(context.Context, schedule.Cell, model.Request, time.Duration) (model.Response, error) {
	return model.Response{}, nil
}

// Each sitting gets the executor the suite gives it, and its own seed; the
// experiment itself never looks at what an executor is.
func TestSittingsTakeTheirExecutors(t *testing.T) {
	var got []string
	var seeds []int64
	measure := func(_ context.Context, env experiment.Env) (experiment.Part, error) {
		got = append(got, env.Runner.Executor.(named).name)
		seeds = append(seeds, env.Runner.Seed)
		return experiment.Part{Results: []result.Result{{Name: "x"}}}, nil
	}
	env := experiment.Env{Log: io.Discard, Runner: schedule.Runner{Executor: named{"session"}, Seed: 7}}
	part, err := Run(context.Background(), env, Options{Sittings: 3, Measure: measure})
	if err != nil || len(part.AA.Runs) != 3 {
		t.Fatalf("err %v, sittings %+v", err, part.AA)
	}
	if got[0] != "session" || got[1] != "session" || got[2] != "session" || seeds[0] != 7 || seeds[2] != 9 {
		t.Errorf("without per-sitting executors: executors %v, seeds %v", got, seeds)
	}
	got, seeds = nil, nil
	own := func(k int) schedule.Executor { return named{[]string{"first", "second", "third"}[k]} }
	if _, err := Run(context.Background(), env, Options{Sittings: 3, Measure: measure, Executor: own}); err != nil {
		t.Fatal(err)
	}
	if got[0] != "first" || got[1] != "second" || got[2] != "third" {
		t.Errorf("per-sitting executors: %v", got)
	}
}
