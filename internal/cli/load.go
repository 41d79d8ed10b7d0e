package cli

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// loadFlags are the load command's own flags.
type loadFlags struct {
	kinds, utilizations, rates []string
	contexts                   int
	work, block, warmup, probe time.Duration
	arrivals                   string
	noReference, keepBusy      bool
	captureAbove               string
}

// The load presets: blocks per level, each block's schedule and each
// calibration probe's. --quick keeps four blocks of 0.3 s (its intervals at
// what four blocks give), so that four levels, their calibration and the
// reference hop fit in 30 s even when other work makes the scheduler run
// most blocks again (10-12 s on a quiet machine, 22 s on a busy one).
var loadPresets = map[string]struct {
	blocks       int
	block, probe time.Duration
}{
	"quick":    {4, 300 * time.Millisecond, 150 * time.Millisecond},
	"default":  {10, time.Second, 300 * time.Millisecond},
	"thorough": {20, 2 * time.Second, 500 * time.Millisecond},
}

func newLoadCmd(stdout, stderr io.Writer) *cobra.Command {
	mf := &measureFlags{}
	lf := &loadFlags{}
	cmd := &cobra.Command{
		Use:   "load",
		Short: "wake-up and request latency under load: an open-loop generator at a stated utilisation or rate",
		Long: `Load runs contexts of one kind (threads of one process, or single-threaded
processes) that sleep until a generator wakes them through a futex, each
request a fixed amount of work (--work). The generator is open loop: it posts
each request at its intended time on a schedule computed before the block
(Poisson arrivals by default, or constant gaps), never waiting for the
contexts. Per request it records the generator's lag (intended -> post), the
wake-up latency (post -> the woken context running), and the request latency
to the end of the work, corrected (from the intended time) and uncorrected
(from the post) side by side: a stall that holds the generator back shows in
the corrected figures and is missing from the uncorrected ones (coordinated
omission).

Levels are target utilisations of the contexts' CPUs (--utilization, found by
calibration blocks and then measured, not assumed) or rates (--rate). Each
level reports the achieved rate and utilisation, drops and lag, p50, p90, p99
and p99.9 of each latency with a 95% interval (blocks as the unit; a
percentile with too few requests beyond it is not reported), switches per
request and the kernel's run delay, and the load at which the tail departs
(the knee: where the corrected p99 reaches twice the lightest level's, with
its interval). A level whose schedule was not kept (drops, a backlog at the
end, a generator posting late as a rule) is reported as such, not as a
latency. The ladder's futex hop at the same placement is measured in the same
sitting and set beside the lightest level's wake-up. See docs/load.md.

Placement: same-cpu (generator and contexts on one CPU; the default),
cross-cpu (the generator on the first CPU, the contexts on the last),
unpinned.

--capture-above DURATION or pNN adds, at each level's rate and interleaved
with its blocks, traced blocks and traced blocks with the slow-hop capture
(as ctxbench explain's): each wake-up past the threshold is kept in the
kernel with its phases and what else ran on its CPUs, and shown beside the
level's typical wake-ups, so a p99 under load can be opened and read. The
level's own figures stay those of its untraced blocks; the capture's cost
(captured against traced blocks, paired by round) is stated beside it. It
needs what explain needs (root or CAP_BPF and CAP_PERFMON, BTF).`,
		Example: `  ctxbench load                                   # threads on one CPU at 25, 50, 75 and 90%
  ctxbench load --quick --export-json load.json
  ctxbench load --kind thread,process --utilization 10,50,90 --placement same-cpu,cross-cpu
  ctxbench load --rate 1000,5000,20000 --arrivals constant --work 50us
  ctxbench load --quick --utilization 50,90 --capture-above p99   # open the p99: what the slow wake-ups waited for
  ctxbench report load.json -o load.html          # latency against utilisation, one curve per percentile
  ctxbench compare old.json new.json              # level by level`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := refuseEmptyElements(cmd, "kind", "utilization", "rate", "placement"); err != nil {
				return err
			}
			return runLoad(cmd.Context(), cmd, mf, lf, stdout, stderr)
		},
	}
	mf.register(cmd)
	f := cmd.Flags()
	f.Lookup("runs").Usage = "blocks per load level, each a worker process: the unit of every interval (default 10; --quick 4; --thorough 20)"
	f.Lookup("span").DefValue = "0"
	for _, name := range []string{"warmup", "samples-per-block", "min-time", "iterations", "no-perf-check", "export-gobench"} {
		_ = f.MarkHidden(name)
	}
	f.StringSliceVar(&lf.kinds, "kind", []string{"thread"}, "thread (threads of one process) and/or process (single-threaded processes)")
	f.StringSliceVar(&lf.utilizations, "utilization", nil, "target utilisations of the contexts' CPUs, in percent (default 25,50,75,90)")
	f.StringSliceVar(&lf.rates, "rate", nil, "request rates per second instead of utilisations, e.g. 1000,5000,20000")
	f.IntVar(&lf.contexts, "contexts", 4, "woken contexts (a request goes to one asleep, else to the least loaded)")
	f.DurationVar(&lf.work, "work", 20*time.Microsecond, "computation per request (a fixed number of iterations of a multiply-add, measured on the contexts' CPU)")
	f.StringVar(&lf.arrivals, "arrivals", "poisson", "poisson (exponential gaps) or constant")
	f.DurationVar(&lf.block, "block", 0, "each block's schedule, warm-up included")
	f.Lookup("block").DefValue = "1s; --quick 300ms; --thorough 2s"
	f.DurationVar(&lf.warmup, "warmup-time", 0, "the start of each block whose requests are served but not measured")
	f.Lookup("warmup-time").DefValue = "a tenth of --block"
	f.DurationVar(&lf.probe, "probe", 0, "each calibration block's schedule (utilisation levels)")
	f.Lookup("probe").DefValue = "300ms; --quick 150ms; --thorough 500ms"
	f.BoolVar(&lf.keepBusy, "keep-busy", false, "keep the contexts' CPU from idling between requests (a SCHED_IDLE spinner any request preempts): the wake-up without the idle CPU's exit")
	f.BoolVar(&lf.noReference, "no-reference", false, "do not measure the ladder's futex hop beside the lightest level")
	f.StringVar(&lf.captureAbove, "capture-above", "", "capture each level's wake-ups past this threshold in the kernel, in traced blocks beside its own: a duration (50us) or a percentile of the level's wake-ups (p99; from p50 to p99.99)")
	return cmd
}

