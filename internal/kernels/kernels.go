// Package kernels holds ctxbench's timed loops.
//
// It is the only package that uses cgo: every kernel-level loop is a C
// function that owns its whole timed region (see kernels.h); the goroutine
// kernels are Go, because Go is the runtime being measured. The harness only
// prepares a Block, calls Run, and reads the Output.
package kernels

import (
	"errors"
	"fmt"

	"github.com/ctxbench/ctxbench/internal/model"
)

// Kernel names a C kernel. The catalog (internal/catalog) says what one op of
// each is and how many hops it makes.
type Kernel string

// The C kernels. "A" and "B" name the timing side and the echoing side of a
// two-process measurement, which run in different processes.
const (
	FloorAsm         Kernel = "floor-asm"
	FloorSwapcontext Kernel = "floor-swapcontext"
	ThreadPipe       Kernel = "thread-pipe"
	ThreadEventfd    Kernel = "thread-eventfd"
	ThreadFutex      Kernel = "thread-futex"
	ThreadFutexSpin  Kernel = "thread-futex-spin"
	ThreadYield      Kernel = "thread-yield"
	ProcPipeA        Kernel = "proc-pipe-a"
	ProcPipeB        Kernel = "proc-pipe-b"
	ProcFutexA       Kernel = "proc-futex-a"
	ProcFutexB       Kernel = "proc-futex-b"
	RefSyscall       Kernel = "ref-syscall"
	RefMutex         Kernel = "ref-mutex"
	RefAtomic        Kernel = "ref-atomic"
	RefPipeSelf      Kernel = "ref-pipe-self"
	RefCacheline     Kernel = "ref-cacheline"
	// macOS's own primitives (pingpong_darwin.c): a kqueue user event
	// where Linux has the eventfd, wait-on-address where it has the futex.
	ThreadKqueueUser    Kernel = "thread-kqueue-user"
	ThreadWaitOnAddress Kernel = "thread-wait-on-address"
	ProcWaitOnAddressA  Kernel = "proc-wait-on-address-a"
	ProcWaitOnAddressB  Kernel = "proc-wait-on-address-b"
)

// Counts is what one side counted about itself over a whole block (the
// vocabulary's type: workers answer with it).
type Counts = model.Counts

// Block is one call into a kernel: Warmup discarded samples, then Samples
// measured ones, each of Iters ops.
type Block struct {
	Iters   uint64
	Samples int
	Warmup  int
	CPUA    int // -1: leave the affinity alone
	CPUB    int
	FD      [4]int
	Arg     int64
	Perf    bool // open perf events on each side (costly: see kernels.h)
}

// Output is what a kernel measured: per-sample elapsed nanoseconds
// (CLOCK_MONOTONIC_RAW) and TSC ticks, and each side's counts.
type Output struct {
	NS  []uint64
	TSC []uint64
	A   Counts
	B   Counts
	// Process is the whole process's switches, where A and B are threads.
	Process *Counts
	// SwitchMethod says how the switches were counted where it is not
	// the usual per-thread getrusage (macOS counts per process).
	SwitchMethod string
}

// Families lists the families of C kernels a platform may lack, each with
// whether this build has it: a build without cgo has none, and macOS's
// C kernels do not (yet) include the rings, the creation kernels and the
// load generator, whose Linux code counts per thread, clones, and waits on
// futexes.
func Families() map[string]bool {
	return map[string]bool{"rings": RingBuilt, "creation": SpawnBuilt, "load": LoadBuilt}
}

// ErrNoCgo is returned by Run in a build without cgo.
var ErrNoCgo = errors.New("this ctxbench was built without cgo: the C kernels are missing")

func errBlock(k Kernel) error   { return fmt.Errorf("kernel %s: need samples > 0 and iterations > 0", k) }
func errUnknown(k Kernel) error { return fmt.Errorf("unknown kernel %q", k) }
