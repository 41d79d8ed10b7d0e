//go:build cgo

package kernels

/*
#cgo CFLAGS: -O2 -Wall -Wno-unused-function -Wno-deprecated-declarations
#include "kernels.h"

int cb_floor_asm(cb_block *b);
int cb_floor_swapcontext(cb_block *b);
int cb_thread_pipe(cb_block *b);
int cb_thread_kqueue_user(cb_block *b);
int cb_thread_wait_on_address(cb_block *b);
int cb_thread_yield(cb_block *b);
int cb_proc_pipe_a(cb_block *b);
int cb_proc_pipe_b(cb_block *b);
int cb_proc_wait_on_address_a(cb_block *b);
int cb_proc_wait_on_address_b(cb_block *b);
int cb_ref_syscall(cb_block *b);
int cb_ref_mutex(cb_block *b);
int cb_ref_atomic(cb_block *b);
int cb_ref_pipe_self(cb_block *b);
int cb_ref_cacheline(cb_block *b);
const char *cb_cc_version(void);
const char *cb_wait_primitive(void);
*/
import "C"

// kernels_cgo_darwin.go: the C kernels of macOS (counts_darwin.c,
// pingpong_darwin.c, reference_darwin.c, st_darwin.c, floor.c and
// floor_darwin_arm64.c): the floor, the thread and process ping-pongs over
// pipes, a kqueue user event and wait-on-address, yield, and the reference
// rows. Linux's eventfd and futex kernels have no macOS counterpart here
// (the kqueue and wait-on-address ones stand in), nor do the rings, the
// creation kernels and the load generator (Families).

import "fmt"

// Built reports whether the C kernels are compiled in.
const Built = true

// CCVersion names the C compiler that built the kernels.
func CCVersion() string { return C.GoString(C.cb_cc_version()) }

// WaitPrimitive names the wait-on-address interface this Mac has:
// os_sync_wait_on_address (macOS 14.4+) or __ulock_wait.
func WaitPrimitive() string { return C.GoString(C.cb_wait_primitive()) }

// Run calls kernel k on an OS thread of its own (see onThread) and returns
// what it measured.
func Run(k Kernel, blk Block) (Output, error) {
	return onThread(func() (Output, error) {
		out, err := run(k, blk)
		out.SwitchMethod = SwitchMethod(k)
		return out, err
	})
}

// SwitchMethod says how macOS counted the switches of kernel k's sides.
func SwitchMethod(k Kernel) string {
	switch k {
	case ProcPipeA, ProcPipeB, ProcWaitOnAddressA, ProcWaitOnAddressB:
		return "task_info(TASK_EVENTS_INFO) csw of each side's process over every measured block (macOS counts per process; a single-threaded side's count is its own; voluntary and involuntary are not told apart)"
	case FloorAsm, FloorSwapcontext, RefSyscall, RefMutex, RefAtomic, RefPipeSelf:
		return "task_info(TASK_EVENTS_INFO) csw of the worker process over every measured block (macOS counts per process)"
	}
	return "task_info(TASK_EVENTS_INFO) csw of the worker process over every measured block: both threads together and the Go runtime's own threads (macOS counts no thread apart; voluntary and involuntary are not told apart)"
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
		case ThreadKqueueUser:
			rc = C.cb_thread_kqueue_user(b)
		case ThreadWaitOnAddress:
			rc = C.cb_thread_wait_on_address(b)
		case ThreadYield:
			rc = C.cb_thread_yield(b)
		case ProcPipeA:
			rc = C.cb_proc_pipe_a(b)
		case ProcPipeB:
			rc = C.cb_proc_pipe_b(b)
		case ProcWaitOnAddressA:
			rc = C.cb_proc_wait_on_address_a(b)
		case ProcWaitOnAddressB:
			rc = C.cb_proc_wait_on_address_b(b)
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
		case ThreadEventfd, ThreadFutex, ThreadFutexSpin, ProcFutexA, ProcFutexB, RingMember:
			err = fmt.Errorf("kernel %s is Linux's: macOS's C kernels do not have it", k)
		default:
			err = errUnknown(k)
		}
		return rc, err
	})
}
