package catalog

// ladder.go: the kernel-level rows of the ladder's lower rungs — the floor,
// goroutines, OS threads, processes — and the reference rows that are not
// switches. One row per benchmark; its C kernel is in internal/kernels, its
// goroutine kernel in internal/kernels/goroutine.go.

import (
	"context"
	"runtime"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/partner"
)

var (
	single     = []model.Placement{model.SameCPU}
	pair       = []model.Placement{model.SameCPU, model.CrossCPU, model.Unpinned}
	pairLadder = []model.Placement{model.SameCPU, model.CrossCPU}
)

const oneThread = "a single thread: same-cpu means pinned to one CPU; there is no second context"

// SwapWords say what floor/asm-swap is on arch (a GOARCH): the two swaps
// are different code (floor.c, floor_arm64.c). The row says this build's;
// a fake document of another architecture's machine says that one's.
func SwapWords(arch string) (description, mechanism string) {
	if arch == "arm64" {
		return "hand-written arm64 swap of the AAPCS64 callee-saved registers (x19-x30, d8-d15), stack pointer and resume address between two stacks",
			"called swap function (stores x19-x30 and d8-d15 on the stack, swaps sp, br to the other side's x30; all twenty callee-saved registers whether live or not; no FPCR/FPSR, SVE state or signal mask)"
	}
	return "hand-written x86-64 swap of callee-saved registers, stack pointer and resume address between two stacks",
		"inline stack switch (pushes rbp and a resume address, swaps rsp, jmp-based; the compiler saves only the callee-saved registers live across it; no FPU/SSE state, no signal mask)"
}

