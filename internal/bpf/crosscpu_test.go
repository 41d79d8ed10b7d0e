package bpf

import (
	"strings"
	"testing"
)

// crossPipe is a synthetic pair of timelines of hops hops of a pipe
// ping-pong across two CPUs (added up: each CPU wakes every other hop),
// whose path is waker 100 ns, between 1000 ns, wakee 900 ns (2000 ns a
// hop), with 700 ns of the waker's CPU's own work and 2300 ns of its idle
// wait per round trip in parallel: each CPU's timeline is two hops long.
func crossPipe(hops uint64) *Matrix {
	m := synthetic(
		// the waker, up to its wakeup call
		seg{KindEnterWrite, KindWaking, 100, hops},
		// the wakee's CPU, from the IPI to its own write
		seg{KindIPIIn, KindFairBegin, 50, hops},
		seg{KindFairBegin, KindNrRunningInc, 50, hops},
		seg{KindNrRunningInc, KindWakeup, 50, hops},
		seg{KindWakeup, KindIPIOut, 50, hops},
		seg{KindIPIOut, KindIdleExit, 100, hops},
		seg{KindIdleExit, KindSchedEntry, 100, hops},
		seg{KindSchedEntry, KindSwitchFromIdle, 100, hops},
		seg{KindSwitchFromIdle, KindSchedExit, 100, hops},
		seg{KindSchedExit, KindExitRead, 100, hops},
		seg{KindExitRead, KindFPULoad, 100, hops},
		seg{KindFPULoad, KindEnterWrite, 100, hops},
		// the waker's CPU meanwhile
		seg{KindWaking, KindExitWrite, 200, hops},
		seg{KindExitWrite, KindEnterRead, 100, hops},
		seg{KindEnterRead, KindSchedEntry, 100, hops},
		seg{KindSchedEntry, KindFairBegin, 100, hops},
		seg{KindFairBegin, KindNrRunningDec, 50, hops},
		seg{KindNrRunningDec, KindSwitchToIdle, 50, hops},
		seg{KindSwitchToIdle, KindSchedExit, 50, hops},
		seg{KindSchedExit, KindIdleEnter, 50, hops},
		seg{KindIdleEnter, KindIPIIn, 2300, hops},
	)
	m.Cross[KindIPIIn] = Cell{Ns: 1000 * hops, Count: hops}
	m.Events[KindIPIIn] = hops
	return m
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
	sides := map[string]float64{}
	for _, p := range b.Phases {
		sides[p.CPU] += p.NsPerHop
	}
	if sides[SideWaker] != 100 || sides[SideBetween] != 1000 || sides[SideWakee] != 900 {
		t.Errorf("by side %v, want waker 100, between 1000, wakee 900", sides)
	}
	var par float64
	for _, p := range b.Parallel {
		if p.CPU != SideWaker {
			t.Errorf("parallel phase %q on side %q", p.Name, p.CPU)
		}
		par += p.NsPerHop
	}
	if par != 3000 {
		t.Errorf("parallel %.0f ns per hop, want 3000 (700 of work, 2300 idle)", par)
	}
	if b.Phases[0].Name != "write(): up to the wakeup" || b.Phases[1].CPU != SideBetween {
		t.Errorf("order: %q then %q (%s); want the waker's, then the IPI", b.Phases[0].Name, b.Phases[1].Name, b.Phases[1].CPU)
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

// Another task on either CPU is kept apart; without the interrupt probes
// (the light set) the wakeup is completed without an IPI boundary, and the
// phases around the missing boundaries merge and still close.
func TestCrossModelWithoutIPIBoundaries(t *testing.T) {
	const hops = 100
	m := synthetic(
		seg{KindEnterWrite, KindWaking, 100, hops},
		seg{KindWakeup, KindSwitchFromIdle, 500, hops}, // IPI exit, idle exit, schedule_idle unseen
		seg{KindSwitchFromIdle, KindExitRead, 300, hops},
		seg{KindExitRead, KindEnterWrite, 100, hops},
		seg{KindWaking, KindExitWrite, 300, hops},
		seg{KindExitWrite, KindEnterRead, 100, hops},
		seg{KindEnterRead, KindSwitchToIdle, 300, hops}, // schedule(), the dequeue unseen
		seg{KindSwitchToIdle, KindWakeup, 2300, hops},   // waiting, the IPI's flight and its head
		seg{KindSwitchToOther, KindSwitchFromOther, 5000, 1},
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
	m.Cells[KindWaking][KindExitWrite] = Cell{}
	m.Cells[KindWaking][KindIPISend] = Cell{Ns: 150 * hops, Count: hops}
	m.Cells[KindIPISend][KindExitWrite] = Cell{Ns: 50 * hops, Count: hops}
	m.Cross[KindIPIIn] = Cell{}
	m.Cross[KindIPISend] = Cell{Ns: 850 * hops, Count: hops}
	b := PipeHopCross(m, hops)
	if b.Closure < 0.999 || b.Closure > 1.001 || len(b.Unattributed) != 0 {
		t.Fatalf("closure %.4f, unattributed %v:\n%s", b.Closure, b.Unattributed, b.String())
	}
	names := []string{}
	for _, p := range b.Phases[:3] {
		names = append(names, p.Name+" ("+p.CPU+")")
	}
	want := []string{"write(): up to the wakeup (waker)", "wakeup: select CPU, queue, send the IPI (waker)", "IPI: flight and the idle CPU's wake-up (between)"}
	if strings.Join(names, "; ") != strings.Join(want, "; ") {
		t.Errorf("first phases %q, want %q", names, want)
	}
}

// On one CPU the idle task's events are not the hop's: a same-CPU model
// keeps them with the other time.
func TestSameCPUModelsKeepIdleApart(t *testing.T) {
	m := synthetic(
		seg{KindSchedExit, KindExitRead, 100, 10},
		seg{KindSwitchToIdle, KindIdleEnter, 100, 1},
		seg{KindIdleEnter, KindIPIIn, 1000, 1},
		seg{KindIPIIn, KindWakeup, 100, 1},
	)
	b := PipeHop(m, 10)
	if len(b.Unattributed) != 0 || len(b.Other) != 3 {
		t.Errorf("unattributed %v, other %v", b.Unattributed, b.Other)
	}
}
