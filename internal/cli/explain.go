package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/suite"
)

func newExplain(stdout, stderr io.Writer) *cobra.Command {
	mf := &measureFlags{}
	var o suite.ExplainOptions // the sweep, filled from the flags
	var probeFlag string
	cmd := &cobra.Command{
		Use:   "explain NAME...",
		Short: "where a hop's time goes: the kernel's phases of each switch, measured with BPF",
		Long: `Explain runs each benchmark twice over, interleaved block by block: untraced,
and with BPF programs on the kernel's raw tracepoints that add up, in the
kernel, the time between consecutive events of the benchmark's own
processes (the syscall entry, the wakeup, the scheduler's entry, the switch,
the FPU restore, the return to user space...). It prints each hop's phases
in time order on the kernel's clock, what the probes cost (traced against
untraced, and per probe firing with its interval), and how much of the
traced hop the phases explain: a model that does not close within 5% says
so, and its phases are never scaled.

Beside each phase it prints the phase on the untraced scale: less the probe
firings it holds times one firing's measured cost, with the closure against
the untraced hop. A phase the correction swamps is marked; without a 95%
interval of the cost per firing there is no untraced scale.

--placement same-cpu (the default) explains a hop on one CPU; cross-cpu or a
level of the CPU topology explains a hop between two CPUs, joining both
CPUs' timelines (each phase says whose CPU it ran on: the waker's, the
wakee's, or between them). --probes light attaches only the syscall, wakeup
and switch probes: a smaller perturbation, coarser phases, its cost per
firing measured the same way.

It needs root (or CAP_BPF and CAP_PERFMON), the bpf() syscall, the kernel's
BTF (/sys/kernel/btf/vmlinux) and raw tracepoints; without them it exits 2
saying which is missing. Nothing is pinned: however the run ends, the kernel
detaches every probe. docs/explain.md lists the probes behind each phase.

--capture-above DURATION or pNN adds a third cell per benchmark, traced with
a flight recorder in the kernel: each hop (from the waker's syscall entry to
the woken task's return) past the threshold — an absolute one, or the
running percentile of the cell's hops — is copied out with its phases and
what else ran on its CPUs (other tasks by name and pid, interrupts, the IPI's
flight, the idle exit). It prints the slowest hops one line each with their
parts, the slow hops against the typical ones (the median band) part by part
with intervals over blocks, and what the capture itself cost (capture on
against off, paired rounds).`,
		Example: `  ctxbench explain thread/pipe process/pipe
  ctxbench explain thread/pipe process/pipe container/pipe-plain container/pipe-cg4 --export-json why.json
  ctxbench explain thread/futex thread/yield --cpus 1
  ctxbench explain thread/pipe --placement same-cpu,cross-cpu --cpus 2,3
  ctxbench explain process/pipe --probes light
  ctxbench explain thread/pipe --placement cross-cpu --capture-above p99
  ctxbench explain thread/futex --capture-above 50us --export-json slow.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			benches, err := catalog.Select(args)
			if err != nil {
				return &usageError{err.Error()}
			}
			o.Benches = benches
			if o.Probes, err = probeSet(probeFlag); err != nil {
				return err
			}
			if err := mf.refuseTables("explain writes JSON only (--export-json)"); err != nil {
				return err
			}
			if !mf.dryRun {
				if err := suite.CheckTracing(); err != nil {
					return &usageError{"explain: " + err.Error()}
				}
			}
			return runExplain(cmd.Context(), mf, o, stdout, stderr)
		},
	}
	mf.register(cmd)
	// Explain takes the measure flags but not all of them, nor all their
	// defaults: its --help shows only what it accepts, with the values it
	// uses. --placement and the table exports are refused (one CPU, JSON
	// only) and --no-perf-check changes nothing (explain never runs the
	// perf cross-check: its events would slow the traced switches).
	f := cmd.Flags()
	mf.jsonOnly(cmd)
	_ = f.MarkHidden("no-perf-check")
	f.Lookup("placement").Usage = "same-cpu, and/or cross-cpu or a level of the CPU topology (" + levelNames() + "): across two CPUs the phases join both CPUs' timelines (default same-cpu)"
	captureFlag(f, &o.Capture, "capture the hops past this threshold in the kernel, with what ran on their CPUs: a duration (50us) or a percentile of the cell's hops (p99, p99.9; from p50 to p99.99)")
	f.StringVar(&probeFlag, "probes", "full", "the probe set: full (every boundary the phase models know) or light (syscalls, wakeup and switch only: a smaller perturbation, coarser phases)")
	f.Lookup("runs").Usage = "measured samples per benchmark, untraced and traced each (default: 40; --quick 12; --thorough 160)"
	f.Lookup("min-time").Usage = fmt.Sprintf("target duration of one sample; ops per sample are calibrated to it (default %v, with every preset)", suite.ExplainMinTime)
	f.Lookup("quick").Usage = "fewer samples and blocks: faster, less precise (samples stay --min-time long)"
	f.Lookup("thorough").Usage = "more samples and blocks: slower, more precise (samples stay --min-time long)"
	f.Lookup("cpus").Usage = "CPUs to use, e.g. 2,3 or 0-3: same-cpu runs both sides on the last, cross-cpu on the first and the last, a level of the topology on the pair ctxbench env shows for it (default: all allowed)"
	return cmd
}

// probeSet reads --probes.
func probeSet(v string) (string, error) {
	switch v {
	case "full":
		return model.ProbesFull, nil
	case model.ProbesLight:
		return model.ProbesLight, nil
	}
	return "", usagef("--probes must be full or light, got %q", v)
}

// captureAbove is the flag of the slow-hop capture, explain's and load's.
const captureAbove = "capture-above"

// captureFlag defines --capture-above: parsed once, when the flags are,
// into the threshold the experiment's options hold (nil: not given). A
// value it refuses is bad input, named with the flag (flagError).
func captureFlag(f *pflag.FlagSet, th **model.Threshold, usage string) {
	f.Var(thresholdValue{th}, captureAbove, usage)
}

// thresholdValue is the experiment's *model.Threshold as a flag's value.
type thresholdValue struct{ th **model.Threshold }

func (v thresholdValue) Type() string { return "THRESHOLD" }

func (v thresholdValue) String() string {
	if v.th == nil || *v.th == nil {
		return ""
	}
	return (*v.th).String()
}

func (v thresholdValue) Set(s string) error {
	th, err := model.ParseThreshold(s)
	if err != nil {
		return err
	}
	*v.th = &th
	return nil
}

func runExplain(ctx context.Context, mf *measureFlags, o suite.ExplainOptions, stdout, stderr io.Writer) error {
	var set result.Settings
	var err error
	o.Sampling, set, o.Placements, _, err = mf.settings()
	if err != nil {
		return err
	}
	ms := mf.measurement(set)
	ms.compose = func(spec session.Spec) (session.Spec, error) {
		return suite.Explain(spec, o), nil
	}
	ms.show = func(w io.Writer, doc *result.Document) { render.Explain(w, doc) }
	ms.failures = func(doc *result.Document) error {
		return failed(doc, "measurements", len(doc.Failures)+len(doc.Results))
	}
	return ms.run(ctx, stdout, stderr)
}
