package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/export"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/ring"
	"github.com/ctxbench/ctxbench/internal/runner"
)

func init() { extraCommands = append(extraCommands, newRingCmd) }

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
process (this binary re-executed N-1 times, chained by pipes, each member a C
loop), container (the same processes, each started in a container of its own:
namespaces, cpu cgroup, seccomp filter, capabilities per --container; the
timing head stays outside).

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
			return runRing(cmd.Context(), mf, rf, stdout, stderr)
		},
	}
	mf.register(cmd)
	f := cmd.Flags()
	f.Lookup("runs").Usage = "measured samples per ring point (default: 20; --quick 6; --thorough 60)"
	f.Lookup("samples-per-block").Usage = "samples per worker process (each block builds the ring anew) (default 10)"
	f.Lookup("iterations").Usage = "fixed rounds per sample instead of calibrating (one round = N hops)"
	f.Lookup("min-time").Usage = "target duration of one sample; the head calibrates rounds per sample to it (default 2ms)"
	f.Lookup("placement").Usage = "same-cpu, cross-cpu and/or unpinned (default same-cpu)"
	f.Lookup("no-perf-check").Usage = "skip the extra block per point (rings of up to 512) that cross-checks switch counts with perf events"
	for _, name := range []string{"export-csv", "export-markdown", "export-gobench"} {
		_ = f.MarkHidden(name)
	}
	f.StringSliceVar(&rf.kinds, "kind", []string{"thread"}, "goroutine, thread, process, container (comma-separated for several)")
	f.StringSliceVar(&rf.tasks, "tasks", []string{"2,4,8,16,32,64,128,256,400"}, "ring sizes: a list, or a range A-B doubling from A (2-400 = 2,4,...,256,400)")
	f.StringSliceVar(&rf.workingSets, "working-set", []string{"0,4KiB,64KiB,1MiB"}, "bytes each context sums per pass: 0, 4KiB, 64KiB, 1MiB, ... (KiB/MiB/GiB; KB/MB/GB are powers of 1000)")
	f.StringVar(&rf.stack, "stack", "64KiB", "stack of each member thread (thread rings)")
	f.StringVar(&rf.container, "container", "full", "container rings: what each member's container is made of ("+strings.Join(container.PresetNames(), ", ")+"; each is the container/pipe-PRESET rung in 'ctxbench list', see docs/containers.md)")
	f.StringVar(&rf.ipc, "ipc", "pipe", "what links thread and process rings: pipe (two descriptors per context, as lmbench) or eventfd (one)")
	return cmd
}

// Ring presets: fewer samples than the ladder's, since every block builds
// the whole ring again.
var ringRuns = map[string][2]int{"quick": {6, 3}, "default": {20, 10}, "thorough": {60, 20}}

