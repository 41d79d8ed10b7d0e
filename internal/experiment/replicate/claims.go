package replicate

// claims.go: the published and folklore figures set beside the creation and
// memory measurements, each with its source. This table is the one place
// they are held: the creation and memory tables (Claims) and the published
// hierarchy's claims (Hierarchy) both read it, so the two cannot cite
// different figures for the same thing. The measurements themselves know
// nothing of them.

import (
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// citation is a claim's source: Short names it in a table cell, Full
// cites it.
type citation struct{ Short, Full string }

// Sources of the claims that are not among the reproduced publications.
var (
	hierarchySource = citation{"the hierarchy write-up", "the cost hierarchy table of " + SourceHierarchy.String()}
	tlpi            = citation{"TLPI", "Michael Kerrisk, The Linux Programming Interface (No Starch Press, 2010), Table 28-3 (Linux 2.6.27, x86-32)"}
	phobos9139      = citation{"phobos#9139", "dlang/phobos issue 9139, \"std.process: fork is slow for big processes\" (https://github.com/dlang/phobos/issues/9139)"}
	blandy          = citation{"Blandy 2020", "Jim Blandy, context-switch benchmarks, README (2020, https://github.com/jimblandy/context-switch)"}
	firecracker     = citation{"Firecracker spec", "Firecracker SPECIFICATION.md (https://github.com/firecracker-microvm/firecracker)"}
	goBench         = citation{"Go runtime benchmarks", "the Go runtime's benchmarks, commit 4722b1c (2014, https://go.googlesource.com/go)"}
	felker          = citation{"Felker 2015", "Rich Felker, musl libc mailing list (2015, https://www.openwall.com/lists/musl/)"}
	glibcSpawn      = citation{"glibc", "glibc's posix_spawn (clone with CLONE_VM|CLONE_VFORK)"}
	lmbench         = citation{"lmbench; TLPI", "lmbench lat_proc; " + tlpi.Full}
	crun            = citation{"crun README", "crun README (https://github.com/containers/crun)"}
	armstrong       = citation{"Armstrong 2003", "Joe Armstrong, Concurrency Oriented Programming in Erlang (2003)"}
	goStack         = citation{"Go runtime", "the Go runtime, stackMin = 2048 (runtime/stack.go)"}
	goNotes         = citation{"Goroutine study notes", "the memory.go example of " + SourcePerfBench.String()}
	erlangGuide     = citation{"Erlang efficiency guide", "Erlang/OTP 27 Efficiency Guide, Processes (https://www.erlang.org/doc/system/eff_guide_processes)"}
	jep444          = citation{"JEP 444", "JEP 444: Virtual Threads (https://openjdk.org/jeps/444)"}
)

// notLikeForLike opens, in the one-line texts a document holds for humans
// (result.Spawn.Claim, the hierarchy's published column), what differs
// between a claim and the row beside it; the claims themselves carry it as
// a field (result.Claim.Differs).
const notLikeForLike = " — not like for like: "

// claim is one published or folklore figure.
type claim struct {
	Text  string
	From  citation
	Bytes float64 // the size per context it names (result.Claim.BytesPerContext); 0: none
	// Theirs and Ours are set together when the claim's figure is of
	// something other than what ctxbench's row measures: what the
	// publication's figure covers, and what the row measures, each a short
	// phrase. A claim beside a row that measures something different says
	// so, in the claim's own words, wherever it is printed.
	Theirs, Ours string
}

// differs says what differs between the claim and the row beside it,
// opened by notLikeForLike; "" when they measure the same thing.
func (c claim) differs() string {
	if c.Theirs == "" {
		return ""
	}
	return notLikeForLike + c.what()
}

// what is result.Claim.Differs: what the publication measured and what the
// row measures; "" when like for like.
func (c claim) what() string {
	if c.Theirs == "" {
		return ""
	}
	return "that is " + c.Theirs + ", this is " + c.Ours
}

// What ctxbench's creation and memory rows of containers and VMs measure
// (spawn, docs/containers.md; cb_kvm_create and cb_kvm_memory, docs/vm.md),
// and what the published figures beside them cover.
const (
	runtimeStart  = "a runtime's cold start with image and network"
	ociRuntime    = "an OCI runtime with a root file system"
	containerNS   = "namespaces alone (no image, no runtime)"
	containerCG   = "a cgroup alone (no image, no runtime)"
	containerFull = "namespaces + cgroup + seccomp alone (no image, no runtime)"
	vmRow         = "a minimal VM to its first exit (no OS booted)"
	vmMemoryRow   = "a minimal VM (no VMM, no OS)"
)

// claims by measurement (spawn/KIND, memory/KIND).
var claims = map[string][]claim{
	"spawn/goroutine": {{Text: "goroutines are cheap: create millions", From: hierarchySource},
		{Text: "BenchmarkCreateGoroutines 88-219 ns", From: goBench,
			Theirs: "a chain of goroutines, none waited for", Ours: "one goroutine at a time, waited for over a channel"}},
	"spawn/goroutine-parked": {{Text: "goroutines are cheap: create millions", From: hierarchySource}},
	"spawn/thread":           {{Text: "thread creation ~17 µs", From: citation{blandy.Short + ", quoted", blandy.Full + ", via a secondary quote"}}},
	"spawn/fork":             {{Text: "fork ~220 µs from a 1.7 MB parent", From: tlpi}},
	"spawn/fork-256m":        {{Text: "fork grows with the parent: ~3 ms at 100 MiB", From: phobos9139}},
	"spawn/fork-1g":          {{Text: "fork from a 1 GiB parent 30-45 ms", From: phobos9139}},
	"spawn/fork-exec":        {{Text: "fork+exec 1.3 ms", From: tlpi}},
	"spawn/vfork-exec":       {{Text: "vfork+exec 1.03 ms", From: tlpi}},
	"spawn/posix-spawn":      {{Text: "posix_spawn ~360 µs vs fork+exec 9 ms for a large parent", From: felker}},
	"spawn/posix-spawn-1g":   {{Text: "posix_spawn does not copy the parent's page tables: flat in the parent's size", From: glibcSpawn}},
	"spawn/clone-exec":       {{Text: "fork+exec ~1 ms", From: lmbench}},
	"spawn/container-ns":     {{Text: "container start 100-500 ms", From: hierarchySource, Theirs: runtimeStart, Ours: containerNS}},
	"spawn/container-netns":  {{Text: "container start 100-500 ms", From: hierarchySource, Theirs: runtimeStart, Ours: containerNS}},
	"spawn/container-cgroup": {{Text: "container start 100-500 ms", From: hierarchySource, Theirs: runtimeStart, Ours: containerCG}},
	"spawn/container-full": {{Text: "container start 100-500 ms", From: hierarchySource, Theirs: runtimeStart, Ours: containerFull},
		{Text: "crun 17 ms, runc 33 ms per /bin/true container", From: crun, Theirs: ociRuntime, Ours: containerFull}},
	"spawn/vm": {{Text: "VM start 1-5 s", From: hierarchySource, Theirs: "a guest OS boot", Ours: vmRow},
		{Text: "Firecracker boots a microVM to init in <= 125 ms", From: firecracker, Theirs: "a VMM booting a kernel to init", Ours: vmRow}},
	"spawn/erlang-process":  {{Text: "1 µs up to 2,500 processes, ~3 µs up to 30,000", From: armstrong}},
	"spawn/rust-tokio-task": {{Text: "~0.3 µs per tokio task vs ~17 µs per thread", From: blandy}},

	"memory/goroutine": {
		{Text: "a goroutine starts with a 2 KiB stack", From: goStack, Bytes: 2048,
			Theirs: "the initial stack alone", Ours: "PSS of all a parked goroutine holds"},
		{Text: "2.583 kB per goroutine", From: goNotes, Bytes: 2583},
		{Text: "goroutines: practical limit millions", From: hierarchySource}},
	"memory/thread": {
		{Text: "100,000 threads would consume ~100 GB of stack space (1 MB default stack each)", From: hierarchySource, Bytes: 1 << 20,
			Theirs: "a stack reservation (address space)", Ours: "PSS, the memory held (VIRTUAL is the reservation)"},
		{Text: "threads: practical limit hundreds to thousands", From: hierarchySource}},
	"memory/process":    {{Text: "processes: practical limit dozens to hundreds", From: hierarchySource}},
	"memory/process-go": {{Text: "processes: practical limit dozens to hundreds", From: hierarchySource}},
	"memory/container":  {{Text: "containers: practical limit dozens", From: hierarchySource}},
	"memory/vm": {{Text: "VMs: practical limit few to dozens", From: hierarchySource},
		{Text: "Firecracker: <= 5 MiB memory overhead per microVM", From: firecracker,
			Theirs: "the VMM process beside a booted guest", Ours: vmMemoryRow}},
	"memory/erlang-process":      {{Text: "327 words = 2616 B per process", From: erlangGuide, Bytes: 2616}},
	"memory/rust-tokio-task":     {{Text: "~0.4 KiB per async task, depending on the future", From: blandy, Bytes: 0.4 * 1024}},
	"memory/java-virtual-thread": {{Text: "stack chunks live on the heap; no reliable published per-thread figure", From: jep444}},
}

// resultClaims are the claims beside one row, as a document holds them,
// and the same on one line.
func resultClaims(name string) ([]result.Claim, string) {
	var out []result.Claim
	var parts []string
	for _, c := range claims[name] {
		out = append(out, result.Claim{Text: c.Text, Source: c.From.Full, Differs: c.what(), BytesPerContext: c.Bytes})
		parts = append(parts, c.Text+" ("+c.From.Full+")"+c.differs()) // the source right after the claim, as every table has it
	}
	return out, strings.Join(parts, "; ")
}

// Claims sets the published figures beside d's creation and memory rows.
func Claims(d *result.Document) {
	for i := range d.Spawn {
		d.Spawn[i].Claims, d.Spawn[i].Claim = resultClaims(d.Spawn[i].Name)
	}
	for i := range d.Memory {
		d.Memory[i].Claims, d.Memory[i].Claim = resultClaims(d.Memory[i].Name)
	}
}
