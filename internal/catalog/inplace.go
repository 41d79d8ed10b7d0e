package catalog

// inplace.go: what ctxbench attach drives below the experiments: the
// in-place programs (internal/bpf), the targets as the machine knows them
// (a pid's process, a cgroup's processes, the machine; /proc and the
// cgroup filesystem), their own counters, and the known workload the
// attach is checked against (internal/kernels' pipe-load, a re-executed
// single-threaded side). Nothing here starts or stops a target.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/bpf"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/partner"
	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

// InPlaceTracer is the loaded in-place programs (bpf.InPlace).
type InPlaceTracer interface {
	SetTargets(tgids map[int]int) error
	Read(n int) (phase.InPlaceReading, error)
	Probes() []bpf.ProbeStatus
	Close() error
}

// InPlaceOptions are bpf.InPlaceOptions as the experiment states them.
type InPlaceOptions = bpf.InPlaceOptions

// OpenInPlace loads and attaches the in-place programs; a machine that
// cannot trace is refused with a *bpf.MissingError (InPlaceMissing).
func OpenInPlace(opts InPlaceOptions) (InPlaceTracer, error) { return bpf.OpenInPlace(opts) }

// InPlaceMissing says err is the machine's lack (privilege, bpf(), BTF,
// raw tracepoints, the platform): the input's fault, not the run's.
func InPlaceMissing(err error) bool {
	var m *bpf.MissingError
	return errors.As(err, &m)
}

// InPlaceMethod is how the kernel is probed.
const InPlaceMethod = bpf.MethodRawTracepoints

// TargetSpec names a target: one of a process (Pid), a cgroup (Cgroup: a
// directory of a mounted cgroup hierarchy, or a path relative to the cpu
// controller's hierarchy or the unified one) or the whole machine (All).
type TargetSpec struct {
	Pid    int
	Cgroup string
	All    bool
}

// Target is a resolved target.
type Target struct {
	Spec TargetSpec
	// Name is how the output names it: "pid 1234 (postgres)", "cgroup
	// /system.slice/x (v2)", "the machine".
	Name string
	// Pid is the process's TGID (a thread's pid resolves to its process);
	// Comm its name. Dir is the cgroup's directory, Rel its path in its
	// hierarchy.
	Pid  int
	Comm string
	Dir  string
	Rel  string
	// start is the process's start time (clock ticks), to tell it from a
	// later process given the same pid.
	start uint64
}

// ResolveTarget checks that the target exists now and names it. An error
// is the input's fault (no such process, no such cgroup).
func ResolveTarget(s TargetSpec) (Target, error) {
	switch {
	case s.All:
		return Target{Spec: s, Name: "the machine"}, nil
	case s.Cgroup != "":
		dir, rel, err := cgroupDir(s.Cgroup)
		if err != nil {
			return Target{}, err
		}
		return Target{Spec: s, Name: "cgroup " + rel, Dir: dir, Rel: rel}, nil
	default:
		if s.Pid <= 0 {
			return Target{}, fmt.Errorf("--pid %d: not a process id", s.Pid)
		}
		tgid, err := tgidOf(s.Pid)
		if err != nil {
			return Target{}, fmt.Errorf("--pid %d: no such process", s.Pid)
		}
		st, err := procs.ReadStat(tgid)
		if err != nil {
			return Target{}, fmt.Errorf("--pid %d: no such process", s.Pid)
		}
		comm := commOf(tgid)
		name := fmt.Sprintf("pid %d (%s)", tgid, comm)
		return Target{Spec: s, Name: name, Pid: tgid, Comm: comm, start: st.StartTicks}, nil
	}
}

func readFile(p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		return ""
	}
	return string(b)
}

// Alive says whether the target is still there: its process (the same
// one), its cgroup's directory; the machine always is.
func (t Target) Alive() bool {
	switch {
	case t.Spec.All:
		return true
	case t.Dir != "":
		_, err := os.Stat(filepath.Join(t.Dir, "cgroup.procs"))
		return err == nil
	}
	return procs.Alive(t.Pid, t.start)
}

