// Package attach is ctxbench attach: what switching costs programs that
// are already running. It attaches the in-place programs (the catalog's
// OpenInPlace) to its targets for a stated time — a process, a cgroup, or
// the machine; it never starts or stops one — reads the programs'
// aggregates and the targets' own counters at the edges of its time
// windows, and hands them to internal/inplace, which makes the document's
// attach section. It also runs the known workload its tests and docs
// check it against (KnownWorkload).
package attach

import (
	"context"
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/ctxbench/ctxbench/internal/host/platform"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/inplace"
	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/result"
)

// TargetSpec names a target (a pid, a cgroup, or the machine).
type TargetSpec = catalog.TargetSpec

// Options are what ctxbench attach measures.
type Options struct {
	Targets  []TargetSpec
	Duration time.Duration
	// Window is the length of the time windows the intervals are over (0:
	// Duration/10, at least 100 ms).
	Window time.Duration
	// Full is the full probe set (the syscall's entry and return, and
	// __schedule's exit, as boundaries); else the light one.
	Full bool
	// RateLimit is the switches per second each CPU times at most (0:
	// every one).
	RateLimit uint32
	// PoolFile is a pool experiment's result file of this machine, whose
	// PostgreSQL curve the what-if reads ("": none).
	PoolFile string
	// Check, when set, attaches to ctxbench's own known workload instead
	// of Targets (verify.go).
	Check *CheckOptions
}

// BadInput is an attach the input makes impossible: a target that does not
// exist, a duration that is not positive, too many targets.
type BadInput struct{ Reason string }

func (e *BadInput) Error() string { return e.Reason }

// MinWindow is the shortest time window.
const MinWindow = 100 * time.Millisecond

// Check resolves the targets and checks the options, without attaching:
// an error is the input's fault (a *BadInput).
func Check(o Options) ([]catalog.Target, error) {
	// A platform without BPF (macOS) has no attach: said before any
	// target is looked for where it keeps none (/proc, cgroups).
	if ok, why := platform.This.Gives(platform.BPF); !ok {
		return nil, &BadInput{"attach: " + why}
	}
	if o.Duration <= 0 {
		return nil, &BadInput{fmt.Sprintf("--duration %v: want a positive duration", o.Duration)}
	}
	if o.Window < 0 {
		return nil, &BadInput{fmt.Sprintf("--window %v: want a positive duration", o.Window)}
	}
	if len(o.Targets) == 0 {
		return nil, &BadInput{"name a target: --pid N, --cgroup PATH or --all"}
	}
	if len(o.Targets) > phase.InPlaceTargets {
		return nil, &BadInput{fmt.Sprintf("%d targets: at most %d in one attach", len(o.Targets), phase.InPlaceTargets)}
	}
	var out []catalog.Target
	for _, s := range o.Targets {
		t, err := catalog.ResolveTarget(s)
		if err != nil {
			return nil, &BadInput{err.Error()}
		}
		if s.All && len(o.Targets) > 1 {
			return nil, &BadInput{"--all takes the whole machine: no other target beside it"}
		}
		out = append(out, t)
	}
	return out, nil
}

// windowOf is the window length for a duration.
func windowOf(o Options) time.Duration {
	if o.Window > 0 {
		return min(o.Window, o.Duration)
	}
	return max(o.Duration/10, min(MinWindow, o.Duration))
}

// Run attaches for the duration and returns the attach section; with
// Check, it runs the known workload first and attaches to it.
func Run(ctx context.Context, env experiment.Env, o Options) (experiment.Part, error) {
	if o.Check != nil {
		return verify(ctx, env, o)
	}
	targets, err := Check(o)
	if err != nil {
		return experiment.Part{}, err
	}
	a, err := attach(ctx, env, o, targets)
	return experiment.Part{Attach: a}, err
}

