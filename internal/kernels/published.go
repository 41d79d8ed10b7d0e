package kernels

// published.go: the published Go programs the replicate experiments run as
// published, each timed as a whole run the way its publication timed it
// (one sample: the elapsed time of all round trips). They are Go because Go
// is the runtime measured; the catalog runs each in a worker process with
// its own GOMAXPROCS.

import (
	"sync"
	"testing"
	"time"
)

// PingPong is the first published program with its clock fixed: it stops
// after both goroutines have finished all round trips.
func PingPong(iterations int) time.Duration { return pingPong(iterations, false) }

// PingPongAsWritten is the published code's timing as written: the clock is
// read right after the two go statements, before the goroutines have run.
// The goroutines still run to completion (after the clock stopped) so the
// process does not leak them.
func PingPongAsWritten(iterations int) time.Duration { return pingPong(iterations, true) }

// pingPong is the first published program. asWritten stops its clock where
// the published code did, right after the go statements; otherwise it
// stops once both goroutines are done.
func pingPong(iterations int, asWritten bool) time.Duration {
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
	if asWritten {
		elapsed := time.Since(start)
		wg.Wait()
		return elapsed
	}
	wg.Wait()
	return time.Since(start)
}

// OneChan is the second published program (one channel, a `fin` channel to
// wait for both sides), timed as published: the clock stops after both.
func OneChan(n int) time.Duration {
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

// BenchmarkContextSwitch stands in for the published benchmark_test.go,
// whose source is not shown: one op is one round trip over an unbuffered
// channel between two goroutines (two hops).
func BenchmarkContextSwitch(b *testing.B) {
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
