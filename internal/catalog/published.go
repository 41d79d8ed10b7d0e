package catalog

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
)

func elapsedResponse(d time.Duration, ops uint64) model.Response {
	a := model.NoPerf()
	a.Ops = ops
	return model.Response{
		NS: []uint64{uint64(d.Nanoseconds())}, TSC: []uint64{0},
		A: a, B: model.NoPerf(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
}

func goProgram(name, env string, f func(int) time.Duration) *model.Benchmark {
	b := &model.Benchmark{
		Name: name, Rung: model.Goroutine, Kind: model.Switch, Hidden: true,
		Description: "a published Go program, timed as a whole run", Op: "round trip (2 hops)", HopsPerOp: 2,
		Placements: []model.Placement{model.Unpinned}, Unset: []string{"GOMAXPROCS"},
		Run: func(_ context.Context, req model.Request) (model.Response, error) {
			n := int(req.Iters)
			return elapsedResponse(f(n), uint64(n)), nil
		},
	}
	if env != "" {
		b.Env = []string{env}
	}
	return b
}

// publishedRows are the published Go programs, as hidden entries the
// replicate experiments run.
func publishedRows() []*model.Benchmark {
	return []*model.Benchmark{
		goProgram("replicate/pingpong-gomaxprocs1", "GOMAXPROCS=1", kernels.PingPong),
		goProgram("replicate/pingpong-gomaxprocsN", "", kernels.PingPong),
		goProgram("replicate/pingpong-as-written-gomaxprocs1", "GOMAXPROCS=1", kernels.PingPongAsWritten),
		goProgram("replicate/pingpong-as-written-gomaxprocsN", "", kernels.PingPongAsWritten),
		goProgram("replicate/one-chan", "", kernels.OneChan),
		&model.Benchmark{
			Name: "replicate/go-test-bench", Rung: model.Goroutine, Kind: model.Switch, Hidden: true,
			Description: "BenchmarkContextSwitch run by testing.Benchmark at GOMAXPROCS=1 (go test -bench . -cpu=1)",
			Op:          "one round trip (2 hops)", HopsPerOp: 2,
			Placements: []model.Placement{model.Unpinned}, Env: []string{"GOMAXPROCS=1"},
			Run: func(_ context.Context, _ model.Request) (model.Response, error) {
				r := testing.Benchmark(kernels.BenchmarkContextSwitch)
				return elapsedResponse(r.T, uint64(r.N)), nil
			},
		},
	}
}
