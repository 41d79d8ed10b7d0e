//go:build cgo && linux

package kernels

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-function
#cgo LDFLAGS: -lpthread
#include <stdlib.h>
#include "kernels.h"

int cb_floor_asm(cb_block *b);
int cb_floor_swapcontext(cb_block *b);
int cb_thread_pipe(cb_block *b);
int cb_thread_futex(cb_block *b);
int cb_thread_futex_spin(cb_block *b);
int cb_thread_yield(cb_block *b);
int cb_proc_pipe_a(cb_block *b);
int cb_proc_pipe_b(cb_block *b);
int cb_proc_futex_a(cb_block *b);
int cb_proc_futex_b(cb_block *b);
int cb_ref_syscall(cb_block *b);
int cb_ref_mutex(cb_block *b);
int cb_ref_atomic(cb_block *b);
int cb_ref_pipe_self(cb_block *b);
int cb_ref_cacheline(cb_block *b);
const char *cb_cc_version(void);
*/
import "C"

import (
	"errors"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Built reports whether the C kernels are compiled in.
const Built = true

// CCVersion names the C compiler that built the kernels.
func CCVersion() string { return C.GoString(C.cb_cc_version()) }

// Run calls kernel k on an OS thread of its own and returns what it
// measured.
//
// Note: the kernel pins the calling thread, so Run locks a goroutine to it
// and restores the thread's affinity before unlocking. It must not let the
// goroutine exit locked: the runtime would then destroy the thread, and a
// partner process started from that thread would receive its Pdeathsig.
func Run(k Kernel, blk Block) (Output, error) {
	type ret struct {
		out Output
		err error
	}
	ch := make(chan ret, 1)
	go func() {
		runtime.LockOSThread()
		var old unix.CPUSet
		saved := unix.SchedGetaffinity(0, &old) == nil
		out, err := run(k, blk)
		if saved && unix.SchedSetaffinity(0, &old) == nil {
			runtime.UnlockOSThread()
		}
		ch <- ret{out, err}
	}()
	r := <-ch
	return r.out, r.err
}

func run(k Kernel, blk Block) (Output, error) {
	if blk.Samples <= 0 || blk.Iters == 0 || blk.Warmup < 0 {
		return Output{}, errBlock(k)
	}
	n := C.size_t(blk.Samples)
	ns := (*C.uint64_t)(C.calloc(n, 8))
	tsc := (*C.uint64_t)(C.calloc(n, 8))
	defer C.free(unsafe.Pointer(ns))
	defer C.free(unsafe.Pointer(tsc))

	var b C.cb_block
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
	b.ns = ns
	b.tsc = tsc
	b.a.perf_cs, b.a.perf_migrations, b.a.perf_instructions, b.a.perf_cycles = -1, -1, -1, -1
	b.b.perf_cs, b.b.perf_migrations, b.b.perf_instructions, b.b.perf_cycles = -1, -1, -1, -1

	var rc C.int
	switch k {
	case FloorAsm:
		rc = C.cb_floor_asm(&b)
	case FloorSwapcontext:
		rc = C.cb_floor_swapcontext(&b)
	case ThreadPipe:
		rc = C.cb_thread_pipe(&b)
	case ThreadFutex:
		rc = C.cb_thread_futex(&b)
	case ThreadFutexSpin:
		rc = C.cb_thread_futex_spin(&b)
	case ThreadYield:
		rc = C.cb_thread_yield(&b)
	case ProcPipeA:
		rc = C.cb_proc_pipe_a(&b)
	case ProcPipeB:
		rc = C.cb_proc_pipe_b(&b)
	case ProcFutexA:
		rc = C.cb_proc_futex_a(&b)
	case ProcFutexB:
		rc = C.cb_proc_futex_b(&b)
	case RefSyscall:
		rc = C.cb_ref_syscall(&b)
	case RefMutex:
		rc = C.cb_ref_mutex(&b)
	case RefAtomic:
		rc = C.cb_ref_atomic(&b)
	case RefPipeSelf:
		rc = C.cb_ref_pipe_self(&b)
	case RefCacheline:
		rc = C.cb_ref_cacheline(&b)
	case RingMember:
		rc = ringMember(&b) // ring_linux.go
	default:
		return Output{}, errUnknown(k)
	}
	if rc != 0 {
		return Output{}, errors.New(C.GoString(&b.err[0]))
	}
	out := Output{
		NS:  make([]uint64, blk.Samples),
		TSC: make([]uint64, blk.Samples),
		A:   counts(&b.a),
		B:   counts(&b.b),
	}
	copy(out.NS, unsafe.Slice((*uint64)(unsafe.Pointer(ns)), blk.Samples))
	copy(out.TSC, unsafe.Slice((*uint64)(unsafe.Pointer(tsc)), blk.Samples))
	return out, nil
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
