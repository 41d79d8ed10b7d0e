package kernels

// ring_go.go: N goroutines pass a token around a ring of channels, the
// goroutine kind of ring.c (lmbench lat_ctx's ring, with channels for pipes).
//
// One op is one round: the token goes once around the ring, N hops. Member i
// blocks receiving on channel i-1, sums its own working set (every 8-byte
// word), adds one to the token and sends it on channel i; member 0, the
// head, times whole rounds. Channels have room for one token: a send to a
// waiting receiver hands the token over directly (as an unbuffered channel
// would), and the one-goroutine overhead can send and receive on the same
// channel without a partner. Placement is the process's affinity and
// GOMAXPROCS, set by whoever started the worker; the process's OS switches
// over the ring are counted (RUSAGE_SELF), none being expected.

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
)

const ringStop = uint64(1) << 63

// ringTouch sums every word of a working set: the lmbench -s work. Never
// inlined, so that every call site runs the same code (inlined into a large
// function its accumulators can spill to the stack, and the one-context
// overhead then measured slower than the ring itself).
//
//go:noinline
func ringTouch(a []uint64) uint64 {
	var s0, s1, s2, s3 uint64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i]
		s1 += a[i+1]
		s2 += a[i+2]
		s3 += a[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i]
	}
	return s0 + s1 + s2 + s3
}

// ringSink keeps the sums alive so the compiler cannot drop the touching
// (written, never read: a store to a package variable is not elided).
//
//lint:ignore U1000 write-only on purpose
var ringSink uint64

// RingGo runs a ring of cfg.Tasks goroutines (see the file comment). With
// blk.Iters 0 the head calibrates rounds per sample to cfg.MinSampleNS.
// Output.A counts the head's rounds and the whole process's OS switches
// over the ring; Passes the other members' passes, each counted by its
// member.
func RingGo(blk Block, cfg RingConfig) (out RingOutput, err error) {
	n := cfg.Tasks
	if blk.Samples <= 0 || blk.Warmup < 0 || n < 1 || cfg.WorkingSet < 0 {
		return out, errors.New("ring: need samples > 0, warm-up >= 0, tasks >= 1 and a working set >= 0")
	}
	if blk.Iters == 0 && cfg.MinSampleNS == 0 {
		return out, errors.New("ring: need rounds per sample or a target sample length")
	}
	out.A.PerfSwitches, out.A.PerfMigrations, out.A.PerfInstructions, out.A.PerfCycles = -1, -1, -1, -1
	out.B.PerfSwitches, out.B.PerfMigrations, out.B.PerfInstructions, out.B.PerfCycles = -1, -1, -1, -1
	chans, sets := ringLinks(n, int(cfg.WorkingSet/8))
	passes := make([]uint64, n)
	sums := make([]uint64, n)
	var wg sync.WaitGroup
	wg.Add(n - 1)
	for i := 1; i < n; i++ {
		go func(i int) {
			defer wg.Done()
			in, next, set := chans[i-1], chans[i], sets[i]
			var p, acc uint64
			for {
				t := <-in
				if t&ringStop != 0 {
					next <- t
					break
				}
				acc += ringTouch(set)
				next <- t + 1
				p++
			}
			passes[i], sums[i] = p, acc
		}(i)
	}

	first, last, set := chans[0], chans[n-1], sets[0]
	var tok, acc, rounds uint64
	round := func() {
		acc += ringTouch(set)
		first <- tok + 1
		tok = <-last
		rounds++
	}
	v0, i0 := processSwitches()
	noteCPU(&out.A.CPUsSeen)
	iters := blk.Iters
	if iters == 0 {
		iters = calibrateRounds(round, cfg.MinSampleNS)
	}
	out.RoundsPerSample = iters
	out.NS = make([]uint64, blk.Samples)
	out.TSC = make([]uint64, blk.Samples)
	for s := 0; s < blk.Warmup+blk.Samples; s++ {
		noteCPU(&out.A.CPUsSeen)
		t0 := now()
		for i := uint64(0); i < iters; i++ {
			round()
		}
		t1 := now()
		if s >= blk.Warmup {
			out.NS[s-blk.Warmup] = uint64(t1.ns - t0.ns)
			out.TSC[s-blk.Warmup] = t1.tsc - t0.tsc
		}
	}
	noteCPU(&out.A.CPUsSeen)
	v1, i1 := processSwitches()
	out.A.Voluntary, out.A.Involuntary = v1-v0, i1-i0
	out.A.Ops, out.Rounds, out.Token = rounds, rounds, tok

	first <- ringStop | tok
	back := <-last
	wg.Wait()
	acc += tallyPasses(&out, passes, sums)
	if back != ringStop|tok {
		return out, fmt.Errorf("ring head: stop token came back as %x, sent %x", back, ringStop|tok)
	}
	if tok != uint64(n)*rounds {
		return out, fmt.Errorf("ring head: the token counted %d hops, %d goroutines x %d rounds = %d expected", tok, n, rounds, uint64(n)*rounds)
	}

	if cfg.Overhead {
		acc += ringOverhead(&out, blk, iters, chans, sets, set)
	}
	ringSink += acc
	runtime.KeepAlive(sets)
	return out, nil
}

