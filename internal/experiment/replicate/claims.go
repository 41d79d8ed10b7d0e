package replicate

// claims.go: the published and folklore figures set beside the creation and
// memory measurements, each with its source. Claims attaches them to a
// document; the measurements themselves know nothing of them.

import (
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Sources of the claims that are not among the reproduced publications.
var (
	hierarchySource = "the cost hierarchy table of " + SourceHierarchy.String()
	tlpi            = "Michael Kerrisk, The Linux Programming Interface (No Starch Press, 2010), Table 28-3 (Linux 2.6.27, x86-32)"
	phobos9139      = "dlang/phobos issue 9139, \"std.process: fork is slow for big processes\" (https://github.com/dlang/phobos/issues/9139)"
	blandy          = "Jim Blandy, context-switch benchmarks, README (2020, https://github.com/jimblandy/context-switch)"
	firecracker     = "Firecracker SPECIFICATION.md (https://github.com/firecracker-microvm/firecracker)"
)

// claims by measurement (spawn/KIND, memory/KIND).
var claims = map[string][]result.Claim{
	"spawn/goroutine": {{Text: "goroutines are cheap: create millions", Source: hierarchySource},
		{Text: "BenchmarkCreateGoroutines 88-219 ns", Source: "the Go runtime's benchmarks, commit 4722b1c (2014, https://go.googlesource.com/go)"}},
	"spawn/goroutine-parked": {{Text: "goroutines are cheap: create millions", Source: hierarchySource}},
	"spawn/thread":           {{Text: "thread creation ~17 µs", Source: blandy + ", via a secondary quote"}},
	"spawn/fork":             {{Text: "fork ~220 µs from a 1.7 MB parent", Source: tlpi}},
	"spawn/fork-256m":        {{Text: "fork grows with the parent: ~3 ms at 100 MiB", Source: phobos9139}},
	"spawn/fork-1g":          {{Text: "fork from a 1 GiB parent 30-45 ms", Source: phobos9139}},
	"spawn/fork-exec":        {{Text: "fork+exec 1.3 ms", Source: tlpi}},
	"spawn/vfork-exec":       {{Text: "vfork+exec 1.03 ms", Source: tlpi}},
	"spawn/posix-spawn": {{Text: "posix_spawn ~360 µs vs fork+exec 9 ms for a large parent",
		Source: "Rich Felker, musl libc mailing list (2015, https://www.openwall.com/lists/musl/)"}},
	"spawn/posix-spawn-1g": {{Text: "posix_spawn does not copy the parent's page tables: flat in the parent's size",
		Source: "glibc's posix_spawn (clone with CLONE_VM|CLONE_VFORK)"}},
	"spawn/clone-exec":       {{Text: "fork+exec ~1 ms", Source: "lmbench lat_proc; " + tlpi}},
	"spawn/container-ns":     {{Text: "container start 100-500 ms", Source: hierarchySource}},
	"spawn/container-netns":  {{Text: "container start 100-500 ms", Source: hierarchySource}},
	"spawn/container-cgroup": {{Text: "container start 100-500 ms", Source: hierarchySource}},
	"spawn/container-full": {{Text: "container start 100-500 ms", Source: hierarchySource},
		{Text: "crun 17 ms, runc 33 ms per /bin/true container", Source: "crun README (https://github.com/containers/crun)"}},
	"spawn/vm": {{Text: "VM start 1-5 s", Source: hierarchySource},
		{Text: "Firecracker boots a microVM to init in <= 125 ms", Source: firecracker}},
	"spawn/erlang-process":  {{Text: "1 µs up to 2,500 processes, ~3 µs up to 30,000", Source: "Joe Armstrong, Concurrency Oriented Programming in Erlang (2003)"}},
	"spawn/rust-tokio-task": {{Text: "~0.3 µs per tokio task vs ~17 µs per thread", Source: blandy}},

	"memory/goroutine": {
		{Text: "a goroutine starts with a 2 KiB stack", Source: "the Go runtime, stackMin = 2048 (runtime/stack.go)", BytesPerContext: 2048},
		{Text: "2.583 kB per goroutine", Source: "the memory.go example of " + SourcePerfBench.String(), BytesPerContext: 2583},
		{Text: "goroutines: practical limit millions", Source: hierarchySource}},
	"memory/thread": {
		{Text: "100,000 threads would consume ~100 GB of stack space (1 MB default stack each)", Source: hierarchySource, BytesPerContext: 1 << 20},
		{Text: "threads: practical limit hundreds to thousands", Source: hierarchySource}},
	"memory/process":    {{Text: "processes: practical limit dozens to hundreds", Source: hierarchySource}},
	"memory/process-go": {{Text: "processes: practical limit dozens to hundreds", Source: hierarchySource}},
	"memory/container":  {{Text: "containers: practical limit dozens", Source: hierarchySource}},
	"memory/vm": {{Text: "VMs: practical limit few to dozens", Source: hierarchySource},
		{Text: "Firecracker: <= 5 MiB memory overhead per microVM", Source: firecracker}},
	"memory/erlang-process": {{Text: "327 words = 2616 B per process",
		Source: "Erlang/OTP 27 Efficiency Guide, Processes (https://www.erlang.org/doc/system/eff_guide_processes)", BytesPerContext: 2616}},
	"memory/rust-tokio-task":     {{Text: "~0.4 KiB per async task, depending on the future", Source: blandy, BytesPerContext: 0.4 * 1024}},
	"memory/java-virtual-thread": {{Text: "stack chunks live on the heap; no reliable published per-thread figure", Source: "JEP 444: Virtual Threads (https://openjdk.org/jeps/444)"}},
}

// Claims sets the published figures beside d's creation and memory rows.
func Claims(d *result.Document) {
	for i := range d.Spawn {
		s := &d.Spawn[i]
		s.Claims = claims[s.Name]
		var parts []string
		for _, c := range s.Claims {
			parts = append(parts, c.Text+" ("+c.Source+")")
		}
		s.Claim = strings.Join(parts, "; ")
	}
	for i := range d.Memory {
		m := &d.Memory[i]
		m.Claims = claims[m.Name]
		var parts []string
		for _, c := range m.Claims {
			parts = append(parts, c.Text+" ("+c.Source+")")
		}
		m.Claim = strings.Join(parts, "; ")
	}
}
