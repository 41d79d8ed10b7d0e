package phase

import (
	"slices"
	"strings"
	"testing"
)

// synthetic builds a matrix from (from, to, ns per occurrence, count),
// in a task's context unless the segment says the idle task's.
type seg struct {
	from, to Kind
	ns, n    uint64
	ctx      Context
}

func synthetic(segs ...seg) *Matrix {
	m := &Matrix{}
	for _, s := range segs {
		c := &m.Cells[s.ctx][s.from][s.to]
		c.Ns += s.ns * s.n
		c.Count += s.n
		c.Hist[bucket(s.ns)] += s.n
	}
	return m
}

// A blocking pipe hop, every boundary present, closes exactly and lists
// its phases in time order.
func TestPipeModelClosesOnItsOwnPath(t *testing.T) {
	const hops = 100
	m := synthetic(
		seg{KindSchedExit, KindExitRead, 100, hops, CtxTask},
		seg{KindExitRead, KindFPULoad, 50, hops, CtxTask},
		seg{KindFPULoad, KindEnterWrite, 60, hops, CtxTask},
		seg{KindEnterWrite, KindWaking, 70, hops, CtxTask},
		seg{KindWaking, KindFairBegin, 80, hops, CtxTask},
		seg{KindFairBegin, KindNrRunningInc, 90, hops, CtxTask},
		seg{KindNrRunningInc, KindWakeup, 10, hops, CtxTask},
		seg{KindWakeup, KindExitWrite, 20, hops, CtxTask},
		seg{KindExitWrite, KindEnterRead, 30, hops, CtxTask},
		seg{KindEnterRead, KindSchedEntry, 40, hops, CtxTask},
		seg{KindSchedEntry, KindFairBegin, 50, hops, CtxTask},
		seg{KindFairBegin, KindNrRunningDec, 60, hops, CtxTask},
		seg{KindNrRunningDec, KindSwitch, 70, hops, CtxTask},
		seg{KindSwitch, KindFPUSave, 80, hops, CtxTask},
		seg{KindFPUSave, KindSchedExit, 90, hops, CtxTask},
		seg{KindWakeup, KindTimer, 5000, 1, CtxTask}, // an interrupt inside a phase
	)
	b := PipeHop(m, hops)
	if b.Closure < 0.999 || b.Closure > 1.001 {
		t.Fatalf("closure %.4f, want 1:\n%s", b.Closure, b.String())
	}
	if len(b.Unattributed) != 0 || len(b.Other) != 0 {
		t.Fatalf("unattributed %v, other %v", b.Unattributed, b.Other)
	}
	if got, want := b.Phases[0].Name, "read() returns"; got != want {
		t.Errorf("first phase %q, want %q", got, want)
	}
	if last := b.Phases[len(b.Phases)-1]; last.Name != "interrupts" || last.NsPerHop != 50 {
		t.Errorf("last phase %+v, want the interrupts at 50 ns/hop", last)
	}
	if got := b.SumPhases(); got < 949.9 || got > 950.1 {
		t.Errorf("phases sum to %.1f ns/hop, want 950", got)
	}
}

// Without the optional boundaries (a kernel without sched_entry_tp, no
// FPU restore), the transitions that skip them are the phases they span,
// merged, and still close.
func TestPipeModelMergesMissingBoundaries(t *testing.T) {
	const hops = 10
	m := synthetic(
		seg{KindSwitch, KindExitRead, 300, hops, CtxTask}, // no sched_exit_tp, no FPU save
		seg{KindExitRead, KindEnterWrite, 100, hops, CtxTask},
		seg{KindEnterWrite, KindWaking, 100, hops, CtxTask},
		seg{KindWaking, KindWakeup, 100, hops, CtxTask},
		seg{KindWakeup, KindExitWrite, 100, hops, CtxTask},
		seg{KindExitWrite, KindEnterRead, 100, hops, CtxTask},
		seg{KindEnterRead, KindSwitch, 100, hops, CtxTask}, // no sched_entry_tp, no fair brackets
	)
	b := PipeHop(m, hops)
	if b.Closure < 0.999 {
		t.Fatalf("closure %.4f:\n%s", b.Closure, b.String())
	}
	i := slices.IndexFunc(b.Phases, func(p Phase) bool { return p.From == KindEnterRead && p.To == KindSwitch })
	if i < 0 || len(b.Phases[i].Merged) < 2 || !strings.Contains(b.Phases[i].Name, "read(): pipe empty, go to sleep") {
		t.Fatalf("read -> switch not merged from the model's phases: %+v", b.Phases)
	}
}