// attach attaches to targets for the duration.
func attach(ctx context.Context, env experiment.Env, o Options, targets []catalog.Target) (*result.Attach, error) {
	all := len(targets) == 1 && targets[0].Spec.All
	tr, err := catalog.OpenInPlace(catalog.InPlaceOptions{All: all, Full: o.Full, RateLimit: o.RateLimit})
	if err != nil {
		if catalog.InPlaceMissing(err) {
			return nil, &BadInput{err.Error()}
		}
		return nil, err
	}
	defer tr.Close()
	rd := &reader{tr: tr, targets: targets, gone: make([]uint64, len(targets)), seen: make([]map[int]bool, len(targets))}
	if err := rd.refresh(); err != nil {
		return nil, err
	}
	win := windowOf(o)
	edges := make([][]inplace.Edge, len(targets))
	var progs []inplace.Programs
	var reading phase.InPlaceReading
	read := func() error {
		r, e, err := rd.read()
		if err != nil {
			return err
		}
		reading = r
		progs = append(progs, inplace.Programs{AtNs: r.AtNs, Cost: r.Programs})
		for i := range targets {
			if rd.gone[i] == 0 {
				edges[i] = append(edges[i], e[i])
			}
		}
		return nil
	}
	if err := read(); err != nil {
		return nil, err
	}
	start := time.Now()
	ended := "duration"
	fmt.Fprintf(env.Log, "ctxbench: attached to %s for %v\n", names(targets), o.Duration)
	tick := time.NewTicker(win)
	defer tick.Stop()
	for time.Since(start) < o.Duration {
		left := o.Duration - time.Since(start)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		case <-time.After(left):
		}
		rd.checkAlive(edges)
		if err := rd.refresh(); err != nil {
			return nil, err
		}
		if err := read(); err != nil {
			return nil, err
		}
		if !slices.Contains(rd.gone, 0) {
			ended = "targets exited"
			break
		}
	}
	run := inplace.Run{Method: catalog.InPlaceMethod, Probes: probeSet(o.Full), DurationSeconds: o.Duration.Seconds(),
		WindowSeconds: win.Seconds(), RateLimit: float64(o.RateLimit), Ended: ended, Programs: progs,
		StatsOn: reading.StatsOn, Arch: runtime.GOARCH, Ladder: ladder(env), Self: os.Getpid()}
	run.HardwareCounters, run.HWNote = hardwareCounters(env.Environment)
	for _, p := range tr.Probes() {
		run.ProbeStatus = append(run.ProbeStatus, result.AttachProbe{Tracepoint: p.Tracepoint, Attached: p.Attached, Reason: p.Reason})
	}
	if o.PoolFile != "" {
		run.Pool, run.PoolFile = poolSeries(o.PoolFile, env, &run.Notes)
	}
	for i, t := range targets {
		it := inplace.Target{Kind: kindOf(t.Spec), Name: t.Name, Pid: t.Pid, Cgroup: t.Dir, CgroupDepth: t.CgroupDepth(),
			Edges: edges[i], ProcMethod: t.Counters(nil).Method}
		if all {
			it.ProcMethod = t.Counters(nil).Method
		}
		if rd.gone[i] > 0 && len(edges[i]) > 0 {
			it.ExitedAfterNs = rd.gone[i] - edges[i][0].AtNs
			run.Notes = append(run.Notes, fmt.Sprintf("%s exited after %.1f s: the window it exited in is left out (its own counters went with it); the figures are what was seen before", t.Name, float64(it.ExitedAfterNs)/1e9))
		}
		for _, p := range reading.Preempters {
			if p.Target == i {
				it.Preempters = append(it.Preempters, p)
			}
		}
		run.Targets = append(run.Targets, it)
	}
	return inplace.Aggregate(run), nil
}

func probeSet(full bool) string {
	if full {
		return "full"
	}
	return "light"
}

func kindOf(s TargetSpec) string {
	switch {
	case s.All:
		return "all"
	case s.Cgroup != "":
		return "cgroup"
	}
	return "pid"
}

func names(ts []catalog.Target) string {
	s := ""
	for i, t := range ts {
		if i > 0 {
			s += ", "
		}
		s += t.Name
	}
	return s
}

// reader keeps the programs' target set up to date and reads edges.
type reader struct {
	tr      catalog.InPlaceTracer
	targets []catalog.Target
	tgids   map[int]int
	// gone is when each target was found gone (0: alive); seen its
	// processes so far.
	gone []uint64
	seen []map[int]bool
}