// TGIDs are the processes the target holds now: the process; every
// process of the cgroup and the cgroups below it; none for the machine
// (the programs take every task then).
func (t Target) TGIDs() []int {
	switch {
	case t.Spec.All:
		return nil
	case t.Dir != "":
		var out []int
		// A child cgroup removed during the walk is skipped, not an error:
		// its processes are gone.
		_ = filepath.WalkDir(t.Dir, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return fs.SkipDir
			}
			if !d.IsDir() {
				return nil
			}
			for _, f := range strings.Fields(readFile(filepath.Join(p, "cgroup.procs"))) {
				if n, err := strconv.Atoi(f); err == nil {
					out = append(out, n)
				}
			}
			return nil
		})
		return out
	}
	if !t.Alive() {
		return nil
	}
	return []int{t.Pid}
}

// CgroupDepth is how deep the target's cgroup is below the root (the
// process's own cgroup for a pid, in the cpu controller's hierarchy where
// it has one, else the unified one; 0 for the machine): every level is a
// scheduling entity a switch walks.
func (t Target) CgroupDepth() int {
	rel := ""
	switch {
	case t.Spec.All:
		return 0
	case t.Dir != "":
		rel = t.Rel
	default:
		for _, l := range strings.Split(procCgroups(t.Pid), "\n") {
			f := strings.SplitN(l, ":", 3)
			if len(f) != 3 {
				continue
			}
			if slices.Contains(strings.Split(f[1], ","), "cpu") {
				rel = f[2]
				break
			}
			if f[0] == "0" && f[1] == "" {
				rel = f[2]
			}
		}
	}
	n := 0
	for _, p := range strings.Split(rel, "/") {
		if p != "" {
			n++
		}
	}
	return n
}

// TargetCounters are a target's own counters at one moment, from the
// kernel's accounts rather than the programs: what the programs' figures
// are checked against.
type TargetCounters struct {
	// Voluntary and Involuntary are the switches away from its threads
	// (nvcsw, nivcsw); for the machine, Switches is /proc/stat's ctxt
	// (every switch of every CPU, to and from idle too).
	Voluntary, Involuntary uint64
	Switches               uint64
	// CPUNs is time on CPU and RunQueueNs time runnable but waiting
	// (schedstat); for a cgroup CPUNs is its cpu.stat usage, which keeps
	// the time of tasks that exited.
	CPUNs, RunQueueNs uint64
	Processes         int
	Threads           int
	// Method names the sources.
	Method string
}

// Counters reads the target's counters now. tgids are its processes (for
// a pid or a cgroup); for the machine they are unused.
func (t Target) Counters(tgids []int) TargetCounters {
	if t.Spec.All {
		return machineCounters()
	}
	var c TargetCounters
	for _, pid := range tgids {
		pc, err := procs.Process(pid)
		if err != nil {
			continue
		}
		c.Voluntary += pc.Voluntary
		c.Involuntary += pc.Involuntary
		c.CPUNs += pc.CPUNs
		c.RunQueueNs += pc.RunqWaitNs
		c.Threads += pc.Threads
		c.Processes++
	}
	c.Switches = c.Voluntary + c.Involuntary
	c.Method = "/proc/<pid>/task/<tid>/status voluntary_ctxt_switches + nonvoluntary_ctxt_switches; " + procs.CPUMethod()
	if t.Dir != "" {
		// A cgroup's own account keeps the time of tasks that exited: v2's
		// cpu.stat usage_usec, v1's cpuacct.usage (where cpuacct is mounted
		// with the hierarchy).
		for _, l := range strings.Split(readFile(filepath.Join(t.Dir, "cpu.stat")), "\n") {
			if v, ok := strings.CutPrefix(l, "usage_usec "); ok {
				if us, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64); err == nil {
					c.CPUNs = us * 1000
					c.Method += "; CPU time: the cgroup's cpu.stat usage_usec"
				}
			}
		}
		if v := strings.TrimSpace(readFile(filepath.Join(t.Dir, "cpuacct.usage"))); v != "" {
			if ns, err := strconv.ParseUint(v, 10, 64); err == nil {
				c.CPUNs = ns
				c.Method += "; CPU time: the cgroup's cpuacct.usage"
			}
		}
	}
	return c
}

