package kernels

import (
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host/counter"
)

// The goroutine kernels are timed in Go, the runtime being measured. Their
// loops contain nothing but the handoff; the clock is read only at sample
// boundaries.
const (
	// GoChanPingPong: one op is a round trip over two unbuffered channels
	// (ping, pong): two hops. The first published program, with the clock
	// read around completed round trips (the published version stopped its
	// clock before the goroutines had run).
	GoChanPingPong Kernel = "go-chan-pingpong"
	// GoOneChan: one op is a round trip over one unbuffered chan int, each
	// side sending then receiving: two hops. The second published program.
	GoOneChan Kernel = "go-one-chan"
	// GoGosched: two goroutines call runtime.Gosched in a loop; a hop is one
	// Gosched that hands the P to the other goroutine. One op is A's call
	// plus B's call (two hops); both sides count their calls.
	GoGosched Kernel = "go-gosched"
	// GoLockedChan: the ping-pong of GoChanPingPong with each goroutine
	// locked to its own OS thread (runtime.LockOSThread), so every handoff
	// must wake another thread: the goroutine API over the OS switch.
	GoLockedChan Kernel = "go-locked-chan"
)

// IsGo reports whether k is a goroutine kernel (run by RunGo).
func IsGo(k Kernel) bool {
	switch k {
	case GoChanPingPong, GoOneChan, GoGosched, GoLockedChan:
		return true
	}
	return false
}

type stamp struct {
	ns  int64
	tsc uint64
}

func now() stamp {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC_RAW, &ts)
	return stamp{ns: ts.Nano(), tsc: counter.Read()}
}

func noteCPU(mask *uint64) {
	if c := getcpu(); c >= 0 && c < 64 {
		*mask |= 1 << uint(c)
	}
}

// RunGo runs a goroutine kernel. Placement is the worker process's affinity
// and GOMAXPROCS, set by whoever started it. Output.A counts the timing
// goroutine's ops and Output.B the partner's. The OS switches of the whole
// process over the block go into Output.A's switch fields (no kernel switch
// is expected, and the count shows what the runtime did), except for
// GoLockedChan: there each side is locked to its thread, so A and B carry
// their own thread's switches and Output.Process the whole process's.
//
// Kept whole, over 100 lines: each kernel's timed loop stays in one piece with its partner, as perf bench's kernels are.
func RunGo(k Kernel, blk Block) (Output, error) {
	if blk.Samples <= 0 || blk.Iters == 0 || blk.Warmup < 0 {
		return Output{}, errBlock(k)
	}
	out := Output{NS: make([]uint64, blk.Samples), TSC: make([]uint64, blk.Samples)}
	out.A.PerfSwitches, out.A.PerfMigrations, out.A.PerfInstructions, out.A.PerfCycles = -1, -1, -1, -1
	out.B.PerfSwitches, out.B.PerfMigrations, out.B.PerfInstructions, out.B.PerfCycles = -1, -1, -1, -1
	total := uint64(blk.Warmup+blk.Samples) * blk.Iters
	record := func(s int, t0, t1 stamp) {
		if s >= blk.Warmup {
			out.NS[s-blk.Warmup] = uint64(t1.ns - t0.ns)
			out.TSC[s-blk.Warmup] = t1.tsc - t0.tsc
		}
	}
	v0, i0 := processSwitches()
	var wg sync.WaitGroup
	switch k {
	case GoChanPingPong, GoLockedChan:
		ping, pong := make(chan struct{}), make(chan struct{})
		locked := k == GoLockedChan
		wg.Add(1)
		var bv, bi int64
		go func() {
			defer wg.Done()
			if locked {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				bv, bi = threadSwitches()
			}
			noteCPU(&out.B.CPUsSeen)
			for i := uint64(0); i < total; i++ {
				<-ping
				pong <- struct{}{}
			}
			out.B.Ops = total
			noteCPU(&out.B.CPUsSeen)
			if locked {
				v, i := threadSwitches()
				out.B.Voluntary, out.B.Involuntary = v-bv, i-bi
			}
		}()
		var av, ai int64
		if locked {
			runtime.LockOSThread()
			av, ai = threadSwitches()
		}
		for s := 0; s < blk.Warmup+blk.Samples; s++ {
			noteCPU(&out.A.CPUsSeen)
			t0 := now()
			for i := uint64(0); i < blk.Iters; i++ {
				ping <- struct{}{}
				<-pong
			}
			record(s, t0, now())
		}
		if locked {
			v, i := threadSwitches()
			runtime.UnlockOSThread()
			wg.Wait()
			out.A.Voluntary, out.A.Involuntary = v-av, i-ai
			out.A.Ops = total
			v1, i1 := processSwitches()
			out.Process = &Counts{Voluntary: v1 - v0, Involuntary: i1 - i0}
			if !perThreadSwitches {
				// Counted per process only: the process's count is
				// side A's, once (goSwitchMethod says so).
				out.A.Voluntary, out.A.Involuntary = v1-v0, i1-i0
				out.B.Voluntary, out.B.Involuntary = 0, 0
				out.SwitchMethod = goSwitchMethod
			}
			return out, nil
		}
	case GoOneChan:
		c := make(chan int)
		wg.Add(1)
		go func() {
			defer wg.Done()
			noteCPU(&out.B.CPUsSeen)
			y := 0
			for i := uint64(0); i < total; i++ {
				y = <-c
				c <- y
			}
			out.B.Ops = total
		}()
		x := 1
		for s := 0; s < blk.Warmup+blk.Samples; s++ {
			noteCPU(&out.A.CPUsSeen)
			t0 := now()
			for i := uint64(0); i < blk.Iters; i++ {
				c <- x
				x = <-c
			}
			record(s, t0, now())
		}
	case GoGosched:
		var stop atomic.Bool
		var bOps uint64
		wg.Add(1)
		go func() {
			defer wg.Done()
			noteCPU(&out.B.CPUsSeen)
			n := uint64(0)
			for !stop.Load() {
				runtime.Gosched()
				n++
			}
			bOps = n
		}()
		for s := 0; s < blk.Warmup+blk.Samples; s++ {
			noteCPU(&out.A.CPUsSeen)
			t0 := now()
			for i := uint64(0); i < blk.Iters; i++ {
				runtime.Gosched()
			}
			record(s, t0, now())
		}
		stop.Store(true)
		wg.Wait()
		out.B.Ops = bOps
	default:
		return Output{}, errUnknown(k)
	}
	wg.Wait()
	v1, i1 := processSwitches()
	out.A.Ops = total
	out.A.Voluntary, out.A.Involuntary = v1-v0, i1-i0
	out.SwitchMethod = goSwitchMethod
	return out, nil
}
