//go:build linux && (amd64 || arm64)

package bpf

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"

	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/partner"
	"github.com/ctxbench/ctxbench/internal/phase"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

// The Go names of the in-place programs' slots, classes, run-queue kinds
// and counters are the object's, value for value, and the object's tables
// have the sizes internal/phase reads.
func TestInPlaceMatchesObject(t *testing.T) {
	spec, err := loadAttach()
	if err != nil {
		t.Fatal(err)
	}
	check := func(enum string, names []string) {
		var e *btf.Enum
		if err := spec.Types.TypeByName(enum, &e); err != nil {
			t.Fatal(err)
		}
		seen := 0
		for _, v := range e.Values {
			if strings.HasSuffix(v.Name, "_COUNT") {
				if v.Value > uint64(len(names)) {
					t.Errorf("enum %s: %s = %d, Go names %d", enum, v.Name, v.Value, len(names))
				}
				continue
			}
			seen++
			if v.Value >= uint64(len(names)) || names[v.Value] != v.Name {
				t.Errorf("enum %s: %s = %d has no such name in Go", enum, v.Name, v.Value)
			}
		}
		if seen != len(names) {
			t.Errorf("enum %s: %d values, Go names %d", enum, seen, len(names))
		}
	}
	check("slot", phase.SlotNames[:])
	check("class", phase.ClassNames[:])
	check("rq", phase.RunQueueNames[:])
	check("counter", phase.CounterNames)
	var a attachAgg
	if len(a.Cnt) != phase.NumCounters || len(a.Cell) != phase.NumSlots || len(a.Cls) != phase.NumClasses ||
		len(a.Hpath[0]) != phase.InPlaceBuckets || len(a.Hrunq) != phase.NumRunQueueKinds || len(a.Blocked) != phase.InPlaceSyscalls {
		t.Errorf("the object's aggregate has %d counters, %d slots, %d classes, %d buckets, %d run-queue kinds, %d syscalls",
			len(a.Cnt), len(a.Cell), len(a.Cls), len(a.Hpath[0]), len(a.Hrunq), len(a.Blocked))
	}
	if got := spec.Maps["aggs"].MaxEntries; got != phase.InPlaceTargets {
		t.Errorf("aggs has %d entries, want InPlaceTargets = %d", got, phase.InPlaceTargets)
	}
	for _, p := range inPlaceProbes {
		if p.absentOn(runtime.GOARCH) != "" {
			continue // another architecture's (arm64 has no FPU restore tracepoint)
		}
		if spec.Programs[p.program] == nil {
			t.Errorf("no program %s for %s", p.program, p.tracepoint)
		}
	}
}

// pipeLoad is the known workload, started as ctxbench starts it: this test
// binary re-executed as a single-threaded side (st.c's constructor).
type pipeLoad struct {
	reg *kernels.PipeLoadRegion
	p   *partner.Process
}

func startPipeLoad(t testing.TB, hopsPerSecond uint64) *pipeLoad {
	t.Helper()
	if !kernels.Built {
		testenv.Skip(t, testenv.Cgo, "the C kernels need cgo")
	}
	cpu := runtime.NumCPU() - 1
	reg, err := kernels.NewPipeLoadRegion(kernels.PipeLoadConfig{HopsPerSecond: hopsPerSecond, WorkIters: 64, CPU: cpu})
	if err != nil {
		t.Fatal(err)
	}
	p, err := partner.Start(context.Background(), partner.Spec{
		Request: partner.Request{Block: kernels.Block{Iters: 1, Samples: 1, CPUA: cpu, CPUB: cpu}},
		Files:   []*os.File{reg.File()}, SingleThreaded: "pipe-load", Stderr: os.Stderr})
	if err != nil {
		reg.Close()
		t.Fatal(err)
	}
	w := &pipeLoad{reg: reg, p: p}
	t.Cleanup(w.stop)
	if err := p.Go(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !reg.State().Running; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the workload did not start")
		}
	}
	return w
}

func (w *pipeLoad) stop() {
	if w.p == nil {
		return
	}
	w.reg.Stop()
	done := make(chan struct{})
	go func() { _, _ = w.p.Output(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		w.p.Kill()
	}
	w.reg.Close()
	w.p = nil
}

// procSwitches is the process's threads' own counts (/proc), what the
// kernel's nvcsw and nivcsw hold.
func procSwitches(t testing.TB, pid int) uint64 {
	t.Helper()
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, task.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				x, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				n += x
			} else if v, ok := strings.CutPrefix(l, "nonvoluntary_ctxt_switches:"); ok {
				x, _ := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
				n += x
			}
		}
	}
	return n
}

