// Package suite composes experiments into one session.Spec. Every
// composition of experiments is here, one function per command, each in
// the file of its experiment:
//   - Ladder (ladder.go): the default ladder and run;
//   - AB (ab.go): an interleaved A/B in one sitting (ab);
//   - AA (aa.go): the A/A self-test (aa);
//   - Explain (explain.go): the kernel phases of a hop (explain);
//   - PlanRing (ring.go): a ring sweep (ring);
//   - PlanLoad (load.go): latency under load (load);
//   - Spawn and Memory (lifecycle.go): creation and memory (spawn, memory);
//   - Pool (pool.go): connection pools (pool);
//   - Replicate (replicate.go): the published experiments (replicate).
//
// Each takes the values the command line parsed from its flags — the
// experiment's own options where it has them (LoadSweep, RingSweep,
// ExplainSweep), Sampling for the scheduler's — and completes the spec the
// command line framed (tool, command, settings, lock, progress): its steps,
// its derivations and, for a dry run, the executor of synthetic blocks.
// The command line then runs the spec with session.Run and renders the
// document (its one path: internal/cli/present.go): it parses and
// presents, as benchstat's main does, and knows no experiment and no
// mechanism.
//
// The hidden entry points of re-executed children and the sweep of dead
// runs' server directories are here too (child.go), and the few
// mechanisms' facts a command's flags and help need (kind names, ring
// sizes, container presets, pool defaults, probe builds, the tracer's
// check), so that the command line reaches every mechanism through this
// package.
package suite

import (
	"errors"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment/attach"
	"github.com/ctxbench/ctxbench/internal/experiment/explain"
	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
	"github.com/ctxbench/ctxbench/internal/session"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
	"github.com/ctxbench/ctxbench/internal/workload/redisserver"
)

// Sampling is how a command's flags sample every cell: the scheduler's
// options in the command line's terms.
type Sampling struct {
	Runs, SamplesPerBlock, Warmup int
	MinTime                       time.Duration
	Iterations                    uint64 // fixed ops per sample; 0: calibrated to MinTime
	PerfCheck                     bool
	Span                          time.Duration
	Timeout                       time.Duration // the watchdog of every block; 0: derived from MinTime
	TargetCI                      float64       // a fraction (0.03 is ±3%); 0: no target
	TargetBudget                  time.Duration
	// Preset is the preset the values started from (quick, default or
	// thorough; the record says "custom" once a flag changed one), and
	// Given the values the flags gave: a command's own defaults (ring's
	// samples, explain's sample length, load's blocks) replace a preset's
	// value, never a given one.
	Preset string
	Given  Given
}

// Given says which of a Sampling's values the flags gave.
type Given struct{ Runs, SamplesPerBlock, Warmup, MinTime, Span bool }

// Record is base (what the run was asked: preset, placements, CPUs,
// seed, dry run) with the sampling the run used: the document's settings
// are derived from the sampling, never the other way round.
func (s Sampling) Record(base result.Settings) result.Settings {
	base.Runs, base.SamplesPerBlock, base.Warmup = s.Runs, s.SamplesPerBlock, s.Warmup
	base.MinTimeNS, base.SpanNS, base.Iterations = s.MinTime.Nanoseconds(), s.Span.Nanoseconds(), s.Iterations
	base.TargetCI, base.TargetBudgetNS = s.TargetCI, 0
	if s.TargetCI > 0 {
		base.TargetBudgetNS = s.TargetBudget.Nanoseconds()
	}
	return base
}

// recordCapture is the one writer of the settings' capture_above: the
// slow-hop capture's threshold as the flag takes it (explain's and load's
// alike; nil: no capture, nothing written).
func recordCapture(set result.Settings, th *model.Threshold) result.Settings {
	if th != nil {
		set.CaptureAbove = th.String()
	}
	return set
}

// options are the scheduler's.
func (s Sampling) options() schedule.Options {
	o := schedule.Options{
		Runs: s.Runs, SamplesPerBlock: s.SamplesPerBlock, Warmup: s.Warmup,
		MinTime: s.MinTime, Iterations: s.Iterations, PerfCheck: s.PerfCheck, Span: s.Span,
	}
	if s.Timeout > 0 {
		o.Timeout, o.CalibrationTimeout = schedule.FixedTimeout(s.Timeout), s.Timeout
	}
	if s.TargetCI > 0 {
		o.Precision = &schedule.Precision{Target: s.TargetCI, Budget: s.TargetBudget}
	}
	return o
}

// begin completes what every session of measurements needs from below the
// command line: the cleanup of what killed workers leave behind, and for a
// dry run fake, the executor of synthetic blocks, instead of workers.
func begin(spec session.Spec, fake schedule.Executor) session.Spec {
	spec.Cleanup = catalog.ParentCleanup
	if spec.DryRun {
		spec.Executor = fake
	}
	return spec
}

// Refused reports whether err, from session.Run of a suite's spec, is the
// input's fault: nothing of what was named can run here, or a pool sweep's
// configuration was refused. The command line reports it as bad input.
func Refused(err error) bool {
	var none *ladder.NothingToRun
	var unexplained *explain.NothingToExplain
	var bad *attach.BadInput
	return errors.As(err, &none) || errors.As(err, &unexplained) || errors.As(err, &bad) || pool.IsConfigError(err)
}

// Missing reports whether err says a program the run needs is not
// installed (a throwaway server's binaries): the error says how to install
// it.
func Missing(err error) bool {
	return errors.Is(err, pgserver.ErrMissing) || errors.Is(err, redisserver.ErrMissing)
}

// Cgo reports whether the C kernels are compiled in: the version line and
// every document's tool record say so.
const Cgo = kernels.Built

// ccVersion is read once: the compiler states its own version when the
// kernels are built (cb_cc_version in counts.c).
var ccVersion = kernels.CCVersion()

// CCVersion is the C compiler the kernels were built with ("" without
// cgo).
func CCVersion() string { return ccVersion }
