// Package probe builds, caches and runs the runtime-rung probes: one small program per
// language (sources in /probes, embedded in the binary) that times its own runtime's switch,
// creation or memory per context, and prints the ctxbench-probe/1 line format
// (docs/probes.md). This package holds the probe table, toolchain detection with install
// hints, the build cache, the pinned and time-limited run, and the line-format parser.
package probe

// Language names a probe program (and its directory under /probes).
type Language string

// The probe languages.
const (
	Erlang Language = "erlang"
	Rust   Language = "rust"
	Java   Language = "java"
	Node   Language = "node"
	Python Language = "python"
	Cpp    Language = "cpp"
)

// Languages lists every probe language in ladder display order.
var Languages = []Language{Erlang, Rust, Java, Node, Python, Cpp}

// ParallelN as Bench.Parallelism means "as many schedulers/carriers/workers as CPUs the probe
// may run on" (the request's CPU set, else the process's affinity mask).
const ParallelN = -1

// Bench is one row of the probe table: one probe program run one way.
type Bench struct {
	// Name is unique, "<ladder>/<language>-<what>": runtime/... for switches, spawn/... for
	// creation cost, memory/... for memory per parked context.
	Name     string
	Language Language
	// Probe is the probe program's own bench key (CTXBENCH_BENCH).
	Probe       string
	Kind        Kind
	Description string
	// Op is what one op is; HopsPerOp the one-way switches in it (switch benches).
	Op        string
	HopsPerOp int
	// Switched and Mechanism build the label: what the CPU is handed to, and how.
	Switched  string
	Mechanism string
	// Stackless marks a switch that resumes a heap frame instead of swapping stacks (C++20
	// coroutines, Node promises, asyncio): it belongs in a separate tier from stackful ones.
	Stackless bool
	// KernelSwitch marks a handoff between OS threads: with the probe pinned to one CPU each
	// hop should cost one counted OS context switch.
	KernelSwitch bool
	// Parallelism is the schedulers/carriers/workers setting: 0 not applicable, 1, or ParallelN.
	Parallelism int
	// Settings are fixed knobs that change the result, for labels (the probe also echoes what
	// its runtime reports in each block's settings).
	Settings []string
	// Env is extra probe input (CTXBENCH_FLAVOR, CTXBENCH_DEPTH, CTXBENCH_RING, ...).
	Env []string
	// Contexts is the default number of parked contexts per memory sample.
	Contexts int
	// Placements are the ones that mean something for this probe (vocabulary of docs/methodology.md;
	// a runtime probe is pinned as a whole process, the runtime places its own threads).
	Placements []string
	// Ladder is false for extra variants that the default ladder leaves out.
	Ladder bool
	// needs is an extra requirement beyond the language's toolchain.
	needs func(Toolchain) (bool, string)
}

var (
	sameAndUnpinned = []string{"same-cpu", "unpinned"}
	unpinnedOnly    = []string{"unpinned"}
)

// All returns the probe table.
func All() []Bench {
	return append([]Bench(nil), table...)
}

// Lookup finds a bench by name.
func Lookup(name string) (Bench, bool) {
	for _, b := range table {
		if b.Name == name {
			return b, true
		}
	}
	return Bench{}, false
}

// Available reports whether b can run here, and if not why, with the install command.
func (b Bench) Available() (bool, string) {
	tc, err := Detect(b.Language)
	if err != nil {
		return false, err.Error()
	}
	if b.needs != nil {
		return b.needs(tc)
	}
	return true, ""
}

const (
	erlPingPongOp = "round trip: {ping, Self} sent to a peer process, pong back (2 hops)"
	tokioNotifyOp = "round trip between two spawned tasks through two tokio::sync::Notify (2 hops)"
	tokioMpscOp   = "round trip between two spawned tasks through two mpsc channels of capacity 1 (2 hops)"
	javaParkOp    = "round trip: volatile turn flag + LockSupport.unpark, then park until the turn comes back (2 hops)"
)