// Another task's time and transitions the model does not know are kept
// apart from the phases: shown, not counted in the closure.
func TestModelSeparatesOtherAndUnknown(t *testing.T) {
	m := synthetic(
		seg{KindSchedExit, KindExitRead, 100, 10, CtxTask},
		seg{KindExitRead, KindEnterWrite, 100, 10, CtxTask},
		seg{KindSwitchToOther, KindSwitchFromOther, 10000, 1, CtxTask},
		seg{KindSwitchFromOther, KindSchedExit, 500, 1, CtxTask},
		seg{KindEnterOther, KindExitOther, 100, 1, CtxTask},
	)
	b := PipeHop(m, 10)
	if len(b.Other) != 2 || b.OtherNsPerHop != 1050 {
		t.Errorf("other %v (%.0f ns/hop), want the two foreign cells at 1050 ns/hop", b.Other, b.OtherNsPerHop)
	}
	if len(b.Unattributed) != 1 || b.Unattributed[0].From != KindEnterOther {
		t.Errorf("unattributed %v, want enter-other -> exit-other", b.Unattributed)
	}
	if want := 2000.0 / 2100; b.Closure < want-1e-9 || b.Closure > want+1e-9 {
		t.Errorf("closure %.4f, want %.4f", b.Closure, want)
	}
}

// allModels is every model there is (Split's tables), by a name for
// test output.
func allModels() map[string]*phaseModel {
	out := map[string]*phaseModel{}
	for arch, ms := range byArch {
		for n, md := range ms.oneCPU {
			out[arch+" "+n] = md
		}
		for n, md := range ms.acrossCPUs {
			out[arch+" "+n+" across CPUs"] = md
		}
	}
	return out
}

// Every model passes its checks: no transition twice, every phase on a
// path, every path closed and made of the model's phases.
func TestModelsAreWellFormed(t *testing.T) {
	if len(allModels()) != 12 {
		t.Errorf("%d models, want the 12: x86-64's 7 (5 on one CPU, 2 across CPUs), arm64's 5 (the vm rung's two are x86-64's)", len(allModels()))
	}
	for name, md := range allModels() {
		if err := md.check(); err != nil {
			t.Errorf("%s:\n%v", name, err)
		}
	}
}

// The checks hold the models: duplicating any transition of any model, or
// removing any one from it, fails them.
func TestModelChecksCatchEveryEdit(t *testing.T) {
	for name, md := range allModels() {
		for i, e := range md.edges {
			twice := *md
			twice.edges = append(slices.Clone(md.edges), e)
			if twice.check() == nil {
				t.Errorf("%s: %s -> %s (%q) twice passes the checks", name, e.from, e.to, e.name)
			}
			removed := *md
			removed.edges = slices.Delete(slices.Clone(md.edges), i, i+1)
			if removed.check() == nil {
				t.Errorf("%s: without %s -> %s (%q) passes the checks", name, e.from, e.to, e.name)
			}
			// The same transition in the other context is another phase:
			// moving it off its context breaks its paths.
			moved := *md
			moved.edges = slices.Clone(md.edges)
			moved.edges[i].ctx = 1 - e.ctx
			if !md.cross {
				moved.edges[i].ctx = CtxIdle
			}
			if moved.check() == nil {
				t.Errorf("%s: %s -> %s (%q) in the %s context passes the checks", name, e.from, e.to, e.name, moved.edges[i].ctx)
			}
		}
	}
}

