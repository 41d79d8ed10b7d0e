package spawn

import (
	"runtime"
	"time"
)

// The goroutine creation kernels are Go, because Go is the runtime whose
// creation cost they measure (the rules' "runtime's own language"). Time is
// read with time.Now, whose monotonic reading is the runtime's nanotime
// (CLOCK_MONOTONIC through the vDSO), at sample boundaries only; one sample
// is a batch of creations, so the clock read is amortised over the batch.
//
// goroutineHandshake: one op is `go f()` where f sends on an unbuffered
// channel and returns, and the creator receives: creation, first run, exit,
// plus the two goroutine switches of the handshake. The runtime reuses dead
// goroutines (gFree) and their stacks, so after the warm-up this is the
// steady-state cost (Go's BenchmarkCreateGoroutines measures the same
// thing, without the handshake).
func goroutineHandshake(samples, warmup, batch int) []float64 {
	done := make(chan struct{})
	out := make([]float64, 0, samples)
	for s := 0; s < warmup+samples; s++ {
		t0 := time.Now()
		for i := 0; i < batch; i++ {
			go func() { done <- struct{}{} }()
			<-done
		}
		el := time.Since(t0)
		if s >= warmup {
			out = append(out, float64(el.Nanoseconds())/float64(batch))
		}
	}
	return out
}

// goroutineParked: one op is `go f()` where f blocks on a channel that is
// closed only after the sample's clock has stopped: creation alone, with
// every goroutine staying alive, so a batch of 10,000 allocates fresh g
// structs and stacks (first touch of their memory, as in "create 100,000
// goroutines") rather than reusing dead ones. The batch is released and
// waited for outside the timed region.
func goroutineParked(samples, warmup, batch int) []float64 {
	out := make([]float64, 0, samples)
	for s := 0; s < warmup+samples; s++ {
		release := make(chan struct{})
		exited := make(chan struct{}, batch)
		t0 := time.Now()
		for i := 0; i < batch; i++ {
			go func() {
				<-release
				exited <- struct{}{}
			}()
		}
		el := time.Since(t0)
		close(release)
		for i := 0; i < batch; i++ {
			<-exited
		}
		if s >= warmup {
			out = append(out, float64(el.Nanoseconds())/float64(batch))
		}
		runtime.GC() // return the batch's stacks so each sample starts alike
	}
	return out
}
