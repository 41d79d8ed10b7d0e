package ring

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// LimitError says which limit of this machine a ring would exceed. The
// CLI reports it as bad input (one line, exit status 2).
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// Per-context costs for the memory estimate (measured here, rounded up):
// a parked goroutine with its one-slot channel about 3 KiB; a member
// thread a 16 KiB kernel stack, its task struct and the touched pages of
// its user stack, about 40 KiB; a re-executed multi-threaded member
// process about 1 MiB proportional set (mostly its Go runtime's heap arena
// and page tables) and four threads. A single-threaded member never starts
// the Go runtime and is smaller; the same 1.5 MiB bounds it from above.
const (
	goroutineBytes      = 3 << 10
	threadBytes         = 40 << 10
	processBytes        = 1536 << 10
	threadsPerProcess   = 5 // a GOMAXPROCS=1 Go partner: main, sysmon, the kernel's locked thread, spares
	mapsPerThread       = 2 // stack + guard page
	memoryShareAllowed  = 0.8
	baselineMapsAndFDs  = 1024
	maxGoroutineMembers = 50_000_000
)

// Check says whether a ring of n contexts of kind, each with ws bytes, fits
// this machine's limits, raising nothing. It returns a LimitError naming
// the first limit it would exceed.
func Check(kind Kind, n int, ws int64, ipc model.RingIPC, l host.Limits) error {
	name := map[Kind]string{Goroutine: "goroutines", Thread: "threads", Process: "processes", ProcessMT: "multi-threaded processes", Container: "contained processes"}[kind]
	if n < 2 {
		return &LimitError{fmt.Sprintf("a ring needs at least 2 contexts (got %d)", n)}
	}
	// Memory: the members' working sets, their own cost, and for
	// processes the overhead's copy of the working sets in the worker.
	per := ws
	switch kind {
	case Goroutine:
		if n > maxGoroutineMembers {
			return &LimitError{fmt.Sprintf("a ring of %d goroutines is beyond what ctxbench runs (%d at most)", n, maxGoroutineMembers)}
		}
		per += goroutineBytes
	case Thread:
		per += threadBytes
	case Process, ProcessMT, Container:
		per += ws + processBytes
	}
	need := float64(per) * float64(n)
	if l.MemAvailable > 0 && need > memoryShareAllowed*float64(l.MemAvailable) {
		return &LimitError{fmt.Sprintf("a ring of %d %s with %s each needs about %s of memory; MemAvailable is %s (use fewer tasks or a smaller --working-set)",
			n, name, result.SizeLabel(ws), units.Bytes(need), units.Bytes(float64(l.MemAvailable)))}
	}
	// Descriptors: two pipe ends (or one eventfd) per context, + a
	// control pipe per process.
	link := uint64(2)
	if ipc == model.RingEventfd {
		link = 1
	}
	fds := uint64(n)*link + baselineMapsAndFDs
	if kind == Process || kind == ProcessMT || kind == Container {
		fds += uint64(2 * n)
	}
	if kind != Goroutine && l.NoFileHard > 0 && fds > l.NoFileHard && !l.CanRaise {
		hint := ""
		if ipc == model.RingPipe && uint64(n)+baselineMapsAndFDs <= l.NoFileHard {
			hint = "; --ipc eventfd needs one descriptor per context instead of two"
		}
		return &LimitError{fmt.Sprintf("a ring of %d %s needs about %d open files; RLIMIT_NOFILE's hard limit is %d and raising it needs CAP_SYS_RESOURCE, which this process lacks (ulimit -Hn)%s", n, name, fds, l.NoFileHard, hint)}
	}
	// Tasks: threads and processes both take a task, a pid, and count
	// against threads-max.
	tasks := int64(0)
	switch kind {
	case Thread:
		tasks = int64(n)
	case Process, Container:
		tasks = int64(n) // single-threaded members
	case ProcessMT:
		tasks = int64(n) * threadsPerProcess
	}
	if tasks > 0 {
		if l.ThreadsMax > 0 && l.Tasks+tasks > l.ThreadsMax {
			return &LimitError{fmt.Sprintf("a ring of %d %s needs about %d more tasks; %d run already and kernel.threads-max is %d (raise it with sysctl kernel.threads-max)", n, name, tasks, l.Tasks, l.ThreadsMax)}
		}
		if l.PidMax > 0 && l.Tasks+tasks > l.PidMax {
			return &LimitError{fmt.Sprintf("a ring of %d %s needs about %d more task ids; %d are in use and kernel.pid_max is %d (raise it with sysctl kernel.pid_max)", n, name, tasks, l.Tasks, l.PidMax)}
		}
		if !l.NoNProc && l.NProc > 0 && l.NProc != unix.RLIM_INFINITY && uint64(tasks) > l.NProc {
			return &LimitError{fmt.Sprintf("a ring of %d %s needs about %d tasks of this user; RLIMIT_NPROC is %d (ulimit -u)", n, name, tasks, l.NProc)}
		}
	}
	if kind == Thread && l.MaxMapCount > 0 && int64(n)*mapsPerThread+baselineMapsAndFDs > l.MaxMapCount {
		return &LimitError{fmt.Sprintf("a ring of %d threads needs about %d memory mappings (a stack and a guard page each); vm.max_map_count is %d (raise it with sysctl vm.max_map_count)", n, int64(n)*mapsPerThread+baselineMapsAndFDs, l.MaxMapCount)}
	}
	return nil
}
