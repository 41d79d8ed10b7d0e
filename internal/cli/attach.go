package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// attachFlags are attach's flags.
type attachFlags struct {
	pids        []int
	cgroups     []string
	all         bool
	duration    time.Duration
	window      time.Duration
	probes      string
	rateLimit   uint32
	pool        string
	check       bool
	checkRate   uint64
	checkRounds int
	cpus        string
	exportJSON  string
	quiet       bool
	noHistory   bool
	store       string
	lf          lockFlags
}

func newAttach(stdout, stderr io.Writer) *cobra.Command {
	af := &attachFlags{}
	cmd := &cobra.Command{
		Use:   "attach --pid N | --cgroup PATH | --all",
		Short: "what switching costs a program that is already running: attach, measure, explain, leave nothing",
		Long: `Attach measures, in place, the context switches of programs ctxbench did not
start — a process (--pid: its threads), a cgroup (--cgroup: a container or a
systemd unit, and every cgroup below it) or the whole machine (--all) — for
--duration, never starting or stopping them. BPF programs on the kernel's raw
tracepoints count each target's switches by kind (blocked or preempted, and by
whom; woken from the same CPU or another, resumed, migrated), time each
switch-in's wait on a run queue, and time each switch's path: from
__schedule's entry (with --probes full, the syscall's) through the switch to
the incoming task's return to user space, plus the wakeup that made it
runnable. Everything is added up in the kernel (histograms and sums per
kind); nothing is streamed.

It prints the share of the target's CPU time lost to switching (the direct
time on switch paths over its CPU time) and the share of wall time its tasks
waited on a run queue, each with its interval over the time windows; the rate
by kind, checked against the target's own /proc counters; the cost per switch
and its biggest phase; and what the same rate would cost at this machine's
ladder figures (from its history) and, with --pool, at a pool experiment's
curve. An indirect cost (what a switch costs the work after it) is given only
with a named method, which needs hardware counters; where there are none it
says so. The attach's own cost is printed from the kernel's BPF run-time
statistics. --check attaches to ctxbench's own known workload instead (a
stated number of pipe hops per second on one CPU), with the ladder's
thread/pipe hop and the workload's throughput with and without the attach
measured in the same sitting (docs/inplace.md).

It needs root (or CAP_BPF and CAP_PERFMON), the bpf() syscall, the kernel's
BTF and raw tracepoints; without them it exits 2 saying which. Nothing is
pinned: however ctxbench ends (Ctrl-C, SIGTERM, SIGKILL), the kernel
detaches every probe.`,
		Example: `  ctxbench attach --pid 1234 --duration 30s
  ctxbench attach --cgroup system.slice/postgresql.service --duration 1m --export-json pg.json
  ctxbench attach --all --duration 10s --probes full
  ctxbench attach --pid 1234 --pid 5678 --window 500ms
  ctxbench attach --cgroup pgdemo --pool pools.json
  ctxbench attach --check --check-rate 50000`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := af.options(cmd)
			if err != nil {
				return err
			}
			return runAttach(cmd.Context(), af, o, stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.IntSliceVar(&af.pids, "pid", nil, "a process to attach to: every thread of it (repeat or list several: each is a target)")
	f.StringSliceVar(&af.cgroups, "cgroup", nil, "a cgroup to attach to, a `PATH` under /sys/fs/cgroup: every process in it and below it (repeat for several)")
	f.BoolVar(&af.all, "all", false, "attach to the whole machine: every task but ctxbench's own")
	f.DurationVar(&af.duration, "duration", 10*time.Second, "how long to stay attached")
	f.DurationVar(&af.window, "window", 0, "the time windows the intervals are over (default: a tenth of --duration, at least 100ms)")
	f.StringVar(&af.probes, "probes", "light", "light (a switch's path from __schedule's entry, five probes per switch) or full (from the syscall's entry, every boundary a phase: ten, and the syscall probes fire on every syscall of the machine)")
	f.Uint32Var(&af.rateLimit, "rate-limit", 100000, "time at most this many switches per second on each CPU (count the rest: the figures are then a sample's); 0: time every one")
	f.StringVar(&af.pool, "pool", "", "a pool experiment's result `FILE` of this machine (ctxbench pool --export-json): the what-if reads its PostgreSQL curve at the target's cost per switch")
	f.BoolVar(&af.check, "check", false, "attach to ctxbench's own known workload instead of a target, beside the ladder's thread/pipe hop and with and without the attach (docs/inplace.md)")
	f.Uint64Var(&af.checkRate, "check-rate", 50000, "--check: the pipe hops per second the known workload makes")
	f.IntVar(&af.checkRounds, "check-rounds", 6, "--check: rounds of the interleaved parts")
	f.StringVar(&af.cpus, "cpus", "", "--check: the CPUs it may use; it runs on the last (default: all allowed)")
	f.StringVar(&af.exportJSON, "export-json", "", "write the results as JSON to `FILE` (- for stdout)")
	f.BoolVarP(&af.quiet, "quiet", "q", false, "print no table or progress; only errors")
	f.BoolVar(&af.noHistory, "no-history", false, "do not read the machine's history (the what-if's ladder figures) (also: "+envNoHistory+"=1)")
	f.StringVar(&af.store, "store", "", "the history to read the ladder's figures from: a file `PATH` or a postgres:// URL (default: $"+envHistory+", else the file every run records into)")
	cmd.MarkFlagsMutuallyExclusive("no-history", "store")
	af.lf.register(cmd)
	return cmd
}

// options are the experiment's options from the flags; bad input is one
// line, exit 2.
func (af *attachFlags) options(cmd *cobra.Command) (suite.AttachOptions, error) {
	f := cmd.Flags()
	o := suite.AttachOptions{Duration: af.duration, Window: af.window, RateLimit: af.rateLimit, PoolFile: af.pool}
	switch af.probes {
	case "light":
	case "full":
		o.Full = true
	default:
		return o, usagef("--probes must be light or full, got %q", af.probes)
	}
	if af.duration <= 0 {
		return o, usagef("--duration must be positive, got %v", af.duration)
	}
	if f.Changed("window") && af.window <= 0 {
		return o, usagef("--window must be positive, got %v", af.window)
	}
	for _, p := range af.pids {
		o.Targets = append(o.Targets, suite.AttachTarget{Pid: p})
	}
	for _, c := range af.cgroups {
		o.Targets = append(o.Targets, suite.AttachTarget{Cgroup: c})
	}
	if af.all {
		o.Targets = append(o.Targets, suite.AttachTarget{All: true})
	}
	if af.check {
		if len(o.Targets) > 0 {
			return o, usagef("--check attaches to ctxbench's own known workload: no --pid, --cgroup or --all beside it")
		}
		if af.checkRate == 0 || af.checkRate > 1000000 {
			return o, usagef("--check-rate must be between 1 and 1000000 hops per second, got %d", af.checkRate)
		}
		if af.checkRounds < 2 || af.checkRounds > 1000 {
			return o, usagef("--check-rounds must be between 2 and 1000, got %d", af.checkRounds)
		}
		o.Check = &suite.AttachCheck{HopsPerSecond: af.checkRate, Rounds: af.checkRounds}
	} else if len(o.Targets) == 0 {
		return o, usagef("name a target: --pid N, --cgroup PATH or --all (or --check)")
	}
	for _, name := range []string{"check-rate", "check-rounds", "cpus"} {
		if f.Changed(name) && !af.check {
			return o, usagef("--%s is --check's: give --check too", name)
		}
	}
	if af.pool != "" {
		if _, err := os.Stat(af.pool); err != nil {
			return o, usagef("--pool %s: %v", af.pool, err)
		}
	}
	if err := checkAll(onlyJSON(af.exportJSON)(nil)); err != nil {
		return o, err
	}
	if err := suite.CheckAttach(o); err != nil {
		return o, &usageError{err.Error()}
	}
	if err := suite.CheckTracing(); err != nil {
		return o, &usageError{"attach: " + err.Error()}
	}
	return o, nil
}

// historyPath is where the what-if's ladder figures are read from ("":
// nowhere).
func (af *attachFlags) historyPath(stderr io.Writer) string {
	if af.noHistory || envOn(os.Getenv(envNoHistory)) {
		return ""
	}
	if af.store != "" {
		return af.store
	}
	p, err := storePath()
	if err != nil {
		fmt.Fprintf(stderr, "ctxbench: no history (%v); no ladder figures beside the target\n", err)
		return ""
	}
	return p
}

func runAttach(ctx context.Context, af *attachFlags, o suite.AttachOptions, stdout, stderr io.Writer) error {
	cpus, err := resolveCPUs(af.cpus)
	if err != nil {
		return err
	}
	set := result.Settings{Preset: "custom", CPUs: cpus}
	ms := measurement{settings: set, lock: &af.lf, quiet: af.quiet, exports: onlyJSON(af.exportJSON), named: af.exportJSON}
	ms.compose = func(spec session.Spec) (session.Spec, error) {
		spec.History = af.historyPath(stderr)
		spec.Progress = nil
		return suite.Attach(spec, o), nil
	}
	ms.show = func(w io.Writer, doc *result.Document) { render.Attach(w, doc) }
	ms.failures = func(doc *result.Document) error { return nil }
	return ms.run(ctx, stdout, stderr)
}
