package replicate

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// The published Go programs, as hidden benchmarks so that they run in a
// worker process with their own GOMAXPROCS. Each returns one "sample": the
// whole run's elapsed nanoseconds, the way the publications timed it.

// pingPong is the first published program with its clock fixed: it stops
// after both goroutines have finished all round trips.
func pingPong(iterations int) time.Duration {
	ping, pong := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	start := time.Now()
	go func() {
		defer wg.Done()
		for i := 0; i < iterations; i++ {
			<-ping
			pong <- struct{}{}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < iterations; i++ {
			ping <- struct{}{}
			<-pong
		}
	}()
	wg.Wait()
	return time.Since(start)
}

// pingPongAsWritten is the published code's timing as written: the clock is
// read right after the two go statements, before the goroutines have run.
// The goroutines still run to completion (after the clock stopped) so the
// process does not leak them.
func pingPongAsWritten(iterations int) time.Duration {
	ping, pong := make(chan struct{}), make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	start := time.Now()
	go func() {
		defer wg.Done()
		for i := 0; i < iterations; i++ {
			<-ping
			pong <- struct{}{}
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < iterations; i++ {
			ping <- struct{}{}
			<-pong
		}
	}()
	elapsed := time.Since(start)
	wg.Wait()
	return elapsed
}

// oneChan is the second published program (one channel, a `fin` channel to
// wait for both sides), timed as published: the clock stops after both.
func oneChan(n int) time.Duration {
	c := make(chan int)
	fin := make(chan int, 2)
	st := time.Now()
	go func() {
		for i := 0; i < n; i++ {
			c <- 1
			<-c
		}
		fin <- 1
	}()
	go func() {
		for i := 0; i < n; i++ {
			<-c
			c <- 1
		}
		fin <- 1
	}()
	<-fin
	<-fin
	return time.Since(st)
}

// benchmarkContextSwitch stands in for the published benchmark_test.go,
// whose source is not shown: one op is one round trip over an unbuffered
// channel between two goroutines (two hops).
func benchmarkContextSwitch(b *testing.B) {
	c := make(chan struct{})
	done := make(chan struct{})
	go func() {
		for range c {
			c <- struct{}{}
		}
		close(done)
	}()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c <- struct{}{}
		<-c
	}
	b.StopTimer()
	close(c)
	<-done
}

func elapsedResponse(d time.Duration, ops uint64) bench.Response {
	return bench.Response{
		NS: []uint64{uint64(d.Nanoseconds())}, TSC: []uint64{0},
		A:     kernels.Counts{Ops: ops, PerfSwitches: -1, PerfMigrations: -1, PerfInstructions: -1, PerfCycles: -1},
		B:     kernels.Counts{PerfSwitches: -1, PerfMigrations: -1, PerfInstructions: -1, PerfCycles: -1},
		Facts: map[string]string{"GOMAXPROCS": fmt.Sprint(runtime.GOMAXPROCS(0))},
	}
}

func goProgram(name, env string, f func(int) time.Duration) *bench.Benchmark {
	b := &bench.Benchmark{
		Name: name, Rung: bench.Goroutine, Kind: bench.Switch, Hidden: true,
		Description: "a published Go program, timed as a whole run", Op: "round trip (2 hops)", HopsPerOp: 2,
		Placements: []bench.Placement{bench.Unpinned}, Unset: []string{"GOMAXPROCS"},
		Run: func(_ context.Context, req bench.Request) (bench.Response, error) {
			n := int(req.Iters)
			return elapsedResponse(f(n), uint64(n)), nil
		},
	}
	if env != "" {
		b.Env = []string{env}
	}
	return b
}

func init() {
	bench.Register(
		goProgram("replicate/pingpong-gomaxprocs1", "GOMAXPROCS=1", pingPong),
		goProgram("replicate/pingpong-gomaxprocsN", "", pingPong),
		goProgram("replicate/pingpong-as-written-gomaxprocs1", "GOMAXPROCS=1", pingPongAsWritten),
		goProgram("replicate/pingpong-as-written-gomaxprocsN", "", pingPongAsWritten),
		goProgram("replicate/one-chan", "", oneChan),
		&bench.Benchmark{
			Name: "replicate/go-test-bench", Rung: bench.Goroutine, Kind: bench.Switch, Hidden: true,
			Description: "BenchmarkContextSwitch run by testing.Benchmark at GOMAXPROCS=1 (go test -bench . -cpu=1)",
			Op:          "one round trip (2 hops)", HopsPerOp: 2,
			Placements: []bench.Placement{bench.Unpinned}, Env: []string{"GOMAXPROCS=1"},
			Run: func(_ context.Context, _ bench.Request) (bench.Response, error) {
				r := testing.Benchmark(benchmarkContextSwitch)
				return elapsedResponse(r.T, uint64(r.N)), nil
			},
		},
	)
}