// parseNumbers reads a list of numbers in (lo, hi], each with an optional
// unit suffix ("%", "/s").
func parseNumbers(flag string, items []string, lo, hi float64, unit string) ([]float64, error) {
	var out []float64
	for _, s := range items {
		for _, part := range strings.Split(s, ",") {
			part = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(part), unit))
			v, err := strconv.ParseFloat(part, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, usagef("--%s %q: not a number", flag, part)
			}
			if !(v > lo) || v > hi {
				return nil, usagef("--%s %s: want a value above %v and at most %v", flag, part, lo, hi)
			}
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil, usagef("--%s is empty: give at least one value", flag)
	}
	return out, nil
}

func runLoad(ctx context.Context, cmd *cobra.Command, mf *measureFlags, lf *loadFlags, stdout, stderr io.Writer) error {
	given := func(name string) bool { return cmd.Flags().Changed(name) }
	for _, name := range []string{"warmup", "samples-per-block", "min-time", "iterations", "no-perf-check"} {
		if given(name) {
			return usagef("--%s is not offered by load: its blocks are schedules of requests (see --block, --warmup-time, --runs)", name)
		}
	}
	if mf.exportGoBench != "" {
		return usagef("--export-gobench is not offered by load: its figures are percentiles, not samples")
	}
	var kinds []suite.LoadKind
	for _, s := range lf.kinds {
		for _, part := range strings.Split(s, ",") {
			k, err := suite.ParseLoadKind(strings.TrimSpace(part))
			if err != nil {
				return usagef("--kind: %v", err)
			}
			kinds = append(kinds, k)
		}
	}
	o := suite.LoadOptions{Kinds: kinds, Contexts: lf.contexts, Work: lf.work, Reference: !lf.noReference, KeepBusy: lf.keepBusy}
	capture, err := captureThreshold(cmd, lf.captureAbove)
	if err != nil {
		return err
	}
	o.Capture = capture
	switch {
	case given("rate") && given("utilization"):
		return usagef("give the load levels as --utilization or as --rate, not both")
	case given("rate"):
		if o.Rates, err = parseNumbers("rate", lf.rates, 0, 5e6, "/s"); err != nil {
			return err
		}
	case given("utilization"):
		us, err := parseNumbers("utilization", lf.utilizations, 0, 100, "%")
		if err != nil {
			return err
		}
		for _, u := range us {
			o.Utilizations = append(o.Utilizations, u/100)
		}
	default:
		o.Utilizations = []float64{0.25, 0.5, 0.75, 0.9}
	}
	if lf.contexts < 1 || lf.contexts > 1024 {
		return usagef("--contexts must be between 1 and 1024, got %d", lf.contexts)
	}
	if lf.work < 0 || lf.work > time.Second {
		return usagef("--work must be between 0 and 1s, got %v", lf.work)
	}
	switch lf.arrivals {
	case "poisson":
		o.Poisson = true
	case "constant":
	default:
		return usagef("--arrivals %q: want poisson or constant", lf.arrivals)
	}
	sampling, set, placements, cpus, err := mf.settings()
	if err != nil {
		return err
	}
	p := loadPresets[mf.preset().name]
	o.Blocks, o.Block, o.Probe = p.blocks, p.block, p.probe
	if given("runs") {
		o.Blocks = sampling.Runs
	}
	if given("block") {
		if lf.block < 50*time.Millisecond || lf.block > time.Hour {
			return usagef("--block must be between 50ms and 1h, got %v", lf.block)
		}
		o.Block, set.Preset = lf.block, "custom"
	}
	o.Warmup = o.Block / 10
	if given("warmup-time") {
		if lf.warmup < 0 || lf.warmup >= o.Block {
			return usagef("--warmup-time must be at least 0 and shorter than --block (%v), got %v", o.Block, lf.warmup)
		}
		o.Warmup, set.Preset = lf.warmup, "custom"
	}
	if given("probe") {
		if lf.probe < 50*time.Millisecond || lf.probe > time.Minute {
			return usagef("--probe must be between 50ms and 1m, got %v", lf.probe)
		}
		o.Probe = lf.probe
	}
	if given("span") {
		o.Span = sampling.Span
	}
	o.Timeout = sampling.Timeout
	o.Placements, o.CPUs, o.Settings = placements, cpus, set
	plan, err := suite.PlanLoad(o)
	if err != nil {
		return &usageError{err.Error()}
	}
	if capture != nil && !mf.dryRun {
		if err := suite.CheckTracing(); err != nil {
			return &usageError{"load --capture-above: " + err.Error()}
		}
	}
	if !mf.quiet {
		noteLoad(stderr, "load", plan.Levels, "levels")
	}
	spec, err := newSpec(plan.Settings, &mf.lockFlags, mf.quiet, stderr)
	if err != nil {
		return err
	}
	doc, err := session.Run(ctx, plan.Spec(spec))
	if err != nil {
		return err
	}
	table, err := saveExports(doc, []export{jsonExport(mf.exportJSON),
		{"--export-csv", mf.exportCSV, formats.LoadCSV}, {"--export-markdown", mf.exportMarkdown, formats.LoadMarkdown}}, stdout, stderr)
	if err != nil {
		return err
	}
	if !mf.quiet {
		render.Loads(table, doc, style(table))
		if mf.exportJSON != "" && mf.exportJSON != "-" {
			fmt.Fprintf(table, "\nresults written to %s\n", mf.exportJSON)
		}
	}
	levels := 0
	for _, s := range doc.Loads {
		levels += len(s.Levels)
	}
	return failed(doc, "load levels", len(doc.Failures)+levels)
}