// refresh gives the programs the targets' processes now (a cgroup gains
// and loses them).
func (r *reader) refresh() error {
	if r.targets[0].Spec.All {
		return nil
	}
	want := map[int]int{}
	for i, t := range r.targets {
		if r.gone[i] > 0 {
			continue
		}
		for _, pid := range t.TGIDs() {
			if _, dup := want[pid]; !dup {
				want[pid] = i
			}
		}
	}
	if maps(want, r.tgids) {
		return nil
	}
	r.tgids = want
	return r.tr.SetTargets(want)
}

func maps(a, b map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// checkAlive marks the targets found gone since the last edge.
func (r *reader) checkAlive(edges [][]inplace.Edge) {
	for i, t := range r.targets {
		if r.gone[i] == 0 && !t.Alive() {
			r.gone[i] = catalog.MonotonicNs()
		}
	}
}

// read reads the programs and every live target's own counters.
func (r *reader) read() (phase.InPlaceReading, []inplace.Edge, error) {
	rd, err := r.tr.Read(len(r.targets))
	if err != nil {
		return rd, nil, err
	}
	self := catalog.SelfSwitches()
	edges := make([]inplace.Edge, len(r.targets))
	for i, t := range r.targets {
		var pids []int
		for pid, j := range r.tgids {
			if j == i {
				pids = append(pids, pid)
			}
		}
		c := t.Counters(pids)
		edges[i] = inplace.Edge{AtNs: rd.AtNs, BPF: rd.Targets[i], Self: self,
			Proc: inplace.Counters{Switches: c.Switches, CPUNs: c.CPUNs, RunQueueNs: c.RunQueueNs, Processes: c.Processes, Threads: c.Threads}}
	}
	return rd, edges, nil
}

// ladder is this machine's thread/pipe hops from its history.
func ladder(env experiment.Env) []inplace.Ladder {
	if env.Recorded == nil {
		return nil
	}
	var out []inplace.Ladder
	for _, p := range []string{"same-cpu", "cross-cpu"} {
		if f, ok := env.Recorded("thread/pipe", p); ok {
			out = append(out, inplace.Ladder{Name: "thread/pipe", Placement: p, OneWayNs: f.MedianNS, Sittings: f.Sittings, At: f.At})
		}
	}
	return out
}

// hardwareCounters says whether the machine has hardware performance
// counters, from the environment the session read.
func hardwareCounters(env result.Environment) (bool, string) {
	if env.Perf.Hardware {
		return true, ""
	}
	why := env.Perf.Reason
	if why == "" {
		why = "perf hardware events unavailable"
	}
	return false, why
}

// poolSeries reads a pool experiment's PostgreSQL series closest to the
// published set-up from a result file of this machine.
func poolSeries(file string, env experiment.Env, notes *[]string) (*result.PoolSeries, string) {
	b, err := os.ReadFile(file)
	if err != nil {
		*notes = append(*notes, fmt.Sprintf("--pool %s: %v", file, err))
		return nil, ""
	}
	d, err := result.Decode(b)
	if err != nil || d.Pools == nil {
		*notes = append(*notes, fmt.Sprintf("--pool %s: not a pool experiment's result file", file))
		return nil, ""
	}
	theirs, _, _ := result.FingerprintOf(d)
	ours, _, _ := result.FingerprintOf(&result.Document{Environment: env.Environment})
	if theirs.MachineKey() != ours.MachineKey() {
		*notes = append(*notes, fmt.Sprintf("--pool %s: measured on another machine (%s, %s), not read", file, d.Environment.Hostname, d.Environment.CPU.Model))
		return nil, ""
	}
	// The series closest to the published set-up: PostgreSQL, the server
	// and the client on CPUs of their own.
	var best *result.PoolSeries
	score := math.Inf(1)
	for i := range d.Pools.Servers {
		for j := range d.Pools.Servers[i].Series {
			s := &d.Pools.Servers[i].Series[j]
			if s.Server != "postgres" {
				continue
			}
			v := 0.0
			if s.Placement != "cross-cpu" {
				v++
			}
			if v < score {
				best, score = s, v
			}
		}
	}
	if best == nil {
		*notes = append(*notes, fmt.Sprintf("--pool %s: no PostgreSQL series", file))
		return nil, ""
	}
	return best, file
}
