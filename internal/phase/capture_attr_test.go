package phase

import (
	"math"
	"testing"

	"github.com/ctxbench/ctxbench/internal/model"
)

// ent, irqEnt and sw build ring entries the way the kernel writes them.
func ent(ts, wall uint64, tid uint32, ctx Context, from, to Kind) LogEntry {
	return LogEntry{Ts: ts, Wall: uint32(wall), Ns: uint32(wall), TID: tid, Type: EntSegment, Ctx: ctx, From: from, To: to}
}

func irqEnt(ts, wall uint64, k Kind) LogEntry {
	return LogEntry{Ts: ts, Wall: uint32(wall), Ns: uint32(wall), Type: EntIRQ, From: k}
}

func sw(ts uint64, next uint32, comm string) LogEntry {
	return LogEntry{Ts: ts, TID: next, Type: EntSwitch, Comm: comm}
}

// parts sums a breakdown's parts by cause, and checks they tile the hop.
func parts(t *testing.T, b HopBreakdown) map[model.Cause]float64 {
	t.Helper()
	out := map[model.Cause]float64{}
	sum := 0.0
	for _, p := range b.Phases {
		out[p.Cause] += p.Ns
		sum += p.Ns
	}
	if math.Abs(sum-float64(b.Ns)) > 0.5 {
		t.Errorf("the parts sum to %.0f ns, the hop is %d ns", sum, b.Ns)
	}
	pieces := 0.0
	for _, p := range b.Pieces {
		pieces += p.Ns
		if p.Phase < 0 || p.Phase >= len(b.Phases) {
			t.Errorf("piece %+v points at no part", p)
		}
	}
	if math.Abs(pieces-sum) > 0.5 {
		t.Errorf("the pieces sum to %.0f ns, the parts to %.0f", pieces, sum)
	}
	return out
}

// A same-CPU pipe hop that waited behind another task, with a timer tick
// inside it: the wait is that task's (by the switch that named it), the
// tick is an interrupt, the rest the model's phases, and they tile the hop.
func TestHopOnOneCPU(t *testing.T) {
	const a, b = 10, 11 // waker and wakee
	h := CapturedHop{Start: 1000, End: 1000 + 9000, Waking: 1400, Handoff: 1800, WakerCPU: 1, WakeeCPU: 1, WakerTID: a, WakeeTID: b, PrevCPU: 1,
		Entries: [2][]LogEntry{{
			ent(900, 100, a, CtxTask, KindFPULoad, KindEnterWrite),
			ent(1000, 400, a, CtxTask, KindEnterWrite, KindWaking),
			ent(1400, 400, a, CtxTask, KindWaking, KindFairBegin),
			ent(1800, 300, a, CtxTask, KindFairBegin, KindWakeup),
			ent(2100, 300, a, CtxTask, KindWakeup, KindExitWrite),
			ent(2400, 200, a, CtxTask, KindExitWrite, KindSchedEntry),
			ent(2600, 400, a, CtxTask, KindSchedEntry, KindSwitchToOther),
			sw(2990, 77, "kworker/1:1"),
			irqEnt(4000, 1000, KindTimer),
			ent(3000, 5000, a, CtxTask, KindSwitchToOther, KindSwitchFromOther),
			sw(7990, b, "pingpong"),
			ent(8000, 600, b, CtxTask, KindSwitchFromOther, KindSchedExit),
			ent(8600, 1400, b, CtxTask, KindSchedExit, KindExitRead),
		}}}
	split, ok := SplitHop("pipe")
	if !ok {
		t.Fatal("no pipe model")
	}
	br := split(h)
	c := parts(t, br)
	if c[model.CauseOtherTask] != 4000 || c[model.CauseInterrupts] != 1000 {
		t.Errorf("other task %.0f ns (want 4000), interrupts %.0f (want 1000)", c[model.CauseOtherTask], c[model.CauseInterrupts])
	}
	var named bool
	for _, p := range br.Phases {
		if p.Cause == model.CauseOtherTask && p.Task != nil && p.Task.Comm == "kworker/1:1" && p.Task.PID == 77 {
			named = true
		}
	}
	if !named {
		t.Errorf("the other task is not named: %+v", br.Phases)
	}
	if br.Closure < 0.999 || br.Truncated || br.Migrated {
		t.Errorf("closure %.3f, truncated %v, migrated %v", br.Closure, br.Truncated, br.Migrated)
	}
	// The parts are in the order they first ran.
	if br.Phases[0].From != "enter-write" {
		t.Errorf("the first part is %q, want the write", br.Phases[0].Name)
	}
}

