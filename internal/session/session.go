// Package session is the one place where a run becomes a result document:
// it collects the environment once, times the run, reads the machine's
// steal and load around it, runs the experiments' steps in order, and
// merges what they measured, failed and skipped, then the derived figures,
// into one result.Document. Every command that measures goes through Run.
package session

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

// Step is one experiment of a run.
type Step func(ctx context.Context, env experiment.Env) (experiment.Part, error)

// Spec describes a run.
type Spec struct {
	Tool     result.Tool
	Command  []string
	Settings result.Settings
	CPUs     []int
	Seed     int64
	DryRun   bool
	// Executor runs blocks (nil: workers re-executed from this binary);
	// Cleanup removes what killed workers left behind.
	Executor schedule.Executor
	Cleanup  func()
	Progress schedule.Progress
	Log      io.Writer
	Steps    []Step
	// Derive computes the figures that combine several parts, once every
	// step has run (the ladder's baseline and VM decomposition, the
	// published hierarchy beside the ladder).
	Derive []func(*result.Document)
	// Environment, when set, is used instead of reading the machine (tests).
	Environment *result.Environment
	// History is the path of the machine's history of sittings ("": none):
	// the run is recorded there and its figures get their reproducibility
	// intervals from it (history.go). A dry run is never recorded.
	History string
	// Lock, when set, makes the run hold the machine-wide measurement lock
	// (a dry run never takes it): two measurements never overlap.
	Lock *Lock
}

// Lock says how to take the measurement lock.
type Lock struct {
	Wait    bool          // false: refuse at once when another run holds it
	Timeout time.Duration // how long to wait
	Stderr  io.Writer     // where "waiting for ..." is said
}

// Run runs the steps and builds the document. An error from a step
// (cancellation, a plan that cannot run) ends the run without a document;
// a failed measurement is a failure in the document, not an error.
func Run(ctx context.Context, spec Spec) (*result.Document, error) {
	if spec.Lock != nil && !spec.DryRun {
		l := spec.Lock
		release, err := host.LockMeasurements(ctx, l.Wait, l.Timeout, func(holder string) {
			fmt.Fprintf(l.Stderr, "ctxbench: waiting for the other measurement on this machine to finish (%s; --no-wait refuses, --lock-timeout bounds the wait)\n", holder)
		})
		if err != nil {
			return nil, err
		}
		defer release()
	}
	var env result.Environment
	if spec.Environment != nil {
		env = *spec.Environment
	} else {
		env = machine.Collect(machine.Options{})
	}
	host := env.HostLine()
	if spec.DryRun {
		host += " (dry run: synthetic figures)" // every label says so, not just the table's banner
	}
	ex := spec.Executor
	if ex == nil {
		ex = schedule.ProcessExecutor{Cleanup: spec.Cleanup}
	}
	progress := spec.Progress
	if progress == nil {
		progress = schedule.NoProgress{}
	}
	log := spec.Log
	if log == nil {
		log = io.Discard
	}
	xenv := experiment.Env{Environment: env, CPUs: spec.CPUs, Host: host, Log: log,
		Runner: schedule.Runner{Executor: ex, Progress: progress, Seed: spec.Seed, DryRun: spec.DryRun, Cleanup: spec.Cleanup}}
	doc := &result.Document{
		SchemaVersion: result.SchemaVersion, Tool: spec.Tool, Command: spec.Command,
		StartedAt: time.Now().UTC(), Settings: spec.Settings, Results: []result.Result{},
	}
	var hist *history
	var refused *result.History // the history's answer to an emulated run
	if spec.History != "" && !spec.DryRun {
		doc.Environment = env // the fingerprint is made of it, the tool and the settings
		if emu := env.Virtualization.Emulated; emu != "" {
			refused = emulatedHistory(doc)
			fmt.Fprintf(log, "ctxbench: %s\n", refused.Note)
		} else {
			hist = openHistory(ctx, spec.History, doc, log)
			defer hist.close()
			xenv.Learned = hist.learned
			xenv.Promise = hist.promise
			xenv.Recorded = hist.recorded
		}
	}
	before := machine.ReadCPUTimes("")
	var all experiment.Part
	for _, step := range spec.Steps {
		part, err := step(ctx, xenv)
		if err != nil {
			return nil, err
		}
		all.Add(part)
	}
	env.Steal = machine.Steal(before, machine.ReadCPUTimes(""))
	doc.FinishedAt = time.Now().UTC()
	doc.Results = append(doc.Results, all.Results...)
	doc.Rings, doc.Spawn, doc.Memory, doc.Pools, doc.Replications, doc.AA = all.Rings, all.Spawn, all.Memory, all.Pools, all.Replications, all.AA
	doc.Loads = all.Loads
	doc.Attach = all.Attach
	doc.Failures, doc.Skipped = all.Failures, all.Skipped
	measuredTSC(&env, doc.Results)
	doc.Environment = env
	doc.Warnings = append(append(append([]result.Warning{}, env.Warnings...), machine.RunWarnings(env.Steal)...), all.Warnings...)
	if hist != nil && doc.Attach == nil { // an attach is read against the history, never a sitting of it
		doc.History = hist.learn(ctx, doc)
	} else if refused != nil {
		doc.History = refused
	}
	for _, d := range spec.Derive {
		d(doc)
	}
	return doc, nil
}

// measuredTSC derives the TSC's rate from the rows that have both clocks:
// TSC ticks per hop over nanoseconds per hop.
func measuredTSC(env *result.Environment, rs []result.Result) {
	var ticks, ns float64
	for _, r := range rs {
		if c := r.OneWayCycles; c != nil && r.OneWayNS.Median > 0 {
			ticks += c.Median
			ns += r.OneWayNS.Median
		}
	}
	if ns > 0 && env.CPU.TSC.Usable {
		env.CPU.TSC.HzMeasured = ticks / ns * 1e9
	}
}
