package phase

import (
	"math"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/model"
)

// crossPipe is a synthetic pair of timelines of hops hops of a pipe
// ping-pong across two CPUs (added up: each CPU wakes every other hop),
// whose path is waker 100 ns, between 1000 ns, wakee 900 ns (2000 ns a
// hop), with 700 ns of the waker's CPU's own work and 2300 ns of its idle
// wait per round trip in parallel: each CPU's timeline is two hops long.
func crossPipe(hops uint64) *Matrix {
	m := synthetic(
		// the waker, up to its wakeup call
		seg{KindEnterWrite, KindWaking, 100, hops, CtxTask},
		// the wakee's CPU, from the IPI to its own write: the idle task's
		// events up to the switch from idle, then the woken task's
		seg{KindIPIIn, KindFairBegin, 50, hops, CtxIdle},
		seg{KindFairBegin, KindNrRunningInc, 50, hops, CtxIdle},
		seg{KindNrRunningInc, KindWakeup, 50, hops, CtxIdle},
		seg{KindWakeup, KindIPIOut, 50, hops, CtxIdle},
		seg{KindIPIOut, KindIdleExit, 100, hops, CtxIdle},
		seg{KindIdleExit, KindSchedEntry, 100, hops, CtxIdle},
		seg{KindSchedEntry, KindSwitchFromIdle, 100, hops, CtxIdle},
		seg{KindSwitchFromIdle, KindSchedExit, 100, hops, CtxIdle},
		seg{KindSchedExit, KindExitRead, 100, hops, CtxTask},
		seg{KindExitRead, KindFPULoad, 100, hops, CtxTask},
		seg{KindFPULoad, KindEnterWrite, 100, hops, CtxTask},
		// the waker's CPU meanwhile
		seg{KindWaking, KindExitWrite, 200, hops, CtxTask},
		seg{KindExitWrite, KindEnterRead, 100, hops, CtxTask},
		seg{KindEnterRead, KindSchedEntry, 100, hops, CtxTask},
		seg{KindSchedEntry, KindFairBegin, 100, hops, CtxTask},
		seg{KindFairBegin, KindNrRunningDec, 50, hops, CtxTask},
		seg{KindNrRunningDec, KindSwitchToIdle, 50, hops, CtxTask},
		seg{KindSwitchToIdle, KindSchedExit, 50, hops, CtxTask},
		seg{KindSchedExit, KindIdleEnter, 50, hops, CtxIdle},
		seg{KindIdleEnter, KindIPIIn, 2300, hops, CtxIdle},
	)
	m.Cross[KindIPIIn] = Cell{Ns: 1000 * hops, Count: hops}
	m.Events[KindIPIIn] = hops
	return m
}

// bySide adds the phases' time per hop by side.
func bySide(ps []Phase) map[model.Side]float64 {
	out := map[model.Side]float64{}
	for _, p := range ps {
		out[p.Side] += p.NsPerHop
	}
	return out
}

// The path through both CPUs closes on the hop; what the waker's CPU did
// meanwhile is parallel, not part of it; each phase says its side.
func TestCrossModelJoinsTheTwoTimelines(t *testing.T) {
	const hops = 1000
	b := PipeHopCross(crossPipe(hops), hops)
	if b.HopNsPerHop < 1999 || b.HopNsPerHop > 2001 {
		t.Fatalf("hop on the kernel clock %.1f ns, want 2000", b.HopNsPerHop)
	}
	if b.Closure < 0.999 || b.Closure > 1.001 {
		t.Fatalf("closure %.4f, want 1:\n%s", b.Closure, b.String())
	}
	if len(b.Unattributed) != 0 {
		t.Fatalf("unattributed: %v", b.Unattributed)
	}
	if sides := bySide(b.Phases); sides[SideWaker] != 100 || sides[SideBetween] != 1000 || sides[SideWakee] != 900 {
		t.Errorf("by side %v, want waker 100, between 1000, wakee 900", sides)
	}
	var par float64
	for _, p := range b.Parallel {
		if p.Side != SideWaker {
			t.Errorf("parallel phase %q on side %q", p.Name, p.Side)
		}
		par += p.NsPerHop
	}
	if par != 3000 {
		t.Errorf("parallel %.0f ns per hop, want 3000 (700 of work, 2300 idle)", par)
	}
	if b.Phases[0].Name != "write(): up to the wakeup" || b.Phases[1].Side != SideBetween {
		t.Errorf("order: %q then %q (%s); want the waker's, then the IPI", b.Phases[0].Name, b.Phases[1].Name, b.Phases[1].Side)
	}
	// The untraced scale divides by the path's firings only: 12 events
	// close the path's phases; the waker's CPU's meanwhile are parallel.
	if b.FiringsPerHop != 12 {
		t.Errorf("firings per hop %.2f, want the path's 12", b.FiringsPerHop)
	}
	if got := b.PerHop["idle_ipis"]; got != 1 {
		t.Errorf("idle IPIs per hop %.2f, want 1", got)
	}
}

