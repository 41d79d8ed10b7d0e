package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// ringFlags are the ring command's own flags.
type ringFlags struct {
	kinds, tasks, workingSets []string
	stack, ipc, container     string
}

func newRingCmd(stdout, stderr io.Writer) *cobra.Command {
	mf := &measureFlags{}
	rf := &ringFlags{}
	cmd := &cobra.Command{
		Use:   "ring",
		Short: "N contexts pass a token around a ring: the cost per hop as N and the working set grow",
		Long: `Ring builds a ring of N contexts of one kind that pass an 8-byte token around:
each context blocks until the token arrives, sums its own working set (every
8-byte word of an array of --working-set bytes, as lmbench lat_ctx -s does),
and passes the token on. One hop is one context handing the token to the
next; one round is N hops. The head of the ring times whole rounds.

Kinds: goroutine (one-slot channels, Go), thread (pthreads and pipes, C),
process (this binary re-executed N times, chained by pipes: the head and
every member a single-threaded process running a C loop before the Go runtime
starts, as lmbench's processes are), process-mt (the same ring with the
members as multi-threaded Go processes and the head in the worker, as real
services are: switching into a process with several threads costs more),
container (single-threaded processes, each member started in a container of
its own: namespaces, cpu cgroup, seccomp filter, capabilities per
--container; the timing head stays outside).

Beside the raw cost per hop it measures the overhead in one context with no
switch (the token written into and read back from the same N pipes or
channels, the same N working sets summed) and shows raw, overhead and net =
raw - overhead, never clamped: a net at or below zero is flagged. JSON also
holds lmbench's own baseline (one working set, kept in cache).

The footprint (N x working set) is set against the caches: where it passes
the last-level cache the cost per hop climbs (marked * in the matrix).
Placement: same-cpu (all on one CPU: the direct cost; the default), cross-cpu
(members alternate between two CPUs), unpinned.

Links: pipes by default (lmbench, the published ring); --ipc eventfd links
thread and process rings with one eventfd per context instead of a pipe's two
descriptors, for rings that a descriptor limit would otherwise refuse.

Scale: up to millions of goroutines, ~10,000 threads and ~2,000 processes on a
small machine. The open-file limit is raised where allowed; a ring beyond
RLIMIT_NOFILE, kernel.threads-max, kernel.pid_max, vm.max_map_count or the
available memory is refused with the limit named. See docs/ring.md.`,
		Example: `  ctxbench ring --kind thread --tasks 2-400 --working-set 0,16KiB,64KiB,256KiB
  ctxbench ring --kind thread,process --tasks 2,16,128,400 --working-set 0,64KiB,1MiB --export-json rings.json
  ctxbench ring --kind goroutine --tasks 1000000 --quick
  ctxbench ring --kind process --tasks 2000 --quick
  ctxbench ring --kind thread --tasks 10000 --ipc eventfd --quick   # one descriptor per thread
  ctxbench ring --kind thread --tasks 8 --placement same-cpu,cross-cpu
  ctxbench ring --kind process,container --tasks 2,16,64 --working-set 0 --container full
  ctxbench replicate hot-potato-ring          # the published 400-thread vs 400-process ring`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmptyElements(cmd, "kind", "tasks", "working-set", "placement"); err != nil {
				return err
			}
			return runRing(cmd.Context(), mf, rf, stdout, stderr)
		},
	}
	mf.register(cmd)
	f := cmd.Flags()
	f.Lookup("runs").Usage = "measured samples per ring point (default: 30 in 6 blocks, a 95% interval; --quick 6 in 2 blocks, its level printed; --thorough 60 in 10 blocks)"
	f.Lookup("samples-per-block").Usage = "samples per worker process (each block builds the ring anew) (default 5; --quick 3; --thorough 6)"
	f.Lookup("iterations").Usage = "fixed rounds per sample instead of calibrating (one round = N hops)"
	f.Lookup("min-time").Usage = "target duration of one sample; the head calibrates rounds per sample to it (default 2ms)"
	f.Lookup("placement").Usage = "same-cpu, cross-cpu, unpinned and/or a level of the CPU topology (" + levelNames() + ") (default same-cpu)"
	f.Lookup("warmup").DefValue = "1; --thorough 2; process and container rings: enough samples for 40ms"
	f.Lookup("no-perf-check").Usage = "skip the extra block per point (rings of up to 512) that cross-checks switch counts with perf events"
	mf.jsonOnly(cmd)
	f.StringSliceVar(&rf.kinds, "kind", []string{"thread"}, "goroutine, thread, process, process-mt, container (comma-separated for several; process-mt: members are multi-threaded Go processes)")
	f.StringSliceVar(&rf.tasks, "tasks", []string{"2,4,8,16,32,64,128,256,400"}, "ring sizes: a list, or a range A-B doubling from A (2-400 = 2,4,...,256,400)")
	f.StringSliceVar(&rf.workingSets, "working-set", []string{"0,4KiB,64KiB,1MiB"}, "bytes each context sums per pass: 0, 4KiB, 64KiB, 1MiB, ... (KiB/MiB/GiB; KB/MB/GB are powers of 1000)")
	f.StringVar(&rf.stack, "stack", "64KiB", "stack of each member thread (thread rings)")
	f.StringVar(&rf.container, "container", "full", "container rings: what each member's container is made of ("+strings.Join(suite.ContainerPresets(), ", ")+"; each is the container/pipe-PRESET rung in 'ctxbench list', see docs/containers.md)")
	f.StringVar(&rf.ipc, "ipc", "pipe", "what links thread and process rings: pipe (two descriptors per context, as lmbench) or eventfd (one)")
	return cmd
}