var table = []Bench{
	// ------------------------------------------------------------------ Erlang/BEAM
	{
		Name: "runtime/erlang-pingpong-sched1", Language: Erlang, Probe: "pingpong", Kind: KindSwitch,
		Description: "two BEAM processes ping-pong messages on one scheduler (+S 1:1)",
		Op:          erlPingPongOp, HopsPerOp: 2,
		Switched: "another Erlang process on the same scheduler thread", Mechanism: "BEAM message send + receive",
		Parallelism: 1, Settings: []string{"schedulers=1"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "runtime/erlang-pingpong-schedN", Language: Erlang, Probe: "pingpong", Kind: KindSwitch,
		Description: "two BEAM processes ping-pong messages with one scheduler per allowed CPU (+S N:N)",
		Op:          erlPingPongOp, HopsPerOp: 2,
		Switched: "another Erlang process, possibly on another scheduler thread", Mechanism: "BEAM message send + receive",
		Parallelism: ParallelN, Settings: []string{"schedulers=CPUs allowed"}, Placements: unpinnedOnly, Ladder: true,
	},
	{
		Name: "runtime/erlang-ring-sched1", Language: Erlang, Probe: "ring", Kind: KindSwitch,
		Description: "a token passed around a ring of 1000 BEAM processes on one scheduler",
		Op:          "one pass of the token to the next process in a ring of 1000 (1 hop)", HopsPerOp: 1,
		Switched: "the next Erlang process in a ring of 1000", Mechanism: "BEAM message send + receive",
		Parallelism: 1, Settings: []string{"schedulers=1", "ring=1000"}, Env: []string{"CTXBENCH_RING=1000"},
		Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "runtime/erlang-ring-schedN", Language: Erlang, Probe: "ring", Kind: KindSwitch,
		Description: "a token passed around a ring of 1000 BEAM processes, one scheduler per allowed CPU",
		Op:          "one pass of the token to the next process in a ring of 1000 (1 hop)", HopsPerOp: 1,
		Switched: "the next Erlang process in a ring of 1000", Mechanism: "BEAM message send + receive",
		Parallelism: ParallelN, Settings: []string{"schedulers=CPUs allowed", "ring=1000"}, Env: []string{"CTXBENCH_RING=1000"},
		Placements: unpinnedOnly, Ladder: true,
	},
	{
		Name: "spawn/erlang-process", Language: Erlang, Probe: "spawn", Kind: KindSpawn,
		Description: "spawn/1 of a BEAM process that runs to its first receive",
		Op:          "spawn a process that sends 'started' to its parent and blocks in receive",
		Switched:    "a new Erlang process", Mechanism: "erlang:spawn/1",
		Parallelism: 1, Settings: []string{"schedulers=1"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "memory/erlang-process", Language: Erlang, Probe: "memory", Kind: KindMemory,
		Description: "erlang:memory(processes) delta per parked BEAM process",
		Op:          "one process parked in receive", Switched: "an Erlang process", Mechanism: "erlang:memory(processes) after GC",
		Parallelism: 1, Settings: []string{"schedulers=1"}, Contexts: 100000, Placements: sameAndUnpinned, Ladder: true,
	},

	// ------------------------------------------------------------------ Rust
	{
		Name: "runtime/rust-tokio-notify-current", Language: Rust, Probe: "tokio-notify", Kind: KindSwitch,
		Description: "two tokio tasks ping-pong through Notify on a current_thread runtime",
		Op:          tokioNotifyOp, HopsPerOp: 2,
		Switched: "another tokio task on the same thread", Mechanism: "tokio::sync::Notify wake + poll (stackless future)",
		Stackless: true, Parallelism: 1, Settings: []string{"runtime=current_thread"},
		Env: []string{"CTXBENCH_FLAVOR=current_thread"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "runtime/rust-tokio-notify-multiN", Language: Rust, Probe: "tokio-notify", Kind: KindSwitch,
		Description: "two tokio tasks ping-pong through Notify on a multi_thread runtime, one worker per allowed CPU",
		Op:          tokioNotifyOp, HopsPerOp: 2,
		Switched: "another tokio task, possibly on another worker thread", Mechanism: "tokio::sync::Notify wake + poll (stackless future)",
		Stackless: true, Parallelism: ParallelN, Settings: []string{"runtime=multi_thread", "workers=CPUs allowed"},
		Env: []string{"CTXBENCH_FLAVOR=multi_thread"}, Placements: unpinnedOnly, Ladder: true,
	},
	{
		Name: "runtime/rust-tokio-mpsc-current", Language: Rust, Probe: "tokio-mpsc", Kind: KindSwitch,
		Description: "two tokio tasks ping-pong a counter through mpsc(1) channels on a current_thread runtime",
		Op:          tokioMpscOp, HopsPerOp: 2,
		Switched: "another tokio task on the same thread", Mechanism: "tokio::sync::mpsc send/recv (stackless future)",
		Stackless: true, Parallelism: 1, Settings: []string{"runtime=current_thread"},
		Env: []string{"CTXBENCH_FLAVOR=current_thread"}, Placements: sameAndUnpinned, Ladder: false,
	},
	{
		Name: "runtime/rust-tokio-mpsc-multiN", Language: Rust, Probe: "tokio-mpsc", Kind: KindSwitch,
		Description: "two tokio tasks ping-pong a counter through mpsc(1) channels, multi_thread runtime, one worker per allowed CPU",
		Op:          tokioMpscOp, HopsPerOp: 2,
		Switched: "another tokio task, possibly on another worker thread", Mechanism: "tokio::sync::mpsc send/recv (stackless future)",
		Stackless: true, Parallelism: ParallelN, Settings: []string{"runtime=multi_thread", "workers=CPUs allowed"},
		Env: []string{"CTXBENCH_FLAVOR=multi_thread"}, Placements: unpinnedOnly, Ladder: false,
	},
	{
		Name: "runtime/rust-corosensei", Language: Rust, Probe: "corosensei", Kind: KindSwitch,
		Description: "resume/suspend of a stackful corosensei coroutine (a library made for stack switching)",
		Op:          "resume into the coroutine and its suspend back (2 hops)", HopsPerOp: 2,
		Switched: "another user-space stack in the same thread", Mechanism: "corosensei stackful switch (callee-saved registers + stack pointer, asm)",
		Parallelism: 0, Settings: []string{"stack=1 MiB mmap + guard page"}, Placements: []string{"same-cpu"}, Ladder: true,
	},
	{
		Name: "spawn/rust-tokio-task", Language: Rust, Probe: "tokio-spawn", Kind: KindSpawn,
		Description: "tokio::spawn of a task that runs to its first park, current_thread runtime",
		Op:          "spawn a task that runs to its first await on a Notify", Switched: "a new tokio task", Mechanism: "tokio::spawn",
		Stackless: true, Parallelism: 1, Settings: []string{"runtime=current_thread"},
		Env: []string{"CTXBENCH_FLAVOR=current_thread"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "spawn/rust-corosensei", Language: Rust, Probe: "corosensei-spawn", Kind: KindSpawn,
		Description: "creation of a corosensei coroutine (mmap'ed stack + guard page) and its first resume",
		Op:          "Coroutine::new with a 1 MiB DefaultStack and the first resume to its first suspend",
		Switched:    "a new stackful coroutine", Mechanism: "corosensei Coroutine::with_stack",
		Settings: []string{"stack=1 MiB mmap + guard page"}, Placements: []string{"same-cpu"}, Ladder: true,
	},
	{
		Name: "memory/rust-tokio-task", Language: Rust, Probe: "tokio-memory", Kind: KindMemory,
		Description: "heap bytes per parked tokio task (counting allocator) and VmRSS delta",
		Op:          "one spawned task parked on a Notify", Switched: "a tokio task", Mechanism: "counting global allocator",
		Stackless: true, Parallelism: 1, Settings: []string{"runtime=current_thread"},
		Env: []string{"CTXBENCH_FLAVOR=current_thread"}, Contexts: 100000, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "memory/rust-corosensei", Language: Rust, Probe: "corosensei-memory", Kind: KindMemory,
		Description: "resident stack pages per parked corosensei coroutine (VmRSS delta)",
		Op:          "one coroutine suspended in its body", Switched: "a stackful coroutine", Mechanism: "VmRSS delta",
		Settings: []string{"stack=1 MiB mmap + guard page"}, Contexts: 10000, Placements: []string{"same-cpu"}, Ladder: true,
	},

	// ------------------------------------------------------------------ Java
	{
		Name: "runtime/java-platform-park", Language: Java, Probe: "platform-park", Kind: KindSwitch,
		Description: "two Java platform threads ping-pong with LockSupport park/unpark",
		Op:          javaParkOp, HopsPerOp: 2,
		Switched: "another Java platform thread (an OS thread)", Mechanism: "LockSupport.park/unpark (futex)",
		KernelSwitch: true, Settings: []string{"gc=G1", "heap=-Xms256m -Xmx2g", "JIT warm-up untimed"},
		Placements: []string{"same-cpu", "unpinned"}, Ladder: true,
	},
	{
		Name: "runtime/java-virtual-park-carriers1", Language: Java, Probe: "virtual-park", Kind: KindSwitch,
		Description: "two Java virtual threads ping-pong with LockSupport park/unpark on one carrier",
		Op:          javaParkOp, HopsPerOp: 2,
		Switched: "another Java virtual thread on the same carrier", Mechanism: "virtual thread park/unpark (continuation freeze/thaw)",
		Parallelism: 1, Settings: []string{"carriers=1", "gc=G1", "heap=-Xms256m -Xmx2g", "JIT warm-up untimed"},
		Placements: sameAndUnpinned, Ladder: true, needs: needsVirtualThreads,
	},
	{
		Name: "runtime/java-virtual-park-carriersN", Language: Java, Probe: "virtual-park", Kind: KindSwitch,
		Description: "two Java virtual threads ping-pong with LockSupport park/unpark, one carrier per allowed CPU",
		Op:          javaParkOp, HopsPerOp: 2,
		Switched: "another Java virtual thread, possibly on another carrier", Mechanism: "virtual thread park/unpark (continuation freeze/thaw)",
		Parallelism: ParallelN, Settings: []string{"carriers=CPUs allowed", "gc=G1", "heap=-Xms256m -Xmx2g", "JIT warm-up untimed"},
		Placements: unpinnedOnly, Ladder: true, needs: needsVirtualThreads,
	},
	{
		Name: "runtime/java-virtual-park-depth64", Language: Java, Probe: "virtual-park", Kind: KindSwitch,
		Description: "the one-carrier virtual thread ping-pong, parking 64 frames deep (freeze/thaw copies frames)",
		Op:          javaParkOp, HopsPerOp: 2,
		Switched: "another Java virtual thread on the same carrier", Mechanism: "virtual thread park/unpark (continuation freeze/thaw), 64 extra frames",
		Parallelism: 1, Settings: []string{"carriers=1", "stack_depth=64", "gc=G1", "heap=-Xms256m -Xmx2g", "JIT warm-up untimed"},
		Env: []string{"CTXBENCH_DEPTH=64"}, Placements: sameAndUnpinned, Ladder: false, needs: needsVirtualThreads,
	},
	{
		Name: "spawn/java-platform-thread", Language: Java, Probe: "platform-spawn", Kind: KindSpawn,
		Description: "Thread.start() of a platform thread that runs until it parks",
		Op:          "start a platform thread that counts down a latch and parks", Switched: "a new Java platform thread", Mechanism: "Thread.start (pthread_create)",
		Settings: []string{"gc=G1", "heap=-Xms256m -Xmx2g", "JIT warm-up untimed"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "spawn/java-virtual-thread", Language: Java, Probe: "virtual-spawn", Kind: KindSpawn,
		Description: "start of a virtual thread, from a virtual thread, that runs until it parks (one carrier)",
		Op:          "start a virtual thread that counts down a latch and parks", Switched: "a new Java virtual thread", Mechanism: "Thread.ofVirtual().factory()",
		Parallelism: 1, Settings: []string{"carriers=1", "gc=G1", "heap=-Xms256m -Xmx2g", "JIT warm-up untimed"},
		Placements: sameAndUnpinned, Ladder: true, needs: needsVirtualThreads,
	},
	{
		Name: "memory/java-virtual-thread", Language: Java, Probe: "virtual-memory", Kind: KindMemory,
		Description: "Java heap bytes per parked virtual thread (after System.gc()) and VmRSS delta",
		Op:          "one virtual thread parked in LockSupport.park", Switched: "a Java virtual thread", Mechanism: "MemoryMXBean heap used after GC",
		Parallelism: 1, Settings: []string{"carriers=1", "gc=G1", "heap=-Xms256m -Xmx2g"}, Contexts: 100000,
		Placements: sameAndUnpinned, Ladder: true, needs: needsVirtualThreads,
	},

	// ------------------------------------------------------------------ Node.js
	{
		Name: "runtime/node-promise", Language: Node, Probe: "promise-pingpong", Kind: KindSwitch,
		Description: "two async functions hand off through promise resolvers (microtask hop)",
		Op:          "round trip: each side resolves the other's promise and awaits its own (2 hops)", HopsPerOp: 2,
		Switched: "another async function on the same event loop", Mechanism: "promise resolution + await (V8 microtask, stackless)",
		Stackless: true, Settings: []string{"JIT warm-up untimed"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "runtime/node-worker-atomics", Language: Node, Probe: "worker-atomics", Kind: KindSwitch,
		Description: "main thread and a worker_threads worker ping-pong with Atomics.notify/wait on a SharedArrayBuffer",
		Op:          "round trip: Atomics.store + notify, then Atomics.wait until the worker answers (2 hops)", HopsPerOp: 2,
		Switched: "a worker thread (another OS thread with its own V8 isolate)", Mechanism: "Atomics.wait/notify (futex)",
		KernelSwitch: true, Settings: []string{"JIT warm-up untimed"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "spawn/node-async-function", Language: Node, Probe: "async-spawn", Kind: KindSpawn,
		Description: "call of an async function that runs to its first await on a pending promise",
		Op:          "call an async function that suspends at its first await", Switched: "a new suspended async function", Mechanism: "async function call",
		Stackless: true, Settings: []string{"JIT warm-up untimed"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "memory/node-async-function", Language: Node, Probe: "async-memory", Kind: KindMemory,
		Description: "V8 heap bytes per suspended async function (after gc()) and VmRSS delta",
		Op:          "one async function suspended at an await", Switched: "a suspended async function", Mechanism: "process.memoryUsage().heapUsed after gc()",
		Stackless: true, Contexts: 100000, Placements: sameAndUnpinned, Ladder: true,
	},

	// ------------------------------------------------------------------ Python
	{
		Name: "runtime/python-asyncio", Language: Python, Probe: "asyncio-pingpong", Kind: KindSwitch,
		Description: "two asyncio tasks hand off through Futures",
		Op:          "round trip: each task resolves the other's Future and awaits its own (2 hops)", HopsPerOp: 2,
		Switched: "another asyncio task on the same event loop", Mechanism: "Future.set_result + event-loop turn (stackless)",
		Stackless: true, Settings: []string{"gc disabled during samples", "default event loop"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "runtime/python-greenlet", Language: Python, Probe: "greenlet-switch", Kind: KindSwitch,
		Description: "switch() between the main greenlet and a peer greenlet",
		Op:          "switch into the peer greenlet and back (2 hops)", HopsPerOp: 2,
		Switched: "another greenlet (stackful, same thread)", Mechanism: "greenlet.switch (C stack slice copy)",
		Settings: []string{"gc disabled during samples"}, Placements: []string{"same-cpu"}, Ladder: true, needs: needsGreenlet,
	},
	{
		Name: "runtime/python-thread-lock", Language: Python, Probe: "thread-lock", Kind: KindSwitch,
		Description: "two Python threads hand off through two Locks used as binary semaphores",
		Op:          "round trip: release the peer's lock, acquire our own (2 hops)", HopsPerOp: 2,
		Switched: "another Python thread (an OS thread, GIL handed over)", Mechanism: "threading.Lock release/acquire (futex) + GIL",
		KernelSwitch: true, Settings: []string{"gc disabled during samples", "switch interval 5 ms (default)"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "spawn/python-asyncio-task", Language: Python, Probe: "asyncio-spawn", Kind: KindSpawn,
		Description: "asyncio.create_task of a coroutine that runs to its first await",
		Op:          "create a task and run it to its first await on a pending Future", Switched: "a new asyncio task", Mechanism: "loop.create_task",
		Stackless: true, Settings: []string{"gc disabled during samples"}, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "spawn/python-greenlet", Language: Python, Probe: "greenlet-spawn", Kind: KindSpawn,
		Description: "creation of a greenlet, a switch into it and its switch back",
		Op:          "create a greenlet, switch into it, switch back to the parent (includes 2 switches)", Switched: "a new greenlet", Mechanism: "greenlet()",
		Settings: []string{"gc disabled during samples"}, Placements: []string{"same-cpu"}, Ladder: true, needs: needsGreenlet,
	},
	{
		Name: "memory/python-asyncio-task", Language: Python, Probe: "asyncio-memory", Kind: KindMemory,
		Description: "tracemalloc bytes per parked asyncio task and VmRSS delta",
		Op:          "one task suspended at an await", Switched: "an asyncio task", Mechanism: "tracemalloc traced memory after gc.collect()",
		Stackless: true, Contexts: 100000, Placements: sameAndUnpinned, Ladder: true,
	},
	{
		Name: "memory/python-greenlet", Language: Python, Probe: "greenlet-memory", Kind: KindMemory,
		Description: "tracemalloc bytes per parked greenlet and VmRSS delta",
		Op:          "one greenlet parked after switching back to its parent", Switched: "a greenlet", Mechanism: "tracemalloc traced memory after gc.collect()",
		Contexts: 100000, Placements: []string{"same-cpu"}, Ladder: true, needs: needsGreenlet,
	},

	// ------------------------------------------------------------------ C++
	{
		Name: "runtime/cpp-coroutine", Language: Cpp, Probe: "coroutine-resume", Kind: KindSwitch,
		Description: "resume of a C++20 generator coroutine and its co_yield back (stackless)",
		Op:          "resume() into the suspended generator and its co_yield back (2 hops)", HopsPerOp: 2,
		Switched: "a suspended C++20 coroutine frame in the same thread", Mechanism: "coroutine_handle::resume + co_yield (stackless: indirect call into a heap frame)",
		Stackless: true, Settings: []string{"g++ -std=c++20 -O2"}, Placements: []string{"same-cpu"}, Ladder: true,
	},
	{
		Name: "spawn/cpp-coroutine", Language: Cpp, Probe: "coroutine-spawn", Kind: KindSpawn,
		Description: "creation of a C++20 generator coroutine (heap frame) and its first resume",
		Op:          "create a generator and resume it to its first co_yield", Switched: "a new C++20 coroutine", Mechanism: "coroutine frame operator new",
		Stackless: true, Settings: []string{"g++ -std=c++20 -O2"}, Placements: []string{"same-cpu"}, Ladder: true,
	},
	{
		Name: "memory/cpp-coroutine", Language: Cpp, Probe: "coroutine-memory", Kind: KindMemory,
		Description: "coroutine frame bytes per suspended C++20 generator (counted in operator new)",
		Op:          "one generator suspended at its first co_yield", Switched: "a C++20 coroutine", Mechanism: "promise_type::operator new byte count",
		Stackless: true, Settings: []string{"g++ -std=c++20 -O2"}, Contexts: 100000, Placements: []string{"same-cpu"}, Ladder: true,
	},
}