// The same enqueue on the two sides is two phases: on the idle wakee's CPU
// (the IPI handler's, in the idle task) on the hop's path, from a busy
// CPU's waker onto another's runqueue (its syscall's) on the waker's side.
func TestCrossModelTellsTheEnqueuesApart(t *testing.T) {
	const hops = 10
	m := synthetic(
		seg{KindFairBegin, KindNrRunningInc, 70, hops, CtxIdle},
		seg{KindFairBegin, KindNrRunningInc, 300, hops, CtxTask},
	)
	b := PipeHopCross(m, hops)
	got := map[string]model.Side{}
	for _, p := range b.Phases {
		got[p.Name] = p.Side
	}
	if got["IPI: enqueue up the cgroup hierarchy"] != SideWakee || got["wakeup: enqueue on the busy CPU"] != SideWaker || len(b.Phases) != 2 {
		t.Errorf("phases %v: want the IPI's enqueue on the wakee's side and the remote one on the waker's", got)
	}
}

// Another task on either CPU is kept apart; without the interrupt probes
// (the light set) the wakeup is completed without an IPI boundary, and the
// phases around the missing boundaries merge and still close.
func TestCrossModelWithoutIPIBoundaries(t *testing.T) {
	const hops = 100
	m := synthetic(
		seg{KindEnterWrite, KindWaking, 100, hops, CtxTask},
		seg{KindWakeup, KindSwitchFromIdle, 500, hops, CtxIdle}, // IPI exit, idle exit, schedule_idle unseen
		seg{KindSwitchFromIdle, KindExitRead, 300, hops, CtxIdle},
		seg{KindExitRead, KindEnterWrite, 100, hops, CtxTask},
		seg{KindWaking, KindExitWrite, 300, hops, CtxTask},
		seg{KindExitWrite, KindEnterRead, 100, hops, CtxTask},
		seg{KindEnterRead, KindSwitchToIdle, 300, hops, CtxTask}, // schedule(), the dequeue unseen
		// waiting, the IPI's flight and its head; another task took 5000
		// ns of one wait
		seg{KindSwitchToIdle, KindWakeup, 2250, hops, CtxTask},
		seg{KindSwitchToOther, KindSwitchFromOther, 5000, 1, CtxTask},
	)
	m.Cross[KindWakeup] = Cell{Ns: 1000 * hops, Count: hops}
	b := PipeHopCross(m, hops)
	if len(b.Other) != 1 {
		t.Errorf("other: %v", b.Other)
	}
	if b.Closure < 0.999 || b.Closure > 1.001 {
		t.Fatalf("closure %.4f, want 1:\n%s", b.Closure, b.String())
	}
	if len(b.Unattributed) != 0 {
		t.Fatalf("unattributed: %v", b.Unattributed)
	}
}