func runRing(ctx context.Context, mf *measureFlags, rf *ringFlags, stdout, stderr io.Writer) error {
	for _, e := range []struct{ flag, val string }{{"--export-csv", mf.exportCSV}, {"--export-markdown", mf.exportMarkdown}, {"--export-gobench", mf.exportGoBench}} {
		if e.val != "" {
			return usagef("%s is not offered by ring (its points are in --export-json)", e.flag)
		}
	}
	var kinds []ring.Kind
	for _, s := range rf.kinds {
		for _, part := range strings.Split(s, ",") {
			k, err := ring.ParseKind(strings.TrimSpace(part))
			if err != nil {
				return &usageError{err.Error()}
			}
			kinds = append(kinds, k)
		}
	}
	tasks, err := ring.ParseTasks(rf.tasks)
	if err != nil {
		return usagef("--tasks: %v", err)
	}
	wss, err := ring.ParseWorkingSets(rf.workingSets)
	if err != nil {
		return usagef("--working-set: %v", err)
	}
	stack, err := ring.ParseBytes(rf.stack)
	if err != nil || stack < 16<<10 || stack > 1<<30 {
		return usagef("--stack %q: want a size from 16KiB to 1GiB", rf.stack)
	}
	var ipc kernels.RingIPC
	switch rf.ipc {
	case "pipe":
	case "eventfd":
		ipc = kernels.RingEventfd
	default:
		return usagef("--ipc %q: want pipe or eventfd", rf.ipc)
	}
	o, set, placements, cpus, err := mf.settings()
	if err != nil {
		return err
	}
	// The base preset, not set.Preset: "--quick --runs 3" is recorded as
	// custom but still takes quick's samples per block.
	if d := ringRuns[mf.preset().name]; d[0] > 0 {
		if mf.runs == 0 {
			set.Runs = d[0]
		}
		if mf.block == 0 {
			set.SamplesPerBlock = d[1]
		}
	}
	if len(placements) == 0 {
		placements = []bench.Placement{bench.SameCPU}
		set.Placements = []string{string(bench.SameCPU)}
	}
	env := machine.Collect(machine.Options{})
	ro := ring.Options{
		Kinds: kinds, Tasks: tasks, WorkingSets: wss, Placements: placements, CPUs: cpus,
		Runs: set.Runs, SamplesPerBlock: set.SamplesPerBlock, Warmup: set.Warmup,
		MinTime: time.Duration(set.MinTimeNS), Rounds: mf.iterations, StackBytes: stack, IPC: ipc, ContainerPreset: rf.container,
		Timeout: mf.timeout, Seed: set.Seed, PerfCheck: o.PerfCheck && env.Perf.Software,
		Executor: runner.ProcessExecutor{}, Env: env, Host: export.HostLine(env),
	}
	if mf.dryRun {
		ro.Executor = ring.FakeExecutor{Seed: set.Seed}
		ro.PerfCheck = false
		ro.Host += " (dry run: synthetic figures)"
	}
	cells, skipped, err := ring.Plan(ro)
	if err != nil {
		return &usageError{err.Error()}
	}
	if len(cells) == 0 {
		if len(skipped) > 0 {
			return usagef("nothing to run: %s", skipped[0].Error)
		}
		return usagef("nothing to run")
	}
	// Start of the sweep: the machine is often shared; say how busy it is.
	if !mf.quiet {
		fmt.Fprintf(stderr, "ctxbench ring: %d points, load average %.2f (%d runnable of %d tasks) at start\n",
			len(cells), env.Load.Load1, env.Load.Runnable, env.Load.Procs)
	}
	if !mf.quiet && isTTY(stderr) {
		ro.Progress = newProgressBar(stderr)
	}
	doc := &result.Document{
		SchemaVersion: result.SchemaVersion, Tool: tool(), Command: append([]string{"ctxbench"}, os.Args[1:]...),
		StartedAt: time.Now().UTC(), Settings: set, Results: []result.Result{}, Rings: []result.Ring{},
	}
	before := machine.ReadCPUTimes("")
	outs, err := ring.Sweep(ctx, cells, ro)
	if err != nil {
		return err
	}
	env.Steal = machine.Steal(before, machine.ReadCPUTimes(""))
	doc.FinishedAt = time.Now().UTC()
	for _, oc := range outs {
		if oc.Err != nil {
			doc.Failures = append(doc.Failures, result.Failure{Name: oc.Cell.Key(), Placement: string(oc.Cell.Placement), Error: oc.Err.Error()})
			continue
		}
		doc.Rings = append(doc.Rings, *oc.Ring)
	}
	doc.Skipped = skipped
	doc.Environment = env
	doc.Warnings = append(append([]result.Warning{}, env.Warnings...), machine.RunWarnings(env.Steal)...)

	table, err := saveJSON(doc, mf.exportJSON, stdout, stderr)
	if err != nil {
		return err
	}
	if !mf.quiet {
		printRings(table, doc, style(table))
		if mf.exportJSON != "" && mf.exportJSON != "-" {
			fmt.Fprintf(table, "\nresults written to %s\n", mf.exportJSON)
		}
	}
	return failed(doc, "ring points", len(doc.Failures)+len(doc.Rings))
}

