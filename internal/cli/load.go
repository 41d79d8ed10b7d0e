package cli

import (
	"context"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

// loadFlags are the load command's own flags. The values that need no
// parsing of their own are bound to the sweep itself (o: the experiment's
// options); the lists are parsed into it by sweep. block, warmup and probe
// are kept to tell a value given from the preset's.
type loadFlags struct {
	o                          suite.LoadOptions
	kinds, utilizations, rates []string
	arrivals                   string
	block, warmup, probe       *pflag.Flag
}

// loadRefused are the measure flags load takes no value of: its blocks are
// schedules of requests. They stay parsed, hidden from its --help, so that
// a value given is refused with why.
var loadRefused = []string{"warmup", "samples-per-block", "min-time", "iterations", "no-perf-check"}

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
	for _, name := range append([]string{"export-gobench"}, loadRefused...) {
		_ = f.MarkHidden(name)
	}
	o := &lf.o
	f.StringSliceVar(&lf.kinds, "kind", []string{"thread"}, "thread (threads of one process) and/or process (single-threaded processes)")
	f.StringSliceVar(&lf.utilizations, "utilization", nil, "target utilisations of the contexts' CPUs, in percent (default 25,50,75,90)")
	f.StringSliceVar(&lf.rates, "rate", nil, "request rates per second instead of utilisations, e.g. 1000,5000,20000")
	f.IntVar(&o.Contexts, "contexts", 4, "woken contexts (a request goes to one asleep, else to the least loaded)")
	f.DurationVar(&o.Work, "work", 20*time.Microsecond, "computation per request (a fixed number of iterations of a multiply-add, measured on the contexts' CPU)")
	f.StringVar(&lf.arrivals, "arrivals", "poisson", "poisson (exponential gaps) or constant")
	f.DurationVar(&o.Block, "block", 0, "each block's schedule, warm-up included")
	lf.block = f.Lookup("block")
	lf.block.DefValue = "1s; --quick 300ms; --thorough 2s"
	f.DurationVar(&o.Warmup, "warmup-time", 0, "the start of each block whose requests are served but not measured")
	lf.warmup = f.Lookup("warmup-time")
	lf.warmup.DefValue = "a tenth of --block"
	f.DurationVar(&o.Probe, "probe", 0, "each calibration block's schedule (utilisation levels)")
	lf.probe = f.Lookup("probe")
	lf.probe.DefValue = "300ms; --quick 150ms; --thorough 500ms"
	f.BoolVar(&o.KeepBusy, "keep-busy", false, "keep the contexts' CPU from idling between requests (a SCHED_IDLE spinner any request preempts): the wake-up without the idle CPU's exit")
	f.BoolVar(&o.NoReference, "no-reference", false, "do not measure the ladder's futex hop beside the lightest level")
	captureFlag(f, &o.Capture, "capture each level's wake-ups past this threshold in the kernel, in traced blocks beside its own: a duration (50us) or a percentile of the level's wake-ups (p99; from p50 to p99.99)")
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
	for _, name := range loadRefused {
		if cmd.Flags().Changed(name) {
			return usagef("--%s is not offered by load: its blocks are schedules of requests (see --block, --warmup-time, --runs)", name)
		}
	}
	if mf.exportGoBench != "" {
		return usagef("--export-gobench is not offered by load: its figures are percentiles, not samples")
	}
	if err := lf.sweep(cmd); err != nil {
		return err
	}
	sampling, set, placements, cpus, err := mf.settings()
	if err != nil {
		return err
	}
	if err := lf.schedule(sampling, &set); err != nil {
		return err
	}
	lf.o.Placements, lf.o.CPUs, lf.o.Settings = placements, cpus, set
	plan, err := suite.PlanLoad(lf.o)
	if err != nil {
		return &usageError{err.Error()}
	}
	if lf.o.Capture != nil && !mf.dryRun {
		if err := suite.CheckTracing(); err != nil {
			return &usageError{"load --" + captureAbove + ": " + err.Error()}
		}
	}
	if !mf.quiet {
		noteLoad(stderr, "load", plan.Levels, "levels")
	}
	ms := mf.measurement(plan.Settings)
	ms.compose = func(spec session.Spec) (session.Spec, error) { return plan.Spec(spec), nil }
	ms.exports = mf.exportsAs(formats.LoadCSV, formats.LoadMarkdown)
	ms.show = func(w io.Writer, doc *result.Document) { render.Loads(w, doc, style(w)) }
	ms.failures = func(doc *result.Document) error {
		levels := 0
		for _, s := range doc.Loads {
			levels += len(s.Levels)
		}
		return failed(doc, "load levels", len(doc.Failures)+levels)
	}
	return ms.run(ctx, stdout, stderr)
}