// With the IPI's send seen, the waker's path ends at the send and the
// IPI's flight is measured from it.
func TestCrossModelSplitsAtTheSend(t *testing.T) {
	const hops = 100
	m := crossPipe(hops)
	m.Cells[CtxTask][KindWaking][KindExitWrite] = Cell{}
	m.Cells[CtxTask][KindWaking][KindIPISend] = Cell{Ns: 150 * hops, Count: hops}
	m.Cells[CtxTask][KindIPISend][KindExitWrite] = Cell{Ns: 50 * hops, Count: hops}
	m.Cross[KindIPIIn] = Cell{}
	m.Cross[KindIPISend] = Cell{Ns: 850 * hops, Count: hops}
	b := PipeHopCross(m, hops)
	if b.Closure < 0.999 || b.Closure > 1.001 || len(b.Unattributed) != 0 {
		t.Fatalf("closure %.4f, unattributed %v:\n%s", b.Closure, b.Unattributed, b.String())
	}
	names := []string{}
	for _, p := range b.Phases[:3] {
		names = append(names, p.Name+" ("+string(p.Side)+")")
	}
	want := []string{"write(): up to the wakeup (waker)", "wakeup: select CPU, queue, send the IPI (waker)", "IPI: flight and the idle CPU's wake-up (between)"}
	if strings.Join(names, "; ") != strings.Join(want, "; ") {
		t.Errorf("first phases %q, want %q", names, want)
	}
}

// round is one CPU's round along a path of a cross model, fed as cells:
// every step stepNs, but its wait (idle for the partner, or another task
// running while this CPU's task sleeps), which is what makes the round as
// long as the round trip. waker, wakee and parallel are the round's steps
// on each part, the wait left out.
type round struct {
	p                      path
	waker, wakee, parallel float64
	waitStep               int
}

const stepNs = 100

func roundOf(t *testing.T, md *phaseModel, name string) round {
	t.Helper()
	r := round{waitStep: -1}
	for _, p := range md.paths {
		if p.name == name {
			r.p = p
		}
	}
	if r.p.nodes == nil {
		t.Fatalf("%s: no path %q", md.name, name)
	}
	n := r.p.nodes
	for i := range len(n) - 1 {
		from, to := n[i].kind, n[i+1].kind
		if (from == KindIdleEnter && to == KindIPIIn) || (isOtherTask(from) && isOtherTask(to)) {
			r.waitStep = i
			continue
		}
		a, ok := md.attribute(n[i].ctx, from, to)
		if !ok {
			t.Fatalf("%q: step %s -> %s is no phase", name, from, to)
		}
		switch e := md.edges[a.first]; {
		case e.parallel:
			r.parallel += stepNs
		case e.side == SideWaker:
			r.waker += stepNs
		default:
			r.wakee += stepNs
		}
	}
	if r.waitStep < 0 {
		t.Fatalf("%q: no wait in the round", name)
	}
	return r
}

// add puts n of the round's cells into m, its wait waitNs long.
func (r round) add(m *Matrix, n uint64, waitNs float64) {
	nodes := r.p.nodes
	for i := range len(nodes) - 1 {
		ns := uint64(stepNs)
		if i == r.waitStep {
			ns = uint64(waitNs)
		}
		c := &m.Cells[nodes[i].ctx][nodes[i].kind][nodes[i+1].kind]
		c.Ns += ns * n
		c.Count += n
		c.Hist[bucket(ns)] += n
	}
}