// printRings shows each kind and placement as a table of points and, when
// the sweep has several sizes and working sets, a matrix of raw cost per
// hop in which the points past the last-level cache are marked.
func printRings(w io.Writer, d *result.Document, st export.Style) {
	fmt.Fprintf(w, "\nctxbench ring — %s\n", export.HostLine(d.Environment))
	if d.Settings.DryRun {
		fmt.Fprintln(w, "DRY RUN: synthetic figures; nothing was measured")
	}
	fmt.Fprintln(w, "one hop = one context hands the token to the next (a round of N contexts is N hops); figures are medians per hop")
	type group struct{ kind, placement string }
	var order []group
	byGroup := map[group][]result.Ring{}
	for _, r := range d.Rings {
		g := group{r.Kind, r.Placement}
		if _, ok := byGroup[g]; !ok {
			order = append(order, g)
		}
		byGroup[g] = append(byGroup[g], r)
	}
	for _, g := range order {
		rs := byGroup[g]
		fmt.Fprintf(w, "\n%s: %s\n", st.Paint("1", fmt.Sprintf("ring of %s, %s", plural(g.kind), g.placement)), ringWhere(rs[0]))
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "N\tworking set\tfootprint\tfits in\traw/hop\toverhead\tnet\tnet/raw\tTSC cycles\tswitches/hop\tverified\t")
		for _, r := range rs {
			foot, in := "-", "-"
			if r.WorkingSetB > 0 {
				foot, in = result.SizeLabel(r.FootprintB), r.FitsIn
				if in == "memory" {
					in = "> LLC"
				}
			}
			cyc := "-"
			if r.RawCycles != nil {
				cyc = fmt.Sprintf("%.0f", r.RawCycles.Median)
			}
			sw := "-"
			switch {
			case r.SwitchesPerHop != nil:
				sw = fmt.Sprintf("%.2f", *r.SwitchesPerHop)
			case r.OSSwitchesPerHop != nil:
				sw = fmt.Sprintf("(OS %.3f)", *r.OSSwitchesPerHop)
			}
			ver := "yes"
			if !r.Verified {
				ver = "NO" // no colour inside a tabwriter cell: escapes would count as width
			}
			net := export.FormatNS(r.NetNS)
			if r.NetNS <= 0 {
				net += " (<=0)"
			}
			ratio := "-"
			if r.RawNS.Median > 0 {
				ratio = fmt.Sprintf("%.0f%%", 100*r.NetNS/r.RawNS.Median)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Tasks, result.SizeLabel(r.WorkingSetB), foot, in,
				export.FormatNS(r.RawNS.Median), export.FormatNS(r.OverheadNS.Median), net, ratio, cyc, sw, ver)
		}
		tw.Flush()
		printRingMatrix(w, rs)
		printRingNotes(w, st, rs)
	}
	for _, f := range d.Failures {
		fmt.Fprintf(w, "failed: %s: %s\n", f.Name, f.Error)
	}
	for _, s := range d.Skipped {
		fmt.Fprintf(w, "skipped: %s: %s\n", s.Name, s.Error)
	}
	fmt.Fprintf(w, "\noverhead = the token passed through the same N pipes/channels and the same N working sets by one context, no switch; net = raw - overhead (never clamped). Load average %.2f at start, steal %.1f%% during the run.\n",
		d.Environment.Load.Load1, d.Environment.Steal.Percent)
	export.Warnings(w, d, st)
}