// Across CPUs: the waker's CPU up to the IPI's send, then the wakee's idle
// CPU until the IPI arrived (its flight), the handler and the idle exit,
// and the woken task's return; the parts tile the hop, each on its side.
func TestHopAcrossCPUs(t *testing.T) {
	const a, b = 10, 11
	h := CapturedHop{Start: 1000, End: 9000, Waking: 1500, Handoff: 2000, WakerCPU: 0, WakeeCPU: 1, WakerTID: a, WakeeTID: b, PrevCPU: 1,
		Entries: [2][]LogEntry{
			{ // the wakee's CPU
				sw(100, 0, "swapper/1"),
				ent(200, 4000, b, CtxTask, KindSchedExit, KindIdleEnter), // an earlier stretch (not ctx idle: checks the switch owner)
				ent(4200, 1000, 0, CtxIdle, KindIdleEnter, KindIPIIn),
				ent(5200, 500, 0, CtxIdle, KindIPIIn, KindFairBegin),
				ent(5700, 500, 0, CtxIdle, KindFairBegin, KindNrRunningInc),
				ent(6200, 500, 0, CtxIdle, KindNrRunningInc, KindWakeup),
				ent(6700, 300, 0, CtxIdle, KindWakeup, KindIPIOut),
				ent(7000, 300, 0, CtxIdle, KindIPIOut, KindIdleExit),
				ent(7300, 400, 0, CtxIdle, KindIdleExit, KindSchedEntry),
				ent(7700, 300, 0, CtxIdle, KindSchedEntry, KindSwitchFromIdle),
				sw(7990, b, "pingpong"),
				ent(8000, 400, 0, CtxIdle, KindSwitchFromIdle, KindSchedExit),
				ent(8400, 600, b, CtxTask, KindSchedExit, KindExitRead),
			},
			{ // the waker's
				ent(1000, 500, a, CtxTask, KindEnterWrite, KindWaking),
				ent(1500, 500, a, CtxTask, KindWaking, KindIPISend),
				ent(2000, 900, a, CtxTask, KindIPISend, KindExitWrite),
			},
		}}
	split, _ := SplitHop("pipe")
	br := split(h)
	c := parts(t, br)
	// From the send (2000) to the IPI's arrival (5200), the wakee's CPU
	// ran its idle task (the switch at 100 says so, whatever opened the
	// stretch): the IPI's flight.
	if c[model.CauseIPIFlight] != 3200 {
		t.Errorf("flight %.0f ns, want 3200: %+v", c[model.CauseIPIFlight], br.Phases)
	}
	sides := map[string]float64{}
	for _, p := range br.Phases {
		sides[p.CPU] += p.Ns
	}
	if sides["waker"] != 1000 || sides["wakee"] == 0 || sides["between"] == 0 {
		t.Errorf("by side %v: want 1000 ns on the waker's CPU (entry to the IPI's send), the rest between and on the wakee's", sides)
	}
	if c[model.CauseIdleExit] == 0 {
		t.Errorf("no idle exit: %+v", br.Phases)
	}
}

// A probe held up after it read the clock closes its segment after later
// ones (misordered): the time is counted once. Entries that do not reach
// back to the hop's start leave that stretch "not recorded".
func TestHopOverlapAndTruncation(t *testing.T) {
	const a, b = 10, 11
	h := CapturedHop{Start: 1000, End: 5000, Waking: 1200, WakerCPU: 1, WakeeCPU: 1, WakerTID: a, WakeeTID: b, PrevCPU: 0,
		Entries: [2][]LogEntry{{
			ent(1500, 1000, a, CtxTask, KindWaking, KindWakeup),
			ent(2500, 500, a, CtxTask, KindWakeup, KindExitWrite),
			ent(3000, 0, a, CtxTask, KindExitWrite, KindSchedEntry), // misordered: length 0
			ent(2000, 2000, a, CtxTask, KindSchedEntry, KindSwitch), // reaches back over covered time
			ent(4000, 1000, b, CtxTask, KindSwitch, KindSchedExit),
		}}}
	split, _ := SplitHop("pipe")
	br := split(h)
	c := parts(t, br)
	if !br.Truncated || c[model.CauseUnrecorded] != 500 {
		t.Errorf("truncated %v, not recorded %.0f ns: want the 500 ns before the first entry", br.Truncated, c[model.CauseUnrecorded])
	}
	if !br.Migrated {
		t.Error("the wakee last ran on CPU 0: migrated")
	}
}

// The kernel's hop-length buckets and the quantiles read from them agree.
func TestCaptureBuckets(t *testing.T) {
	for _, v := range []uint64{0, 1, 15, 16, 17, 31, 32, 1000, 4096, 123456, 1 << 30} {
		i := captureBucket(v)
		lo, hi := CaptureBucketRange(i)
		if float64(v) < lo || float64(v) >= hi {
			t.Errorf("%d ns in bucket %d [%g, %g)", v, i, lo, hi)
		}
	}
	hist := make([]uint64, NumCaptureBuckets)
	for v := uint64(1000); v < 2000; v++ {
		hist[captureBucket(v)]++
	}
	if q := HistQuantile(hist, 0.5); math.Abs(q-1500)/1500 > 0.04 {
		t.Errorf("median %.0f of 1000..1999, want about 1500", q)
	}
}