// Two CPUs' rounds make a round trip: a wakes b (crossing as the cross
// cell ab, abNs long), b wakes a (ba, baNs). Fed through the model, the
// hops' path closes exactly and each side holds its steps, whether the
// CPUs idle while they wait or one of them runs another task.
func TestCrossPathsCloseAsRoundTrips(t *testing.T) {
	cases := []struct {
		name string
		a, b string
		ab   Kind
		abNs float64
		ba   Kind
		baNs float64
		busy float64 // expected busy wakeups per hop
	}{
		{"both idle", "both CPUs idle while they wait: the wake-list IPI, every boundary seen",
			"both CPUs idle while they wait: the wake-list IPI, every boundary seen", KindIPISend, 1000, KindIPISend, 1000, 0},
		{"no IPI send seen", "no IPI send seen, delayed requeue and dequeue, a timer in idle",
			"no IPI send seen, delayed requeue and dequeue, a timer in idle", KindIPIIn, 1500, KindIPIIn, 1500, 0},
		{"one CPU busy", "an idle CPU waking a busy one: the remote enqueue and the reschedule IPI",
			"the busy CPU: woken by the reschedule, it wakes the idle one and gives the CPU back to its task", KindSwitchFromOther, 3000, KindIPISend, 1000, 0.5},
	}
	for _, md := range []*phaseModel{&crossPipeModel, &crossFutexModel, byArch[ARM64].acrossCPUs["pipe"], byArch[ARM64].acrossCPUs["futex"]} {
		for _, c := range cases {
			a, b := roundOf(t, md, c.a), roundOf(t, md, c.b)
			rt := a.waker + c.abNs + b.wakee + b.waker + c.baNs + a.wakee
			const n = 100
			m := &Matrix{}
			a.add(m, n, rt-a.waker-a.wakee-a.parallel)
			b.add(m, n, rt-b.waker-b.wakee-b.parallel)
			m.Cross[c.ab].Ns += uint64(c.abNs) * n
			m.Cross[c.ab].Count += n
			m.Cross[c.ba].Ns += uint64(c.baNs) * n
			m.Cross[c.ba].Count += n
			hops := uint64(2 * n)
			bd := md.breakdown(m, hops)
			if math.Abs(bd.Closure-1) > 1e-9 || len(bd.Unattributed) != 0 {
				t.Errorf("%s, %s: closure %.4f, unattributed %v:\n%s", md.name, c.name, bd.Closure, bd.Unattributed, bd.String())
				continue
			}
			want := map[model.Side]float64{SideWaker: (a.waker + b.waker) / 2, SideBetween: (c.abNs + c.baNs) / 2, SideWakee: (a.wakee + b.wakee) / 2}
			got := bySide(bd.Phases)
			for s, ns := range want {
				if math.Abs(got[s]-ns) > 1e-9 {
					t.Errorf("%s, %s: %s side %.1f ns per hop, want %.1f", md.name, c.name, s, got[s], ns)
				}
			}
			if bd.PerHop["busy_wakeups"] != c.busy {
				t.Errorf("%s, %s: busy wakeups per hop %.2f, want %.2f", md.name, c.name, bd.PerHop["busy_wakeups"], c.busy)
			}
			if c.busy > 0 && (len(bd.Other) != 1 || bd.OtherNsPerHop == 0) {
				t.Errorf("%s, %s: the busy CPU's other task %v, want its one cell", md.name, c.name, bd.Other)
			}
		}
	}
}

// Where both CPUs are busy and no reschedule IPI is sent, the wakee waits
// for its CPU's task to give way, which nothing here measures: every cell
// is still a phase or the other task's, and the path does not claim to
// close.
func TestCrossModelBothBusyWithoutIPI(t *testing.T) {
	r := roundOf(t, &crossPipeModel, "both CPUs busy, no reschedule IPI, delayed dequeue")
	m := &Matrix{}
	r.add(m, 100, 5000)
	bd := PipeHopCross(m, 100)
	if len(bd.Unattributed) != 0 || len(bd.Other) != 1 {
		t.Fatalf("unattributed %v, other %v", bd.Unattributed, bd.Other)
	}
	if bd.Closure >= 0.999 {
		t.Errorf("closure %.3f: the wait for the busy CPU is not measured, the path cannot close", bd.Closure)
	}
}

// On one CPU the idle task's events are not the hop's: a same-CPU model
// keeps them with the other time.
func TestSameCPUModelsKeepIdleApart(t *testing.T) {
	m := synthetic(
		seg{KindSchedExit, KindExitRead, 100, 10, CtxTask},
		seg{KindSwitchToIdle, KindIdleEnter, 100, 1, CtxTask},
		seg{KindIdleEnter, KindIPIIn, 1000, 1, CtxIdle},
		seg{KindIPIIn, KindWakeup, 100, 1, CtxIdle},
		seg{KindFairBegin, KindNrRunningInc, 100, 1, CtxIdle},
	)
	b := PipeHop(m, 10)
	if len(b.Unattributed) != 0 || len(b.Other) != 4 {
		t.Errorf("unattributed %v, other %v", b.Unattributed, b.Other)
	}
}
