//go:build cgo && linux

package kernels

/*
#include <stdlib.h>
#include "ring.h"
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RingThreads runs a ring of cfg.Tasks threads of this process (ring.c,
// cb_ring_threads): the calling thread is the head, pinned to blk.CPUA;
// member i runs on CPUB when i is odd and on CPUA when even (-1: unpinned).
// With blk.Iters 0 the head calibrates rounds per sample to
// cfg.MinSampleNS. On failure the output still says how many threads
// started and the errno, for a message naming the limit.
func RingThreads(blk Block, cfg RingConfig) (RingOutput, error) {
	return onThread(func() (RingOutput, error) { return ringCall(blk, cfg, 't') })
}

// RingHead runs the head of a process ring: blk.FD[0] is the read end of
// the last member's pipe, blk.FD[1] the write end of the pipe to member 1.
// The members are cb_ring_member partners (kernel RingMember).
func RingHead(blk Block, cfg RingConfig) (RingOutput, error) {
	return onThread(func() (RingOutput, error) { return ringCall(blk, cfg, 'h') })
}

// RingOverhead measures the one-context overheads of a process ring in
// this process: cfg.Tasks new pipes and working sets, blk.Iters rounds per
// sample (the ring's). Only OverheadNS/TSC and HotNS/TSC are filled.
func RingOverhead(blk Block, cfg RingConfig) (RingOutput, error) {
	cfg.Overhead = true
	return onThread(func() (RingOutput, error) { return ringCall(blk, cfg, 'o') })
}

// ringMember is kernel RingMember, called by Run in a partner process.
func ringMember(b *C.cb_block) C.int { return C.cb_ring_member(b) }

// onThread runs f locked to an OS thread and gives the thread back with
// its affinity restored (ring.c pins it); a thread is never destroyed here,
// because a partner started from it would get its Pdeathsig.
func onThread(f func() (RingOutput, error)) (RingOutput, error) {
	type ret struct {
		out RingOutput
		err error
	}
	ch := make(chan ret, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		saved := unix.SchedGetaffinity(0, &old) == nil
		out, err := f()
		if saved && unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		ch <- ret{out, err}
	}()
	r := <-ch
	return r.out, r.err
}

func ringCall(blk Block, cfg RingConfig, which byte) (RingOutput, error) {
	if blk.Samples <= 0 || blk.Warmup < 0 || cfg.Tasks < 1 || cfg.WorkingSet < 0 {
		return RingOutput{}, errors.New("ring: need samples > 0, warm-up >= 0, tasks >= 1 and a working set >= 0")
	}
	if which != 'o' && blk.Iters == 0 && cfg.MinSampleNS == 0 {
		return RingOutput{}, errors.New("ring: need rounds per sample or a target sample length")
	}
	if which == 'o' && blk.Iters == 0 {
		return RingOutput{}, errors.New("ring overhead: need the ring's rounds per sample")
	}
	n := blk.Samples
	buf := (*C.uint64_t)(C.calloc(C.size_t(6*n), 8))
	if buf == nil {
		return RingOutput{}, errors.New("ring: out of memory")
	}
	defer C.free(unsafe.Pointer(buf))
	all := unsafe.Slice((*uint64)(unsafe.Pointer(buf)), 6*n)
	at := func(i int) *C.uint64_t { return (*C.uint64_t)(unsafe.Pointer(&all[i*n])) }

	var b C.cb_block
	b.iters = C.uint64_t(blk.Iters)
	b.samples = C.uint32_t(blk.Samples)
	b.warmup = C.uint32_t(blk.Warmup)
	b.cpu_a = C.int32_t(blk.CPUA)
	b.cpu_b = C.int32_t(blk.CPUB)
	for i, fd := range blk.FD {
		b.fd[i] = C.int32_t(fd)
	}
	if blk.Perf {
		b.perf = 1
	}
	b.ns, b.tsc = at(0), at(1)
	b.a.perf_cs, b.a.perf_migrations, b.a.perf_instructions, b.a.perf_cycles = -1, -1, -1, -1
	b.b.perf_cs, b.b.perf_migrations, b.b.perf_instructions, b.b.perf_cycles = -1, -1, -1, -1

	var r C.cb_ring
	r.n = C.int32_t(cfg.Tasks)
	r.ws = C.int64_t(cfg.WorkingSet)
	r.stack = C.uint64_t(cfg.StackBytes)
	r.min_sample_ns = C.uint64_t(cfg.MinSampleNS)
	r.ipc = C.int32_t(cfg.IPC)
	if cfg.Overhead {
		r.overhead = 1
	}
	r.members = b.b
	r.ovh_ns, r.ovh_tsc, r.hot_ns, r.hot_tsc = at(2), at(3), at(4), at(5)

	var rc C.int
	switch which {
	case 't':
		rc = C.cb_ring_threads(&b, &r)
	case 'h':
		rc = C.cb_ring_head(&b, &r)
	default:
		r.rounds_per_sample = C.uint64_t(blk.Iters)
		rc = C.cb_ring_overhead(&b, &r)
	}
	out := RingOutput{
		Output:          Output{A: counts(&b.a), B: counts(&r.members)},
		RoundsPerSample: uint64(r.rounds_per_sample),
		Rounds:          uint64(r.rounds),
		Token:           uint64(r.token),
		Passes:          uint64(r.passes),
		MinPasses:       uint64(r.min_passes),
		MaxPasses:       uint64(r.max_passes),
		Started:         int(r.started),
		Errno:           int(r.fail_errno),
	}
	if rc != 0 {
		return out, errors.New(C.GoString(&b.err[0]))
	}
	cp := func(i int) []uint64 { return append([]uint64(nil), all[i*n:(i+1)*n]...) }
	if which != 'o' {
		out.NS, out.TSC = cp(0), cp(1)
	}
	if cfg.Overhead || which == 'o' {
		out.OverheadNS, out.OverheadTSC, out.HotNS, out.HotTSC = cp(2), cp(3), cp(4), cp(5)
	}
	return out, nil
}