func floorRows() []*model.Benchmark {
	swapDescription, swapMechanism := SwapWords(runtime.GOARCH)
	return []*model.Benchmark{
		&model.Benchmark{
			Name: "floor/asm-swap", Rung: model.Floor, Kind: model.Switch,
			Description: swapDescription,
			Op:          "round trip A -> B -> A through the swap (2 hops)", HopsPerOp: 2,
			Switched: "another user-space stack in the same thread", Mechanism: swapMechanism,
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 16, Needs: needsSwap, Run: inProcess(kernels.FloorAsm),
			Hops: func(r model.Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},
		&model.Benchmark{
			Name: "floor/swapcontext", Rung: model.Floor, Kind: model.Switch,
			Description: "glibc swapcontext(3) between two ucontexts: saves the full context and calls rt_sigprocmask on every switch",
			Op:          "round trip A -> B -> A through swapcontext (2 hops)", HopsPerOp: 2,
			Switched: "another user-space stack in the same thread", Mechanism: "glibc swapcontext (full ucontext + rt_sigprocmask syscall per switch)",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 12, Needs: needsCgo, Run: inProcess(kernels.FloorSwapcontext),
			Hops: func(r model.Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},
	}
}

func goroutineRows() []*model.Benchmark {
	return []*model.Benchmark{
		&model.Benchmark{
			Name: "goroutine/chan-gomaxprocs1", Rung: model.Goroutine, Kind: model.Switch, Warmup: 3,
			Description: "two goroutines ping-pong over two unbuffered channels at GOMAXPROCS=1 (the published experiment, configuration 1)",
			Op:          "round trip: send on ping, receive on pong (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine on the same P (one OS thread)", Mechanism: "unbuffered channel ping-pong (two channels)",
			Placements: []model.Placement{model.SameCPU, model.Unpinned}, Ladder: single,
			PlacementNote: "at GOMAXPROCS=1 the goroutines share one P; cross-cpu has no meaning",
			Settings:      []string{"GOMAXPROCS=1"}, Env: []string{"GOMAXPROCS=1"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoChanPingPong),
		},
		&model.Benchmark{
			Name: "goroutine/chan-gomaxprocsN", Rung: model.Goroutine, Kind: model.Switch, Warmup: 3,
			Description: "the same ping-pong at GOMAXPROCS = number of CPUs allowed (the published experiment, configuration 2)",
			Op:          "round trip: send on ping, receive on pong (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine, possibly on another P and OS thread", Mechanism: "unbuffered channel ping-pong (two channels)",
			Placements: []model.Placement{model.CrossCPU, model.Unpinned}, Ladder: []model.Placement{model.Unpinned},
			PlacementNote: "with one CPU GOMAXPROCS would be 1: that is goroutine/chan-gomaxprocs1",
			Settings:      []string{"GOMAXPROCS=CPUs allowed"}, Unset: []string{"GOMAXPROCS"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoChanPingPong),
		},
		&model.Benchmark{
			Name: "goroutine/one-chan", Rung: model.Goroutine, Kind: model.Switch, Warmup: 3,
			Description: "two goroutines pass an int back and forth over one unbuffered channel (the second published program), GOMAXPROCS = CPUs allowed",
			Op:          "round trip: A sends then receives on the same channel (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine", Mechanism: "one unbuffered chan int, each side sends then receives",
			Placements: []model.Placement{model.SameCPU, model.Unpinned}, Ladder: []model.Placement{model.Unpinned},
			PlacementNote: "GOMAXPROCS follows the CPUs allowed: 1 for same-cpu",
			Settings:      []string{"GOMAXPROCS=CPUs allowed"}, Unset: []string{"GOMAXPROCS"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoOneChan),
		},
		&model.Benchmark{
			Name: "goroutine/gosched", Rung: model.Goroutine, Kind: model.Switch, Warmup: 3,
			Description: "two goroutines each call runtime.Gosched in a loop at GOMAXPROCS=1; each call hands the P to the other",
			Op:          "A's Gosched plus B's Gosched (2 hops; both sides' calls are counted)", HopsPerOp: 2,
			Switched: "another goroutine on the same P", Mechanism: "runtime.Gosched handoff",
			Placements: []model.Placement{model.SameCPU}, Ladder: single,
			PlacementNote: "at GOMAXPROCS=1 both goroutines share one P",
			Settings:      []string{"GOMAXPROCS=1"}, Env: []string{"GOMAXPROCS=1"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoGosched),
			Hops: func(r model.Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},
		&model.Benchmark{
			Name: "goroutine/locked-chan", Rung: model.Goroutine, Kind: model.Switch, Warmup: 3,
			Description: "the two-channel ping-pong with each goroutine locked to its own OS thread (runtime.LockOSThread), GOMAXPROCS=1: every handoff is an OS thread switch",
			Op:          "round trip: send on ping, receive on pong (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine locked to another OS thread", Mechanism: "unbuffered channel ping-pong, LockOSThread on both sides",
			Placements: []model.Placement{model.SameCPU}, Ladder: single,
			PlacementNote: "the two threads share one P; the process is pinned to one CPU",
			ExpectSwitch:  true,
			Settings:      []string{"GOMAXPROCS=1", "LockOSThread"}, Env: []string{"GOMAXPROCS=1"},
			StartIters: 1 << 8, Run: goroutines(kernels.GoLockedChan),
		},
	}
}

func threadRows() []*model.Benchmark {
	return []*model.Benchmark{
		&model.Benchmark{
			Name: "thread/pipe", Rung: model.Thread, Kind: model.Switch,
			Description: "two threads of one process ping-pong a 4-byte int over two pipes (perf bench sched pipe -T)",
			Op:          "round trip: write to pipe 1, blocking read of pipe 2 (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "pipe ping-pong (4-byte write, blocking read)",
			Placements: pair, Ladder: pairLadder, LadderLevels: true, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo, Phases: "pipe", Run: inProcess(kernels.ThreadPipe),
		},
		&model.Benchmark{
			Name: "thread/eventfd", Rung: model.Thread, Kind: model.Switch,
			Description: "two threads of one process ping-pong over two eventfds: the pipe ping-pong without a pipe's buffer",
			Op:          "round trip: add 1 to the other's eventfd, blocking read of its own (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "eventfd ping-pong (8-byte add, blocking read)",
			Placements: pair, Ladder: pairLadder, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo, Phases: "pipe", Run: inProcess(kernels.ThreadEventfd),
		},
		&model.Benchmark{
			Name: "thread/futex", Rung: model.Thread, Kind: model.Switch,
			Description: "two threads ping-pong a turn flag with FUTEX_WAKE / FUTEX_WAIT (private futex), never spinning",
			Op:          "round trip: store + FUTEX_WAKE, FUTEX_WAIT until answered (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "futex ping-pong (private futex, no spinning)",
			Placements: pair, Ladder: pairLadder, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo, Phases: "futex", Run: inProcess(kernels.ThreadFutex),
		},
		&model.Benchmark{
			Name: "thread/futex-spin", Rung: model.Thread, Kind: model.Switch,
			Description: "the futex ping-pong, but each waiter polls the flag ~2000 times before sleeping, as adaptive mutexes do: across CPUs the handoff usually needs no switch at all",
			Op:          "round trip: store + FUTEX_WAKE, poll then FUTEX_WAIT (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "spin-then-futex handoff (2000 polls before sleeping)",
			Placements: []model.Placement{model.CrossCPU, model.Unpinned}, Ladder: []model.Placement{model.CrossCPU},
			PlacementNote: "on one CPU a spinning waiter only burns its partner's time slice",
			ExpectSwitch:  true, Arg: 2000,
			StartIters: 256, Needs: needsCgo, Run: inProcess(kernels.ThreadFutexSpin),
		},
		&model.Benchmark{
			Name: "thread/yield", Rung: model.Thread, Kind: model.Switch,
			Description: "two threads on one CPU call sched_yield in a loop; each yield hands the CPU to the other",
			Op:          "A's sched_yield plus B's (2 hops; both sides' calls are counted)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "sched_yield pair",
			Placements: single, Ladder: single, ExpectSwitch: true,
			PlacementNote: "sched_yield only hands over to another runnable task on the same CPU; on two CPUs each call returns at once and nothing is switched",
			StartIters:    256, Needs: needsCgo, Phases: "yield", Run: inProcess(kernels.ThreadYield),
			Hops: func(r model.Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},
	}
}

func processRows() []*model.Benchmark {
	const st = "another process (separate address space; both processes single-threaded)"
	const mt = "another process (separate address space; both processes multi-threaded, as every Go process is)"
	return []*model.Benchmark{
		&model.Benchmark{
			Name: "process/pipe", Rung: model.Process, Kind: model.Switch,
			Description: "two single-threaded processes ping-pong a 4-byte int over two pipes (perf bench sched pipe; the fork-and-two-pipes experiment); both are this binary re-executed, running their C side before any Go thread exists",
			Op:          "round trip: write to pipe 1, blocking read of pipe 2 (2 hops)", HopsPerOp: 2,
			Switched: st, Mechanism: "pipe ping-pong (4-byte write, blocking read)",
			Placements: pair, Ladder: pairLadder, LadderLevels: true, ExpectSwitch: true,
			StartIters: 256, Needs: needsSingleThreaded,
			Phases: "pipe", Run: func(ctx context.Context, req model.Request) (model.Response, error) {
				return singleThreaded(ctx, req, pipePair, "pipe-a", "pipe-b")
			},
		},
		&model.Benchmark{
			Name: "process/pipe-mt", Rung: model.Process, Kind: model.Switch,
			Description: "process/pipe between multi-threaded processes (the worker and a Go partner): real services are multi-threaded, and a switch into a process with a second thread costs more",
			Op:          "round trip: write to pipe 1, blocking read of pipe 2 (2 hops)", HopsPerOp: 2,
			Switched: mt, Mechanism: "pipe ping-pong (4-byte write, blocking read)",
			Placements: pair, Ladder: []model.Placement{model.SameCPU}, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo,
			Phases: "pipe", Run: func(ctx context.Context, req model.Request) (model.Response, error) {
				return PipeProcesses(ctx, req, partner.Spec{})
			},
		},
		&model.Benchmark{
			Name: "process/futex", Rung: model.Process, Kind: model.Switch,
			Description: "two single-threaded processes ping-pong a turn flag in a shared page with FUTEX_WAKE / FUTEX_WAIT (shared futex), never spinning",
			Op:          "round trip: store + FUTEX_WAKE, FUTEX_WAIT until answered (2 hops)", HopsPerOp: 2,
			Switched: st, Mechanism: "futex ping-pong over a shared memfd page",
			Placements: pair, Ladder: pairLadder, ExpectSwitch: true,
			StartIters: 256, Needs: needsSingleThreaded,
			Phases: "futex", Run: func(ctx context.Context, req model.Request) (model.Response, error) {
				return singleThreaded(ctx, req, sharedPage, "futex-a", "futex-b")
			},
		},
		&model.Benchmark{
			Name: "process/futex-mt", Rung: model.Process, Kind: model.Switch,
			Description: "process/futex between multi-threaded processes (the worker and a Go partner)",
			Op:          "round trip: store + FUTEX_WAKE, FUTEX_WAIT until answered (2 hops)", HopsPerOp: 2,
			Switched: mt, Mechanism: "futex ping-pong over a shared memfd page",
			Placements: pair, Ladder: []model.Placement{model.SameCPU}, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo,
			Phases: "futex", Run: func(ctx context.Context, req model.Request) (model.Response, error) {
				return FutexProcesses(ctx, req, partner.Spec{})
			},
		},
	}
}

func referenceRows() []*model.Benchmark {
	return []*model.Benchmark{
		&model.Benchmark{
			Name: "reference/syscall", Rung: model.Reference, Kind: model.RefKind,
			Description: "one raw getppid system call (kernel entry and exit, no switch)",
			Op:          "one syscall(SYS_getppid)", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "raw system call",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 12, Needs: needsCgo, Run: inProcess(kernels.RefSyscall),
		},
		&model.Benchmark{
			Name: "reference/mutex", Rung: model.Reference, Kind: model.RefKind,
			Description: "pthread_mutex_lock + unlock of an uncontended mutex",
			Op:          "one lock + unlock", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "uncontended pthread mutex",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 16, Needs: needsCgo, Run: inProcess(kernels.RefMutex),
		},
		&model.Benchmark{
			Name: "reference/atomic", Rung: model.Reference, Kind: model.RefKind,
			Description: "one sequentially consistent atomic add (lock xadd) on a private cache line",
			Op:          "one atomic fetch-add", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "atomic add",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 16, Needs: needsCgo, Run: inProcess(kernels.RefAtomic),
		},
		&model.Benchmark{
			Name: "reference/pipe-self", Rung: model.Reference, Kind: model.RefKind,
			Description: "write 4 bytes into a pipe and read them back in one thread: the IPC cost of a pipe hop without a switch (what lmbench subtracts)",
			Op:          "one 4-byte write + read on the same pipe", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "pipe write + read in one thread",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 10, Needs: needsCgo, Run: inProcess(kernels.RefPipeSelf),
		},
		&model.Benchmark{
			Name: "reference/cacheline", Rung: model.Reference, Kind: model.RefKind,
			Description: "two threads on two CPUs hand a cache line back and forth by spinning: a handoff with no switch at all",
			Op:          "round trip of the cache line (2 handoffs)", HopsPerOp: 2,
			Switched: "nothing (a spinning thread on another CPU; not a switch)", Mechanism: "cache-line ping-pong, both sides spinning",
			Placements: []model.Placement{model.CrossCPU}, Ladder: []model.Placement{model.CrossCPU},
			PlacementNote: "both sides spin: on one CPU neither could make progress until preempted",
			StartIters:    1 << 12, Needs: needsCgo, Run: inProcess(kernels.RefCacheline),
		},
	}
}
