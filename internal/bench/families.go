package bench

import (
	"context"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/partner"
)

func init() {
	single := []Placement{SameCPU}
	pair := []Placement{SameCPU, CrossCPU, Unpinned}
	pairLadder := []Placement{SameCPU, CrossCPU}
	const oneThread = "a single thread: same-cpu means pinned to one CPU; there is no second context"

	Register(
		&Benchmark{
			Name: "floor/asm-swap", Rung: Floor, Kind: Switch,
			Description: "hand-written x86-64 swap of callee-saved registers, stack pointer and resume address between two stacks",
			Op:          "round trip A -> B -> A through the swap (2 hops)", HopsPerOp: 2,
			Switched: "another user-space stack in the same thread", Mechanism: "register/stack-pointer swap (6 callee-saved GPRs + rsp + resume address, jmp-based; no FPU/SSE state, no signal mask)",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 16, Needs: needsAMD64, Run: inProcess(kernels.FloorAsm),
			Hops: func(r Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},
		&Benchmark{
			Name: "floor/swapcontext", Rung: Floor, Kind: Switch,
			Description: "glibc swapcontext(3) between two ucontexts: saves the full context and calls rt_sigprocmask on every switch",
			Op:          "round trip A -> B -> A through swapcontext (2 hops)", HopsPerOp: 2,
			Switched: "another user-space stack in the same thread", Mechanism: "glibc swapcontext (full ucontext + rt_sigprocmask syscall per switch)",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 12, Needs: needsCgo, Run: inProcess(kernels.FloorSwapcontext),
			Hops: func(r Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},

		&Benchmark{
			Name: "goroutine/chan-gomaxprocs1", Rung: Goroutine, Kind: Switch,
			Description: "two goroutines ping-pong over two unbuffered channels at GOMAXPROCS=1 (the published experiment, configuration 1)",
			Op:          "round trip: send on ping, receive on pong (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine on the same P (one OS thread)", Mechanism: "unbuffered channel ping-pong (two channels)",
			Placements: []Placement{SameCPU, Unpinned}, Ladder: single,
			PlacementNote: "at GOMAXPROCS=1 the goroutines share one P; cross-cpu has no meaning",
			Settings:      []string{"GOMAXPROCS=1"}, Env: []string{"GOMAXPROCS=1"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoChanPingPong),
		},
		&Benchmark{
			Name: "goroutine/chan-gomaxprocsN", Rung: Goroutine, Kind: Switch,
			Description: "the same ping-pong at GOMAXPROCS = number of CPUs allowed (the published experiment, configuration 2)",
			Op:          "round trip: send on ping, receive on pong (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine, possibly on another P and OS thread", Mechanism: "unbuffered channel ping-pong (two channels)",
			Placements: []Placement{CrossCPU, Unpinned}, Ladder: []Placement{Unpinned},
			PlacementNote: "with one CPU GOMAXPROCS would be 1: that is goroutine/chan-gomaxprocs1",
			Settings:      []string{"GOMAXPROCS=CPUs allowed"}, Unset: []string{"GOMAXPROCS"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoChanPingPong),
		},
		&Benchmark{
			Name: "goroutine/one-chan", Rung: Goroutine, Kind: Switch,
			Description: "two goroutines pass an int back and forth over one unbuffered channel (the second published program), GOMAXPROCS = CPUs allowed",
			Op:          "round trip: A sends then receives on the same channel (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine", Mechanism: "one unbuffered chan int, each side sends then receives",
			Placements: []Placement{SameCPU, Unpinned}, Ladder: []Placement{Unpinned},
			PlacementNote: "GOMAXPROCS follows the CPUs allowed: 1 for same-cpu",
			Settings:      []string{"GOMAXPROCS=CPUs allowed"}, Unset: []string{"GOMAXPROCS"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoOneChan),
		},
		&Benchmark{
			Name: "goroutine/gosched", Rung: Goroutine, Kind: Switch,
			Description: "two goroutines each call runtime.Gosched in a loop at GOMAXPROCS=1; each call hands the P to the other",
			Op:          "A's Gosched plus B's Gosched (2 hops; both sides' calls are counted)", HopsPerOp: 2,
			Switched: "another goroutine on the same P", Mechanism: "runtime.Gosched handoff",
			Placements: []Placement{SameCPU}, Ladder: single,
			PlacementNote: "at GOMAXPROCS=1 both goroutines share one P",
			Settings:      []string{"GOMAXPROCS=1"}, Env: []string{"GOMAXPROCS=1"},
			StartIters: 1 << 12, Run: goroutines(kernels.GoGosched),
			Hops: func(r Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},
		&Benchmark{
			Name: "goroutine/locked-chan", Rung: Goroutine, Kind: Switch,
			Description: "the two-channel ping-pong with each goroutine locked to its own OS thread (runtime.LockOSThread), GOMAXPROCS=1: every handoff is an OS thread switch",
			Op:          "round trip: send on ping, receive on pong (2 hops)", HopsPerOp: 2,
			Switched: "another goroutine locked to another OS thread", Mechanism: "unbuffered channel ping-pong, LockOSThread on both sides",
			Placements: []Placement{SameCPU}, Ladder: single,
			PlacementNote: "the two threads share one P; the process is pinned to one CPU",
			ExpectSwitch:  true,
			Settings:      []string{"GOMAXPROCS=1", "LockOSThread"}, Env: []string{"GOMAXPROCS=1"},
			StartIters: 1 << 8, Run: goroutines(kernels.GoLockedChan),
		},

		&Benchmark{
			Name: "thread/pipe", Rung: Thread, Kind: Switch,
			Description: "two threads of one process ping-pong a 4-byte int over two pipes (perf bench sched pipe -T)",
			Op:          "round trip: write to pipe 1, blocking read of pipe 2 (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "pipe ping-pong (4-byte write, blocking read)",
			Placements: pair, Ladder: pairLadder, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo, Run: inProcess(kernels.ThreadPipe),
		},
		&Benchmark{
			Name: "thread/futex", Rung: Thread, Kind: Switch,
			Description: "two threads ping-pong a turn flag with FUTEX_WAKE / FUTEX_WAIT (private futex), never spinning",
			Op:          "round trip: store + FUTEX_WAKE, FUTEX_WAIT until answered (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "futex ping-pong (private futex, no spinning)",
			Placements: pair, Ladder: pairLadder, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo, Run: inProcess(kernels.ThreadFutex),
		},
		&Benchmark{
			Name: "thread/futex-spin", Rung: Thread, Kind: Switch,
			Description: "the futex ping-pong, but each waiter polls the flag ~2000 times before sleeping, as adaptive mutexes do: across CPUs the handoff usually needs no switch at all",
			Op:          "round trip: store + FUTEX_WAKE, poll then FUTEX_WAIT (2 hops)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "spin-then-futex handoff (2000 polls before sleeping)",
			Placements: []Placement{CrossCPU, Unpinned}, Ladder: []Placement{CrossCPU},
			PlacementNote: "on one CPU a spinning waiter only burns its partner's time slice",
			ExpectSwitch:  true, Arg: 2000,
			StartIters: 256, Needs: needsCgo, Run: inProcess(kernels.ThreadFutexSpin),
		},
		&Benchmark{
			Name: "thread/yield", Rung: Thread, Kind: Switch,
			Description: "two threads on one CPU call sched_yield in a loop; each yield hands the CPU to the other",
			Op:          "A's sched_yield plus B's (2 hops; both sides' calls are counted)", HopsPerOp: 2,
			Switched: "another OS thread of the same process", Mechanism: "sched_yield pair",
			Placements: single, Ladder: single, ExpectSwitch: true,
			PlacementNote: "sched_yield only hands over to another runnable task on the same CPU; on two CPUs each call returns at once and nothing is switched",
			StartIters:    256, Needs: needsCgo, Run: inProcess(kernels.ThreadYield),
			Hops: func(r Response) float64 { return float64(r.A.Ops + r.B.Ops) },
		},

		&Benchmark{
			Name: "process/pipe", Rung: Process, Kind: Switch,
			Description: "two processes ping-pong a 4-byte int over two pipes (perf bench sched pipe; the fork-and-two-pipes experiment); the partner is this binary re-executed",
			Op:          "round trip: write to pipe 1, blocking read of pipe 2 (2 hops)", HopsPerOp: 2,
			Switched: "another process (separate address space; both processes multi-threaded, as every Go process is)", Mechanism: "pipe ping-pong (4-byte write, blocking read)",
			Placements: pair, Ladder: pairLadder, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo,
			Run: func(ctx context.Context, req Request) (Response, error) {
				return PipeProcesses(ctx, req, partner.Spec{})
			},
		},
		&Benchmark{
			Name: "process/futex", Rung: Process, Kind: Switch,
			Description: "two processes ping-pong a turn flag in a shared page with FUTEX_WAKE / FUTEX_WAIT (shared futex), never spinning",
			Op:          "round trip: store + FUTEX_WAKE, FUTEX_WAIT until answered (2 hops)", HopsPerOp: 2,
			Switched: "another process (separate address space; both processes multi-threaded, as every Go process is)", Mechanism: "futex ping-pong over a shared memfd page",
			Placements: pair, Ladder: pairLadder, ExpectSwitch: true,
			StartIters: 256, Needs: needsCgo,
			Run: func(ctx context.Context, req Request) (Response, error) {
				return FutexProcesses(ctx, req, partner.Spec{})
			},
		},

		&Benchmark{
			Name: "reference/syscall", Rung: Reference, Kind: RefKind,
			Description: "one raw getppid system call (kernel entry and exit, no switch)",
			Op:          "one syscall(SYS_getppid)", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "raw system call",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 12, Needs: needsCgo, Run: inProcess(kernels.RefSyscall),
		},
		&Benchmark{
			Name: "reference/mutex", Rung: Reference, Kind: RefKind,
			Description: "pthread_mutex_lock + unlock of an uncontended mutex",
			Op:          "one lock + unlock", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "uncontended pthread mutex",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 16, Needs: needsCgo, Run: inProcess(kernels.RefMutex),
		},
		&Benchmark{
			Name: "reference/atomic", Rung: Reference, Kind: RefKind,
			Description: "one sequentially consistent atomic add (lock xadd) on a private cache line",
			Op:          "one atomic fetch-add", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "atomic add",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 16, Needs: needsCgo, Run: inProcess(kernels.RefAtomic),
		},
		&Benchmark{
			Name: "reference/pipe-self", Rung: Reference, Kind: RefKind,
			Description: "write 4 bytes into a pipe and read them back in one thread: the IPC cost of a pipe hop without a switch (what lmbench subtracts)",
			Op:          "one 4-byte write + read on the same pipe", HopsPerOp: 1,
			Switched: "nothing (not a switch)", Mechanism: "pipe write + read in one thread",
			Placements: single, Ladder: single, PlacementNote: oneThread,
			StartIters: 1 << 10, Needs: needsCgo, Run: inProcess(kernels.RefPipeSelf),
		},
		&Benchmark{
			Name: "reference/cacheline", Rung: Reference, Kind: RefKind,
			Description: "two threads on two CPUs hand a cache line back and forth by spinning: a handoff with no switch at all",
			Op:          "round trip of the cache line (2 handoffs)", HopsPerOp: 2,
			Switched: "nothing (a spinning thread on another CPU; not a switch)", Mechanism: "cache-line ping-pong, both sides spinning",
			Placements: []Placement{CrossCPU}, Ladder: []Placement{CrossCPU},
			PlacementNote: "both sides spin: on one CPU neither could make progress until preempted",
			StartIters:    1 << 12, Needs: needsCgo, Run: inProcess(kernels.RefCacheline),
		},
	)
}