// sweep parses what is swept into the experiment's options: the kinds,
// the levels (utilisations or rates) and the arrivals, and checks the
// values bound to it.
func (lf *loadFlags) sweep(cmd *cobra.Command) error {
	o := &lf.o
	o.Kinds = nil
	for _, s := range lf.kinds {
		for _, part := range strings.Split(s, ",") {
			k, err := suite.ParseLoadKind(strings.TrimSpace(part))
			if err != nil {
				return usagef("--kind: %v", err)
			}
			o.Kinds = append(o.Kinds, k)
		}
	}
	rate, util := cmd.Flags().Lookup("rate"), cmd.Flags().Lookup("utilization")
	var err error
	switch {
	case rate.Changed && util.Changed:
		return usagef("give the load levels as --%s or as --%s, not both", util.Name, rate.Name)
	case rate.Changed:
		if o.Rates, err = parseNumbers(rate.Name, lf.rates, 0, 5e6, "/s"); err != nil {
			return err
		}
	case util.Changed:
		us, err := parseNumbers(util.Name, lf.utilizations, 0, 100, "%")
		if err != nil {
			return err
		}
		for _, u := range us {
			o.Utilizations = append(o.Utilizations, u/100)
		}
	default:
		o.Utilizations = []float64{0.25, 0.5, 0.75, 0.9}
	}
	if o.Contexts < 1 || o.Contexts > 1024 {
		return usagef("--contexts must be between 1 and 1024, got %d", o.Contexts)
	}
	if o.Work < 0 || o.Work > time.Second {
		return usagef("--work must be between 0 and 1s, got %v", o.Work)
	}
	switch lf.arrivals {
	case "poisson":
		o.Poisson = true
	case "constant":
	default:
		return usagef("--arrivals %q: want poisson or constant", lf.arrivals)
	}
	return nil
}

// schedule sets each level's blocks from the preset the measure flags
// chose (loadPresets) and the values given: --runs blocks, --block,
// --warmup-time and --probe (a block or warm-up given makes the record
// "custom"), --span and --timeout.
func (lf *loadFlags) schedule(sampling suite.Sampling, set *result.Settings) error {
	o := &lf.o
	p := loadPresets[sampling.Preset]
	o.Blocks = p.blocks
	if sampling.Given.Runs {
		o.Blocks = sampling.Runs
	}
	if !lf.block.Changed {
		o.Block = p.block
	} else if o.Block < 50*time.Millisecond || o.Block > time.Hour {
		return usagef("--%s must be between 50ms and 1h, got %v", lf.block.Name, o.Block)
	} else {
		set.Preset = "custom"
	}
	if !lf.warmup.Changed {
		o.Warmup = o.Block / 10
	} else if o.Warmup < 0 || o.Warmup >= o.Block {
		return usagef("--%s must be at least 0 and shorter than --%s (%v), got %v", lf.warmup.Name, lf.block.Name, o.Block, o.Warmup)
	} else {
		set.Preset = "custom"
	}
	if !lf.probe.Changed {
		o.Probe = p.probe
	} else if o.Probe < 50*time.Millisecond || o.Probe > time.Minute {
		return usagef("--%s must be between 50ms and 1m, got %v", lf.probe.Name, o.Probe)
	}
	o.Span = 0 // load does not pace unless --span says so
	if sampling.Given.Span {
		o.Span = sampling.Span
	}
	o.Timeout = sampling.Timeout
	return nil
}