// SelfSwitches is this process's own switches (every thread; exited ones
// too): what --all leaves out of its targets and the machine's ctxt holds.
func SelfSwitches() uint64 { r := procs.Self(); return r.Voluntary + r.Involuntary }

// MonotonicNs is CLOCK_MONOTONIC now, the programs' clock.
func MonotonicNs() uint64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return 0
	}
	return uint64(ts.Nano())
}

// PipeLoad is the known workload running: two threads on one CPU passing
// a token at a stated number of hops per second, counting the work they
// do in between (internal/kernels/pipeload.c).
type PipeLoad struct {
	reg *kernels.PipeLoadRegion
	p   *partner.Process
}

// PipeLoadState is what it has done so far.
type PipeLoadState = kernels.PipeLoadState

// StartPipeLoad starts the workload on cpu at hopsPerSecond (0: back to
// back, no work) and returns once it runs its schedule.
func StartPipeLoad(ctx context.Context, hopsPerSecond uint64, cpu int) (*PipeLoad, error) {
	reg, err := kernels.NewPipeLoadRegion(kernels.PipeLoadConfig{HopsPerSecond: hopsPerSecond, WorkIters: 64, CPU: cpu})
	if err != nil {
		return nil, err
	}
	p, err := partner.Start(ctx, partner.Spec{
		Request: partner.Request{Block: kernels.Block{Iters: 1, Samples: 1, CPUA: cpu, CPUB: cpu}},
		Files:   []*os.File{reg.File()}, SingleThreaded: "pipe-load"})
	if err != nil {
		reg.Close()
		return nil, err
	}
	w := &PipeLoad{reg: reg, p: p}
	if err := p.Go(); err != nil {
		w.Stop()
		return nil, err
	}
	for deadline := time.Now().Add(10 * time.Second); !reg.State().Running; time.Sleep(time.Millisecond) {
		if s := reg.State(); s.Failed || time.Now().After(deadline) {
			w.Stop()
			return nil, fmt.Errorf("the known workload did not start: %s", s.Err)
		}
	}
	return w, nil
}

// Pid is the workload's process.
func (w *PipeLoad) Pid() int { return w.p.Pid() }

// State is what it has done so far.
func (w *PipeLoad) State() PipeLoadState { return w.reg.State() }

// Stop stops it and waits for it to exit (killing it after 5 s).
func (w *PipeLoad) Stop() {
	w.reg.Stop()
	done := make(chan struct{})
	go func() { _, _ = w.p.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		w.p.Kill()
	}
	w.reg.Close()
}

// ThreadPipeHops runs the ladder's thread/pipe kernel (pingpong.c: two
// threads of this process on cpu) for samples samples of iters round
// trips and returns each sample's ns per one-way hop: the ladder's
// same-cpu thread/pipe figure, measured here, in this process, so that an
// attach to this process traces it.
func ThreadPipeHops(cpu int, iters uint64, samples int) ([]float64, error) {
	out, err := kernels.Run(kernels.ThreadPipe, kernels.Block{Iters: iters, Samples: samples, Warmup: 1, CPUA: cpu, CPUB: cpu})
	if err != nil {
		return nil, err
	}
	hops := make([]float64, len(out.NS))
	for i, ns := range out.NS {
		hops[i] = float64(ns) / float64(2*iters)
	}
	return hops, nil
}
