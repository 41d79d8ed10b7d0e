package suite

// child.go: what runs in a re-executed ctxbench that is not the command
// line (a worker, a partner, a parked memory context), and the sweep every
// command starts with. Their mechanisms are below the command line, which
// reaches them only here.

import (
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/memory"
	"github.com/ctxbench/ctxbench/internal/partner"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// children are the hidden entry points of re-executed children, by their
// first argument.
var children = map[string]func(stdin io.Reader, stdout, stderr io.Writer, args []string) int{
	schedule.WorkerArg: func(in io.Reader, out, _ io.Writer, _ []string) int {
		return schedule.WorkerMain(in, out, catalog.Lookup, catalog.WorkerCleanup, catalog.HostProbe)
	},
	partner.Arg: func(in io.Reader, out, _ io.Writer, _ []string) int {
		// A partner started into a container applies what a process can
		// only apply to itself (seccomp, dropped capabilities) first thing.
		if _, err := container.EnterFromEnv(); err != nil {
			fmt.Fprintf(out, "error entering the container: %v\n", err)
			return 1
		}
		return partner.Main(in, out)
	},
	memory.ParkSubcommand: func(_ io.Reader, _, _ io.Writer, args []string) int { return memory.ParkMain(args) },
}

// Child runs the process as the re-executed child its first argument names
// and returns its exit status; ok is false when args name no child (the
// process is the command line).
func Child(args []string, stdin io.Reader, stdout, stderr io.Writer) (status int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	f, ok := children[args[0]]
	if !ok {
		return 0, false
	}
	// Where the kernel does not end a child with its parent (macOS), the
	// child watches its parent and ends itself.
	host.WatchParent()
	return f(stdin, stdout, stderr, args[1:]), true
}

// Sweep removes the throwaway servers' directories whose owner is dead (a
// SIGKILLed run cannot remove its own: their processes die with it) and
// says how many it removed.
func Sweep() (removed int, err error) {
	swept, err := serverdir.Sweep()
	return len(swept), err
}
