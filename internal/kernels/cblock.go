//go:build cgo

package kernels

/*
#include <stdlib.h>
#include "kernels.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// cBlock is a cb_block with its per-sample buffers in C memory (cgo forbids
// handing C a pointer to Go memory that holds Go pointers): buffer 0 is the
// ns per sample, buffer 1 the TSC ticks, and a kernel may ask for more.
// Every Go wrapper of a C kernel prepares its call with it.
type cBlock struct {
	b   C.cb_block
	buf *C.uint64_t
	n   int
}

// newCBlock prepares a call. It checks the samples; a kernel that needs ops
// per sample checks Iters itself (some calibrate their own).
func newCBlock(k string, blk Block, buffers int) (*cBlock, error) {
	if blk.Samples <= 0 || blk.Warmup < 0 {
		return nil, errBlock(Kernel(k))
	}
	c := &cBlock{n: blk.Samples}
	c.buf = (*C.uint64_t)(C.calloc(C.size_t((2+buffers)*blk.Samples), 8))
	if c.buf == nil {
		return nil, errors.New("kernel " + k + ": out of memory")
	}
	b := &c.b
	b.iters = C.uint64_t(blk.Iters)
	b.samples = C.uint32_t(blk.Samples)
	b.warmup = C.uint32_t(blk.Warmup)
	b.cpu_a = C.int32_t(blk.CPUA)
	b.cpu_b = C.int32_t(blk.CPUB)
	for i, fd := range blk.FD {
		b.fd[i] = C.int32_t(fd)
	}
	b.arg = C.int64_t(blk.Arg)
	if blk.Perf {
		b.perf = 1
	}
	b.ns, b.tsc = c.slot(0), c.slot(1)
	// "Not measured" must never read as zero.
	b.a.perf_cs, b.a.perf_migrations, b.a.perf_instructions, b.a.perf_cycles = -1, -1, -1, -1
	b.b.perf_cs, b.b.perf_migrations, b.b.perf_instructions, b.b.perf_cycles = -1, -1, -1, -1
	return c, nil
}

// slot is buffer i, for the C side.
func (c *cBlock) slot(i int) *C.uint64_t {
	return (*C.uint64_t)(unsafe.Add(unsafe.Pointer(c.buf), i*c.n*8))
}

// samples copies buffer i out of C memory.
func (c *cBlock) samples(i int) []uint64 {
	return append([]uint64(nil), unsafe.Slice((*uint64)(unsafe.Pointer(c.slot(i))), c.n)...)
}

func (c *cBlock) free() { C.free(unsafe.Pointer(c.buf)) }

// err is the kernel's one-line reason for failing.
func (c *cBlock) err() error { return errors.New(C.GoString(&c.b.err[0])) }

// output is the samples and both sides' counts.
func (c *cBlock) output() Output {
	return Output{NS: c.samples(0), TSC: c.samples(1), A: counts(&c.b.a), B: counts(&c.b.b)}
}

func counts(c *C.cb_counts) Counts {
	return Counts{
		Voluntary:        int64(c.nvcsw),
		Involuntary:      int64(c.nivcsw),
		PerfSwitches:     int64(c.perf_cs),
		PerfMigrations:   int64(c.perf_migrations),
		PerfInstructions: int64(c.perf_instructions),
		PerfCycles:       int64(c.perf_cycles),
		CPUsSeen:         uint64(c.cpus_seen),
		Ops:              uint64(c.ops),
	}
}

// callKernel prepares a cb_block from blk (which must give ops per sample),
// has kernel call the C function of k on it (or say that k has none), and
// returns what the C function measured, or its one-line reason for failing.
func callKernel(k Kernel, blk Block, kernel func(b *C.cb_block) (C.int, error)) (Output, error) {
	if blk.Iters == 0 {
		return Output{}, errBlock(k)
	}
	c, err := newCBlock(string(k), blk, 0)
	if err != nil {
		return Output{}, err
	}
	defer c.free()
	rc, err := kernel(&c.b)
	if err != nil {
		return Output{}, err
	}
	if rc != 0 {
		return Output{}, c.err()
	}
	return c.output(), nil
}