func runRing(ctx context.Context, mf *measureFlags, rf *ringFlags, stdout, stderr io.Writer) error {
	if err := mf.refuseTables("ring's points are in --export-json"); err != nil {
		return err
	}
	var o suite.RingOptions
	if err := rf.sweep(&o.RingSweep); err != nil {
		return err
	}
	var err error
	if o.Sampling, o.Settings, o.Placements, o.CPUs, err = mf.settings(); err != nil {
		return err
	}
	plan, err := suite.PlanRing(o)
	if err != nil {
		return &usageError{err.Error()}
	}
	if !mf.quiet {
		noteLoad(stderr, "ring", plan.Points, "points")
	}
	ms := mf.measurement(plan.Settings)
	ms.compose = func(spec session.Spec) (session.Spec, error) { return plan.Spec(spec), nil }
	ms.show = func(w io.Writer, doc *result.Document) { render.Rings(w, doc, style(w)) }
	ms.failures = func(doc *result.Document) error {
		return failed(doc, "ring points", len(doc.Failures)+len(doc.Rings))
	}
	return ms.run(ctx, stdout, stderr)
}

// sweep parses the ring's own flags into the experiment's options: the
// kinds, sizes and working sets swept, each member's stack, the links and
// the container preset.
func (rf *ringFlags) sweep(o *suite.RingSweep) error {
	for _, s := range rf.kinds {
		for _, part := range strings.Split(s, ",") {
			k, err := suite.ParseRingKind(strings.TrimSpace(part))
			if err != nil {
				return &usageError{err.Error()}
			}
			o.Kinds = append(o.Kinds, k)
		}
	}
	var err error
	if o.Tasks, err = suite.ParseRingTasks(rf.tasks); err != nil {
		return usagef("--tasks: %v", err)
	}
	if o.WorkingSets, err = suite.ParseRingWorkingSets(rf.workingSets); err != nil {
		return usagef("--working-set: %v", err)
	}
	if o.StackBytes, err = suite.ParseRingBytes(rf.stack); err != nil || o.StackBytes < 16<<10 || o.StackBytes > 1<<30 {
		return usagef("--stack %q: want a size from 16KiB to 1GiB", rf.stack)
	}
	if err := catalog.CheckContainerPreset(rf.container); err != nil {
		return &usageError{"--container: " + err.Error()}
	}
	o.ContainerPreset = rf.container
	switch rf.ipc {
	case "pipe":
	case "eventfd":
		o.IPC = model.RingEventfd
	default:
		return usagef("--ipc %q: want pipe or eventfd", rf.ipc)
	}
	return nil
}

// refuseEmptyElements refuses a comma-separated list flag, among names,
// that was given with an empty element ("2,,3", "2,", ",2", or nothing at
// all). The parsers behind several of them skip empty parts, so a typo
// ran a sweep other than the one typed; a value given is used as given or
// refused. Flags not given keep their defaults.
func refuseEmptyElements(cmd *cobra.Command, names ...string) error {
	for _, name := range names {
		f := cmd.Flags().Lookup(name)
		if f == nil || !f.Changed {
			continue
		}
		// A slice flag has split its values already (and a repeated flag
		// adds to them); its elements may still hold commas the command
		// splits again, so they are joined and split once more.
		items := []string{f.Value.String()}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			items = sv.GetSlice()
		}
		list := strings.Join(items, ",")
		if strings.TrimSpace(list) == "" {
			return usagef("--%s is empty: give at least one value, or leave the flag out for its default", name)
		}
		for _, part := range strings.Split(list, ",") {
			if strings.TrimSpace(part) == "" {
				return usagef("--%s %q has an empty element (a doubled, leading or trailing comma)", name, list)
			}
		}
	}
	return nil
}

// noteLoad says, at the start of a sweep of n units, how busy the machine
// is: it is often shared, and a sweep's figures are read against it.
func noteLoad(w io.Writer, command string, n int, units string) {
	l := machine.ReadLoad()
	fmt.Fprintf(w, "ctxbench %s: %d %s, load average %.2f (%d runnable of %d tasks) at start\n",
		command, n, units, l.Load1, l.Runnable, l.Procs)
}
