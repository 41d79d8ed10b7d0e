// Package spawn measures what it costs to create an execution context, run
// it to its end and reap it: a goroutine, an OS thread, a process (fork,
// fork+exec, vfork+exec, posix_spawn, fork from a parent with a large
// touched heap) and a container (namespaces, cgroup, seccomp, capabilities,
// exec of a static program, teardown). The timed loops are C kernels
// (internal/kernels/spawn*.c) except the goroutine ones, which are Go.
// Results are raw per-creation samples; the caller's stats do the rest.
package spawn

import (
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// Kind is one creation measurement.
type Kind struct {
	Name        string `json:"name"`
	Context     string `json:"context"` // goroutine, thread, process, container
	Op          string `json:"op"`      // what one creation is
	samples     int
	warmup      int
	batch       int
	kernel      kernels.SpawnKernel
	heap        int64
	container   string // container preset-like name, for container kinds
	goroutineFn func(samples, warmup, batch int) []float64
}

const (
	mib = 1 << 20
	gib = 1 << 30
)

var kinds = []Kind{
	{Name: "goroutine", Context: "goroutine", samples: 200, warmup: 20, batch: 1000, goroutineFn: goroutineHandshake,
		Op: "go func() + handshake over an unbuffered channel; the goroutine returns (creation, first run, exit, 2 goroutine switches)"},
	{Name: "goroutine-parked", Context: "goroutine", samples: 20, warmup: 2, batch: 10000, goroutineFn: goroutineParked,
		Op: "go func() of a goroutine that stays blocked (10,000 alive per sample, released after the clock stops)"},
	{Name: "thread", Context: "thread", samples: 500, warmup: 50, batch: 1, kernel: kernels.SpawnThread,
		Op: "pthread_create (default attributes) of a thread that returns at once + pthread_join"},
	{Name: "fork", Context: "process", samples: 300, warmup: 20, batch: 1, kernel: kernels.SpawnFork,
		Op: "fork + child _exit(0) + waitpid, small parent"},
	{Name: "fork-256m", Context: "process", samples: 40, warmup: 3, batch: 1, kernel: kernels.SpawnFork, heap: 256 * mib,
		Op: "fork + _exit + waitpid from a parent with 256 MiB of touched 4 KiB pages"},
	{Name: "fork-1g", Context: "process", samples: 15, warmup: 2, batch: 1, kernel: kernels.SpawnFork, heap: gib,
		Op: "fork + _exit + waitpid from a parent with 1 GiB of touched 4 KiB pages"},
	{Name: "fork-exec", Context: "process", samples: 300, warmup: 20, batch: 1, kernel: kernels.SpawnForkExec,
		Op: "fork + execveat(static exit-only ELF) + waitpid"},
	{Name: "vfork-exec", Context: "process", samples: 300, warmup: 20, batch: 1, kernel: kernels.SpawnVforkExec,
		Op: "vfork + execveat(static exit-only ELF) + waitpid"},
	{Name: "posix-spawn", Context: "process", samples: 300, warmup: 20, batch: 1, kernel: kernels.SpawnPosixSpawn,
		Op: "posix_spawn(static exit-only ELF) + waitpid (glibc: clone CLONE_VM|CLONE_VFORK)"},
	{Name: "posix-spawn-1g", Context: "process", samples: 100, warmup: 5, batch: 1, kernel: kernels.SpawnPosixSpawn, heap: gib,
		Op: "posix_spawn(static exit-only ELF) + waitpid from a parent with 1 GiB of touched 4 KiB pages"},
	{Name: "clone-exec", Context: "process", samples: 300, warmup: 20, batch: 1, kernel: kernels.SpawnContainer, container: "plain",
		Op: "clone(CLONE_VM) + pipe handshake + execveat(static exit-only ELF) + waitpid: the container kernel with nothing to isolate (baseline of the container kinds)"},
	{Name: "container-ns", Context: "container", samples: 150, warmup: 10, batch: 1, kernel: kernels.SpawnContainer, container: "ns-nonet",
		Op: "clone with pid+mnt+ipc+uts namespaces + exec of the static ELF + waitpid"},
	{Name: "container-netns", Context: "container", samples: 150, warmup: 10, batch: 1, kernel: kernels.SpawnContainer, container: "ns",
		Op: "clone with pid+net+mnt+ipc+uts namespaces + exec + waitpid (net namespace teardown is asynchronous)"},
	{Name: "container-cgroup", Context: "container", samples: 150, warmup: 10, batch: 1, kernel: kernels.SpawnContainer, container: "cg2",
		Op: "mkdir own cpu cgroup (depth 2) + clone + attach + exec + waitpid + rmdir"},
	{Name: "container-full", Context: "container", samples: 150, warmup: 10, batch: 1, kernel: kernels.SpawnContainer, container: "full",
		Op: "mkdir cgroup (depth 2) + clone with pid+net+mnt+ipc+uts(+user) namespaces + attach + cgroup ns + caps drop + seccomp + exec + waitpid + rmdir"},
}

// Kinds lists the creation measurements in ladder order.
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// Lookup finds a kind by name.
func Lookup(name string) (Kind, error) {
	for _, k := range kinds {
		if k.Name == name {
			return k, nil
		}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.Name
	}
	return Kind{}, fmt.Errorf("unknown spawn kind %q (want one of %s)", name, strings.Join(names, ", "))
}

// Available says whether kind can run here, and if not, why.
func (k Kind) Available() (bool, string) {
	if k.goroutineFn != nil {
		return true, ""
	}
	if !kernels.Built {
		return false, kernels.ErrNoCgo.Error()
	}
	if !kernels.SpawnBuilt {
		return false, "the creation kernels (clone, vfork, execveat of a hand-written ELF: spawn.c) are Linux's; macOS's C kernels do not have them"
	}
	if (k.kernel == kernels.SpawnForkExec || k.kernel == kernels.SpawnVforkExec) && !execveatExists() {
		return false, "execveat(2) answers ENOSYS here" + emulatedBy()
	}
	if k.container != "" {
		if emu, _ := host.Emulation(""); emu != "" {
			return false, "emulated by " + emu + ", which refuses clone's namespace and CLONE_VM-without-a-thread flags"
		}
		spec, err := k.Spec()
		if err != nil {
			return false, err.Error()
		}
		if err := container.Check(spec); err != nil {
			return false, err.Error()
		}
	}
	return true, ""
}

// emulatedBy names the emulator this process runs under, as the end of a
// reason ("" natively).
func emulatedBy() string {
	if emu, _ := host.Emulation(""); emu != "" {
		return " (emulated by " + emu + ", which does not implement it)"
	}
	return ""
}

// Spec is the container spec a container kind creates.
func (k Kind) Spec() (container.Spec, error) {
	switch k.container {
	case "":
		return container.Spec{}, errors.New(k.Name + " is not a container kind")
	case "ns-nonet":
		return container.Spec{PID: true, Mnt: true, IPC: true, UTS: true}, nil
	case "full":
		ok, _ := container.UserNamespacesAvailable()
		return container.Full(ok), nil
	}
	return container.Preset(k.container)
}

// Options tune a run; zero values take the kind's defaults.
type Options struct {
	Samples int // measured samples
	Warmup  int // discarded samples first
	CPU     int // pin the creating thread (C kinds); -1 leaves it alone
	// Container overrides the spec of a container kind (nil: the kind's).
	Container *container.Spec
}

// Result is one creation measurement.
type Result struct {
	Kind      string    `json:"kind"`
	Context   string    `json:"context"`
	Label     string    `json:"label"`
	Op        string    `json:"op"`
	PerSample int       `json:"creations_per_sample"`
	Samples   []float64 `json:"samples_ns"` // ns per creation, one value per sample
	Notes     []string  `json:"notes,omitempty"`
}

// Run measures kind.
func Run(name string, opt Options) (Result, error) {
	k, err := Lookup(name)
	if err != nil {
		return Result{}, err
	}
	samples, warmup := k.samples, k.warmup
	if opt.Samples > 0 {
		samples = opt.Samples
	}
	if opt.Warmup > 0 {
		warmup = opt.Warmup
	}
	res := Result{Kind: k.Name, Context: k.Context, Op: k.Op, PerSample: k.batch}
	if k.goroutineFn != nil {
		res.Samples = k.goroutineFn(samples, warmup, k.batch)
		res.Label = fmt.Sprintf("goroutine creation, GOMAXPROCS=%s, %d creations per sample", gomaxprocs(), k.batch)
		return res, nil
	}
	if ok, why := k.Available(); !ok {
		return Result{}, fmt.Errorf("%s: %s", k.Name, why)
	}
	target, err := Memfd("ctxbench-exit", ExitELF())
	if err != nil {
		return Result{}, err
	}
	defer target.Close()
	blk := kernels.Block{Iters: uint64(k.batch), Samples: samples, Warmup: warmup, CPUA: -1, CPUB: -1,
		FD: [4]int{int(target.Fd()), -1, -1, -1}, Arg: k.heap}
	if opt.CPU >= 0 {
		blk.CPUA = opt.CPU
	}
	var out kernels.Output
	if k.kernel == kernels.SpawnContainer {
		spec, _ := k.Spec()
		if opt.Container != nil {
			spec = *opt.Container
		}
		var label string
		var notes []string
		out, label, notes, err = runContainer(blk, spec)
		res.Label, res.Notes = label, notes
	} else {
		// Give back what the Go heap can first: fork's cost follows the
		// parent's resident memory (see the note below).
		debug.FreeOSMemory()
		rss := selfRSS()
		out, err = runGuarded(k.kernel, blk, nil)
		res.Label = k.Op
		if k.kernel == kernels.SpawnFork || k.kernel == kernels.SpawnForkExec {
			res.Label += fmt.Sprintf("; parent is this Go process, VmRSS %.1f MiB before the heap", float64(rss)/mib)
			res.Notes = append(res.Notes, "fork copies the parent's page tables for every resident private page, so its cost follows the parent's resident memory: compare clone-exec and vfork-exec, which copy none")
		}
		if k.heap > 0 {
			res.Label += fmt.Sprintf(" (THP for the heap: off via MADV_NOHUGEPAGE; system setting %s)", thpSetting())
		}
	}
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", k.Name, err)
	}
	res.Samples = make([]float64, len(out.NS))
	for i, ns := range out.NS {
		res.Samples[i] = float64(ns) / float64(k.batch)
	}
	if blk.CPUA >= 0 {
		res.Label += fmt.Sprintf(", creator pinned to CPU %d", blk.CPUA)
	}
	return res, nil
}

// runGuarded runs a C creation kernel with a cleanup hook registered, so a
// signal handler calling container.CleanupAll first stops the kernel (after
// its current creation) and waits for it before removing cgroups.
func runGuarded(k kernels.SpawnKernel, blk kernels.Block, ctr *kernels.SpawnContainerSpec) (kernels.Output, error) {
	done := make(chan struct{})
	remove := container.RegisterHook(func() {
		kernels.SpawnStop(true)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
		}
	})
	defer remove()
	kernels.SpawnStop(false)
	out, err := kernels.SpawnRun(k, blk, ctr)
	close(done)
	return out, err
}

func gomaxprocs() string { return strconv.Itoa(runtime.GOMAXPROCS(0)) }