// ringLinks makes the ring before it runs: n channels (member i receives
// on i-1 and sends on i, the head on n-1 and 0) and each member's working
// set of words, every page written once, as ring.c does, so that the
// timed rounds find it mapped.
func ringLinks(n, words int) (chans []chan uint64, sets [][]uint64) {
	chans = make([]chan uint64, n)
	sets = make([][]uint64, n)
	for i := range chans {
		chans[i] = make(chan uint64, 1)
		if words > 0 {
			sets[i] = make([]uint64, words)
			for j := range sets[i] {
				sets[i][j] = 1 // every page written once, as ring.c does
			}
		}
	}
	return chans, sets
}

// tallyPasses collects, once the ring has stopped, what its members
// counted: their passes into out (the sum, the fewest and the most, the
// members started) and the sum of their working sets' sums, returned to
// keep the touching alive. passes[0] and sums[0] are the head's and unused.
func tallyPasses(out *RingOutput, passes, sums []uint64) (acc uint64) {
	n := len(passes)
	out.MinPasses = ^uint64(0)
	if n == 1 {
		out.MinPasses = 0
	}
	for i := 1; i < n; i++ {
		out.Passes += passes[i]
		out.MinPasses = min(out.MinPasses, passes[i])
		out.MaxPasses = max(out.MaxPasses, passes[i])
		acc += sums[i]
	}
	out.B.Ops = out.Passes
	out.Started = n - 1
	return acc
}

// calibrateRounds finds the rounds per sample, as ring.c does: one round
// wakes every member, then the rounds double until a run lasts a quarter
// of the target sample; that run is timed twice and the faster kept.
func calibrateRounds(round func(), targetNS uint64) uint64 {
	round()
	var best int64
	var iters uint64
	for k, again := uint64(1), false; ; {
		t0 := now()
		for j := uint64(0); j < k; j++ {
			round()
		}
		el := max(now().ns-t0.ns, 1)
		if uint64(el) >= targetNS/4 || k >= 1<<24 {
			if !again {
				best, again = el, true
				continue
			}
			best = min(best, el)
			iters = max(1, uint64(float64(k)*float64(targetNS)/float64(best)+0.999))
			break
		}
		k *= 2
	}
	return min(iters, 1<<30)
}

// ringOverhead times the one-context overheads into out: one goroutine,
// the same channels, no switch — send into each channel's slot and take
// the token back out, touching each member's working set (or, hot, the
// head's own). It returns the sums, to keep the touching alive.
func ringOverhead(out *RingOutput, blk Block, iters uint64, chans []chan uint64, sets [][]uint64, set []uint64) uint64 {
	var acc uint64
	out.OverheadNS, out.OverheadTSC = make([]uint64, blk.Samples), make([]uint64, blk.Samples)
	out.HotNS, out.HotTSC = make([]uint64, blk.Samples), make([]uint64, blk.Samples)
	t := uint64(0)
	for s := 0; s < blk.Warmup+blk.Samples; s++ {
		for hot := 0; hot < 2; hot++ {
			t0 := now()
			for i := uint64(0); i < iters; i++ {
				for k, c := range chans {
					if hot == 1 {
						acc += ringTouch(set)
					} else {
						acc += ringTouch(sets[k])
					}
					c <- t + 1
					t = <-c
				}
			}
			t1 := now()
			if s >= blk.Warmup {
				ns, tsc := out.OverheadNS, out.OverheadTSC
				if hot == 1 {
					ns, tsc = out.HotNS, out.HotTSC
				}
				ns[s-blk.Warmup] = uint64(t1.ns - t0.ns)
				tsc[s-blk.Warmup] = t1.tsc - t0.tsc
			}
		}
	}
	return acc
}
