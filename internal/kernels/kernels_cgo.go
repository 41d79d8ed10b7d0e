//go:build cgo && linux

package kernels

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-function
#cgo LDFLAGS: -lpthread -lm
#include "kernels.h"

int cb_floor_asm(cb_block *b);
int cb_floor_swapcontext(cb_block *b);
int cb_thread_pipe(cb_block *b);
int cb_thread_eventfd(cb_block *b);
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

// Built reports whether the C kernels are compiled in.
const Built = true

// CCVersion names the C compiler that built the kernels.
func CCVersion() string { return C.GoString(C.cb_cc_version()) }

// Run calls kernel k on an OS thread of its own (see onThread) and returns
// what it measured.
func Run(k Kernel, blk Block) (Output, error) {
	return onThread(func() (Output, error) { return run(k, blk) })
}

func run(k Kernel, blk Block) (Output, error) {
	return callKernel(k, blk, func(b *C.cb_block) (rc C.int, err error) {
		switch k {
		case FloorAsm:
			rc = C.cb_floor_asm(b)
		case FloorSwapcontext:
			rc = C.cb_floor_swapcontext(b)
		case ThreadPipe:
			rc = C.cb_thread_pipe(b)
		case ThreadEventfd:
			rc = C.cb_thread_eventfd(b)
		case ThreadFutex:
			rc = C.cb_thread_futex(b)
		case ThreadFutexSpin:
			rc = C.cb_thread_futex_spin(b)
		case ThreadYield:
			rc = C.cb_thread_yield(b)
		case ProcPipeA:
			rc = C.cb_proc_pipe_a(b)
		case ProcPipeB:
			rc = C.cb_proc_pipe_b(b)
		case ProcFutexA:
			rc = C.cb_proc_futex_a(b)
		case ProcFutexB:
			rc = C.cb_proc_futex_b(b)
		case RefSyscall:
			rc = C.cb_ref_syscall(b)
		case RefMutex:
			rc = C.cb_ref_mutex(b)
		case RefAtomic:
			rc = C.cb_ref_atomic(b)
		case RefPipeSelf:
			rc = C.cb_ref_pipe_self(b)
		case RefCacheline:
			rc = C.cb_ref_cacheline(b)
		case RingMember:
			rc = ringMember(b) // ring_linux.go
		default:
			err = errUnknown(k)
		}
		return rc, err
	})
}