// attachWindow attaches to the workload, reads a window of d, and returns
// the window and the process's own count over it.
func attachWindow(t *testing.T, w *pipeLoad, opts InPlaceOptions, d time.Duration) (phase.InPlaceTarget, uint64, phase.InPlaceReading) {
	t.Helper()
	needTracing(t)
	ip, err := OpenInPlace(opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ip.Close()
	if err := ip.SetTargets(map[int]int{w.p.Pid(): 0}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	r0, err := ip.Read(1)
	if err != nil {
		t.Fatal(err)
	}
	p0 := procSwitches(t, w.p.Pid())
	time.Sleep(d)
	r1, err := ip.Read(1)
	if err != nil {
		t.Fatal(err)
	}
	p1 := procSwitches(t, w.p.Pid())
	return r1.Targets[0].Sub(&r0.Targets[0]), p1 - p0, r1
}

// On the known workload the programs count the switches the kernel counts
// for the process (its /proc counters over the same window), time the
// path of every switch, and read through the in-place model close.
// Counts and structure, not timing: the rate of a shared machine does not
// enter, only what the kernel did.
func TestInPlaceCountsTheKnownWorkload(t *testing.T) {
	needTracing(t)
	w := startPipeLoad(t, 20000)
	for _, full := range []bool{false, true} {
		d, proc, r := attachWindow(t, w, InPlaceOptions{Full: full}, time.Second)
		got := d.Switches()
		if proc == 0 || math.Abs(float64(got)/float64(proc)-1) > 0.05 {
			t.Errorf("full %v: %d switches counted, /proc says %d", full, got, proc)
		}
		if d.Counts[phase.CountTimed] != got || d.Counts[phase.CountUntimed] != 0 {
			t.Errorf("full %v: %d timed, %d untimed of %d without a rate limit", full, d.Counts[phase.CountTimed], d.Counts[phase.CountUntimed], got)
		}
		b := phase.InPlaceBreakdown(&d, d.Counts[phase.CountTimed])
		t.Logf("full %v:\n%s", full, b.String())
		if b.Closure < 0.999 || d.DirectNs() == 0 || len(b.Phases) < 3 {
			t.Errorf("full %v: closure %.3f, %d ns, %d phases", full, b.Closure, d.DirectNs(), len(b.Phases))
		}
		// Every switch-in is woken (from this CPU: both threads share
		// it) or resumed after a preemption, and has a run-queue wait.
		ins := d.Counts[phase.CountInTimed]
		sorted := d.Classes[phase.ClassWokenSame].Count + d.Classes[phase.ClassResumed].Count
		if ins == 0 || float64(sorted) < 0.95*float64(ins) || d.RunQueue[phase.RunQueueWokenSame].Count() == 0 {
			t.Errorf("full %v: %d switch-ins, %d woken here or resumed; %d woken waits", full, ins, sorted, d.RunQueue[phase.RunQueueWokenSame].Count())
		}
		var runs uint64
		for _, p := range r.Programs {
			runs += p.Runs
		}
		if r.StatsOn && runs == 0 {
			t.Errorf("full %v: the kernel's statistics are on but counted no run", full)
		}
	}
}

// A rate limit times at most its rate and counts every switch all the
// same.
func TestInPlaceRateLimit(t *testing.T) {
	needTracing(t)
	w := startPipeLoad(t, 20000)
	d, proc, _ := attachWindow(t, w, InPlaceOptions{RateLimit: 2000}, time.Second)
	got := d.Switches()
	if proc == 0 || math.Abs(float64(got)/float64(proc)-1) > 0.05 {
		t.Errorf("%d switches counted, /proc says %d", got, proc)
	}
	// 20,000 hops per second on one CPU, 2,000 timed per second: a tenth,
	// with a wide margin for the windows' edges.
	if s := d.TimedShare(); s <= 0 || s > 0.3 {
		t.Errorf("timed share %.3f under a limit of a tenth of the rate", s)
	}
}

// Close detaches and unloads every program; a closed attach refuses.
func TestInPlaceCloseLeavesNothing(t *testing.T) {
	needTracing(t)
	ip, err := OpenInPlace(InPlaceOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	var ids []ebpf.ProgramID
	for _, p := range ip.programs() {
		if info, err := p.Info(); err == nil {
			if id, ok := info.ID(); ok {
				ids = append(ids, id)
			}
		}
	}
	attached := 0
	for _, p := range ip.Probes() {
		if p.Attached {
			attached++
		}
	}
	if attached < 5 {
		t.Errorf("%d probes attached: %+v", attached, ip.Probes())
	}
	if err := ip.Close(); err != nil {
		t.Fatal(err)
	}
	gone(t, ids)
	if _, err := ip.Read(1); !errors.Is(err, ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	if err := ip.SetTargets(map[int]int{1: 0}); !errors.Is(err, ErrClosed) {
		t.Errorf("SetTargets after Close: %v", err)
	}
}
