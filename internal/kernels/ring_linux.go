//go:build cgo && linux

package kernels

/*
#include <stdlib.h>
#include "ring.h"
*/
import "C"

import (
	"errors"
)

// RingBuilt says whether this build has the ring kernels.
const RingBuilt = true

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
	// Buffers: 0 ns, 1 TSC, 2-3 overhead ns/TSC, 4-5 hot-cache overhead ns/TSC.
	c, err := newCBlock("ring", blk, 4)
	if err != nil {
		return RingOutput{}, err
	}
	defer c.free()
	b := &c.b

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
	r.ovh_ns, r.ovh_tsc, r.hot_ns, r.hot_tsc = c.slot(2), c.slot(3), c.slot(4), c.slot(5)

	var rc C.int
	switch which {
	case 't':
		rc = C.cb_ring_threads(b, &r)
	case 'h':
		rc = C.cb_ring_head(b, &r)
	default:
		r.rounds_per_sample = C.uint64_t(blk.Iters)
		rc = C.cb_ring_overhead(b, &r)
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
		return out, c.err()
	}
	if which != 'o' {
		out.NS, out.TSC = c.samples(0), c.samples(1)
	}
	if cfg.Overhead || which == 'o' {
		out.OverheadNS, out.OverheadTSC, out.HotNS, out.HotTSC = c.samples(2), c.samples(3), c.samples(4), c.samples(5)
	}
	return out, nil
}