// Every path of every model on one CPU, fed as cells, is attributed step by
// step to the model's phases (their kinds, in time order) and closes: the
// phases are all the traced time.
func TestEveryPathClosesOnOneCPU(t *testing.T) {
	for name, md := range allModels() {
		if md.cross {
			continue
		}
		for _, p := range md.paths {
			var segs []seg
			for i := range len(p.nodes) - 1 {
				segs = append(segs, seg{p.nodes[i].kind, p.nodes[i+1].kind, 100 * uint64(i+1), 10, p.nodes[i].ctx})
			}
			b := md.breakdown(synthetic(segs...), 10)
			if b.Closure < 0.999 || b.Closure > 1.001 || len(b.Unattributed) != 0 || len(b.Other) != 0 {
				t.Errorf("%s, %q: closure %.4f, unattributed %v, other %v:\n%s", name, p.name, b.Closure, b.Unattributed, b.Other, b.String())
				continue
			}
			for _, ph := range b.Phases {
				a, ok := md.attribute(CtxTask, ph.From, ph.To)
				if !ok || len(ph.Merged) != 0 || !slices.Equal(ph.Kinds, a.kinds) || len(ph.Kinds) != 1 {
					t.Errorf("%s, %q: phase %q has kinds %v, want its edge's", name, p.name, ph.Name, ph.Kinds)
				}
			}
		}
	}
}

func TestCellQuantile(t *testing.T) {
	m := synthetic(seg{KindSwitch, KindSchedExit, 300, 90, CtxTask}, seg{KindSwitch, KindSchedExit, 5000, 10, CtxTask})
	c := m.Cell(KindSwitch, KindSchedExit)
	if q := c.Quantile(0.5); q != 511 {
		t.Errorf("median bucket bound %d, want 511", q)
	}
	if q := c.Quantile(0.99); q != 8191 {
		t.Errorf("p99 bucket bound %d, want 8191", q)
	}
}

// A VM-to-VM hop through the VMMs is a KVM exit, a pipe hop and a KVM
// entry: the union model closes on it.
func TestVMSwitchUserModelCloses(t *testing.T) {
	const hops = 50
	m := synthetic(
		seg{KindKVMUserspaceExit, KindExitKVMRun, 100, hops, CtxTask},
		seg{KindExitKVMRun, KindEnterWrite, 300, hops, CtxTask},
		seg{KindEnterWrite, KindWaking, 100, hops, CtxTask},
		seg{KindWaking, KindWakeup, 100, hops, CtxTask},
		seg{KindWakeup, KindExitWrite, 100, hops, CtxTask},
		seg{KindExitWrite, KindEnterRead, 100, hops, CtxTask},
		seg{KindEnterRead, KindSchedEntry, 100, hops, CtxTask},
		seg{KindSchedEntry, KindSwitch, 100, hops, CtxTask},
		seg{KindSwitch, KindSchedExit, 100, hops, CtxTask},
		seg{KindSchedExit, KindExitRead, 100, hops, CtxTask},
		seg{KindExitRead, KindEnterKVMRun, 200, hops, CtxTask},
		seg{KindEnterKVMRun, KindFPULoad, 100, hops, CtxTask},
		seg{KindFPULoad, KindKVMFPULoad, 10, hops, CtxTask},
		seg{KindKVMFPULoad, KindFPULoad, 5000, hops, CtxTask},
		seg{KindFPULoad, KindKVMFPUUnload, 10, hops, CtxTask},
		seg{KindKVMFPUUnload, KindKVMUserspaceExit, 100, hops, CtxTask},
	)
	b := VMSwitchUser(m, hops)
	if b.Closure < 0.999 || len(b.Unattributed) != 0 {
		t.Fatalf("closure %.4f, unattributed %v:\n%s", b.Closure, b.Unattributed, b.String())
	}
}