// printRingNotes prints a group's flags and notes: one line per point when
// few points have them, else one line per kind of flag with the points
// listed, so a sweep of 45 points does not print 90 lines.
func printRingNotes(w io.Writer, st export.Style, rs []result.Ring) {
	type hit struct {
		r   result.Ring
		msg string
	}
	var codes []string
	byCode := map[string][]hit{}
	add := func(code string, r result.Ring, msg string) {
		if _, ok := byCode[code]; !ok {
			codes = append(codes, code)
		}
		byCode[code] = append(byCode[code], hit{r, msg})
	}
	for _, r := range rs {
		for _, f := range r.Flags {
			add("flag "+f.Code, r, f.Message)
		}
		for _, m := range r.Warnings {
			code := "note"
			switch {
			case strings.HasPrefix(m, "high variation"):
				code = "note high-variation"
			case strings.Contains(m, "switches per hop, more than one"):
				code = "note switches"
			}
			add(code, r, m)
		}
	}
	point := func(r result.Ring) string { return fmt.Sprintf("N=%d ws=%s", r.Tasks, result.SizeLabel(r.WorkingSetB)) }
	for _, code := range codes {
		hits := byCode[code]
		label := st.Paint("33", code+":")
		if len(hits) <= 2 || code == "note" {
			for _, h := range hits {
				fmt.Fprintf(w, "%s %s: %s\n", label, point(h.r), h.msg)
			}
			continue
		}
		var pts []string
		for i, h := range hits {
			if i == 12 {
				pts = append(pts, fmt.Sprintf("and %d more", len(hits)-i))
				break
			}
			pts = append(pts, point(h.r))
		}
		summary := hits[0].msg
		switch code {
		case "flag switch-count", "note switches":
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, h := range hits {
				if v := h.r.SwitchesPerHop; v != nil {
					lo, hi = math.Min(lo, *v), math.Max(hi, *v)
				}
			}
			_, why, _ := strings.Cut(hits[0].msg, ": ")
			summary = fmt.Sprintf("%.2f–%.2f switches per hop: %s", lo, hi, why)
		case "note high-variation":
			worst := 0.0
			for _, h := range hits {
				worst = math.Max(worst, h.r.RawNS.CV)
			}
			summary = fmt.Sprintf("coefficient of variation of the raw samples 10%% or more, up to %.0f%%: the medians are robust, the means are not", 100*worst)
		}
		fmt.Fprintf(w, "%s %d of %d points (%s): %s\n", label, len(hits), len(rs), strings.Join(pts, ", "), summary)
	}
}

func ringWhere(r result.Ring) string {
	// The label's third part says where the members ran.
	parts := strings.Split(r.Label, " — ")
	if len(parts) >= 3 {
		return parts[2]
	}
	return r.Label
}

// printRingMatrix prints raw ns per hop with N down and the working set
// across; * marks a footprint beyond the last-level cache.
func printRingMatrix(w io.Writer, rs []result.Ring) {
	var ns []int
	var wss []int64
	cell := map[[2]int64]result.Ring{}
	var llc int64
	for _, r := range rs {
		if _, ok := cell[[2]int64{int64(r.Tasks), -1}]; !ok {
			cell[[2]int64{int64(r.Tasks), -1}] = r
			ns = append(ns, r.Tasks)
		}
		if _, ok := cell[[2]int64{-1, r.WorkingSetB}]; !ok {
			cell[[2]int64{-1, r.WorkingSetB}] = r
			wss = append(wss, r.WorkingSetB)
		}
		cell[[2]int64{int64(r.Tasks), r.WorkingSetB}] = r
		llc = max(llc, r.LLCBytes)
	}
	if len(ns) < 2 || len(wss) < 2 {
		return
	}
	note := ""
	if llc > 0 {
		note = fmt.Sprintf("; * = N x working set beyond the %s last-level cache", result.SizeLabel(llc))
	}
	fmt.Fprintf(w, "raw per hop, N down, working set across%s\n", note)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "N\t")
	for _, ws := range wss {
		fmt.Fprintf(tw, "%s\t", result.SizeLabel(ws))
	}
	fmt.Fprintln(tw)
	for _, n := range ns {
		fmt.Fprintf(tw, "%d\t", n)
		for _, ws := range wss {
			r, ok := cell[[2]int64{int64(n), ws}]
			switch {
			case !ok:
				fmt.Fprint(tw, "-\t")
			case r.FitsIn == "memory":
				fmt.Fprintf(tw, "%s *\t", export.FormatNS(r.RawNS.Median))
			default:
				fmt.Fprintf(tw, "%s  \t", export.FormatNS(r.RawNS.Median))
			}
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func plural(kind string) string {
	if strings.HasSuffix(kind, "s") {
		return kind + "es"
	}
	return kind + "s"
}
