package ring

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/result"
)

// LimitError says which limit of this machine a ring would exceed. The
// CLI reports it as bad input (one line, exit status 2).
type LimitError struct{ Msg string }

func (e *LimitError) Error() string { return e.Msg }

// Limits are what a ring's size is checked against; ReadLimits fills them
// from /proc and getrlimit, tests fill them by hand.
type Limits struct {
	ThreadsMax   int64 // kernel.threads-max
	PidMax       int64 // kernel.pid_max (thread ids count too)
	MaxMapCount  int64 // vm.max_map_count (per process)
	Tasks        int64 // tasks (threads) alive on the machine now
	NoFileHard   uint64
	NoFileSoft   uint64
	NProc        uint64 // RLIMIT_NPROC soft; ignored for root
	CanRaise     bool   // CAP_SYS_RESOURCE: may raise hard limits
	NoNProc      bool   // CAP_SYS_RESOURCE or CAP_SYS_ADMIN: RLIMIT_NPROC does not apply
	MemAvailable int64  // bytes
}

// ReadLimits reads this machine's limits.
func ReadLimits() Limits {
	l := Limits{
		ThreadsMax:   readInt("/proc/sys/kernel/threads-max"),
		PidMax:       readInt("/proc/sys/kernel/pid_max"),
		MaxMapCount:  readInt("/proc/sys/vm/max_map_count"),
		MemAvailable: meminfo("MemAvailable") * 1024,
	}
	// Root is not enough: a container may drop CAP_SYS_RESOURCE.
	caps := capEff()
	l.CanRaise = caps&(1<<unix.CAP_SYS_RESOURCE) != 0
	l.NoNProc = l.CanRaise || caps&(1<<unix.CAP_SYS_ADMIN) != 0
	if f := strings.Fields(readString("/proc/loadavg")); len(f) >= 4 {
		if _, total, ok := strings.Cut(f[3], "/"); ok {
			l.Tasks, _ = strconv.ParseInt(total, 10, 64)
		}
	}
	var r unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &r) == nil {
		l.NoFileSoft, l.NoFileHard = r.Cur, r.Max
	}
	if unix.Getrlimit(unix.RLIMIT_NPROC, &r) == nil {
		l.NProc = r.Cur
	}
	return l
}

// capEff is this process's effective capability set.
func capEff() uint64 {
	for _, line := range strings.Split(readString("/proc/self/status"), "\n") {
		if rest, ok := strings.CutPrefix(line, "CapEff:"); ok {
			v, _ := strconv.ParseUint(strings.TrimSpace(rest), 16, 64)
			return v
		}
	}
	return 0
}

func readString(p string) string {
	b, _ := os.ReadFile(p)
	return strings.TrimSpace(string(b))
}

func readInt(p string) int64 {
	v, _ := strconv.ParseInt(readString(p), 10, 64)
	return v
}

func meminfo(key string) int64 {
	for _, line := range strings.Split(readString("/proc/meminfo"), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				v, _ := strconv.ParseInt(f[0], 10, 64)
				return v
			}
		}
	}
	return 0
}

// Per-context costs for the memory estimate (measured here, rounded up):
// a parked goroutine with its one-slot channel about 3 KiB; a member
// thread a 16 KiB kernel stack, its task struct and the touched pages of
// its user stack, about 40 KiB; a re-executed member process about 1 MiB
// proportional set (mostly its Go runtime's heap arena and page tables) and
// four threads.
const (
	goroutineBytes      = 3 << 10
	threadBytes         = 40 << 10
	processBytes        = 1536 << 10
	threadsPerProcess   = 5 // a GOMAXPROCS=1 partner: main, sysmon, the kernel's locked thread, spares
	mapsPerThread       = 2 // stack + guard page
	memoryShareAllowed  = 0.8
	baselineMapsAndFDs  = 1024
	maxGoroutineMembers = 50_000_000
)

// Check says whether a ring of n contexts of kind, each with ws bytes, fits
// this machine's limits, raising nothing. It returns a LimitError naming
// the first limit it would exceed.
func Check(kind Kind, n int, ws int64, ipc kernels.RingIPC, l Limits) error {
	name := map[Kind]string{Goroutine: "goroutines", Thread: "threads", Process: "processes", Container: "contained processes"}[kind]
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
	case Process, Container:
		per += ws + processBytes
	}
	need := float64(per) * float64(n)
	if l.MemAvailable > 0 && need > memoryShareAllowed*float64(l.MemAvailable) {
		return &LimitError{fmt.Sprintf("a ring of %d %s with %s each needs about %s of memory; MemAvailable is %s (use fewer tasks or a smaller --working-set)",
			n, name, result.SizeLabel(ws), human(need), human(float64(l.MemAvailable)))}
	}
	// Descriptors: two pipe ends (or one eventfd) per context, + a
	// control pipe per process.
	link := uint64(2)
	if ipc == kernels.RingEventfd {
		link = 1
	}
	fds := uint64(n)*link + baselineMapsAndFDs
	if kind == Process || kind == Container {
		fds += uint64(2 * n)
	}
	if kind != Goroutine && l.NoFileHard > 0 && fds > l.NoFileHard && !l.CanRaise {
		hint := ""
		if ipc == kernels.RingPipe && uint64(n)+baselineMapsAndFDs <= l.NoFileHard {
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

func human(b float64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", b/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", b/(1<<20))
	default:
		return fmt.Sprintf("%.0f KiB", b/(1<<10))
	}
}
