package bpf

import (
	"slices"
	"strings"
	"testing"
)

// synthetic builds a matrix from (from, to, ns per occurrence, count).
type seg struct {
	from, to Kind
	ns, n    uint64
}

func synthetic(segs ...seg) *Matrix {
	m := &Matrix{}
	for _, s := range segs {
		c := &m.Cells[s.from][s.to]
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
		seg{KindSchedExit, KindExitRead, 100, hops},
		seg{KindExitRead, KindFPULoad, 50, hops},
		seg{KindFPULoad, KindEnterWrite, 60, hops},
		seg{KindEnterWrite, KindWaking, 70, hops},
		seg{KindWaking, KindFairBegin, 80, hops},
		seg{KindFairBegin, KindNrRunningInc, 90, hops},
		seg{KindNrRunningInc, KindWakeup, 10, hops},
		seg{KindWakeup, KindExitWrite, 20, hops},
		seg{KindExitWrite, KindEnterRead, 30, hops},
		seg{KindEnterRead, KindSchedEntry, 40, hops},
		seg{KindSchedEntry, KindFairBegin, 50, hops},
		seg{KindFairBegin, KindNrRunningDec, 60, hops},
		seg{KindNrRunningDec, KindSwitch, 70, hops},
		seg{KindSwitch, KindFPUSave, 80, hops},
		seg{KindFPUSave, KindSchedExit, 90, hops},
		seg{KindWakeup, KindTimer, 5000, 1}, // an interrupt inside a phase
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
		seg{KindSwitch, KindExitRead, 300, hops}, // no sched_exit_tp, no FPU save
		seg{KindExitRead, KindEnterWrite, 100, hops},
		seg{KindEnterWrite, KindWaking, 100, hops},
		seg{KindWaking, KindWakeup, 100, hops},
		seg{KindWakeup, KindExitWrite, 100, hops},
		seg{KindExitWrite, KindEnterRead, 100, hops},
		seg{KindEnterRead, KindSwitch, 100, hops}, // no sched_entry_tp, no fair brackets
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
		seg{KindSchedExit, KindExitRead, 100, 10},
		seg{KindExitRead, KindEnterWrite, 100, 10},
		seg{KindSwitchToOther, KindSwitchFromOther, 10000, 1},
		seg{KindSwitchFromOther, KindSchedExit, 500, 1},
		seg{KindEnterOther, KindExitOther, 100, 1},
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

// Every model's transitions are unique, start and end at defined kinds,
// and name and describe themselves.
func TestModelsAreWellFormed(t *testing.T) {
	for _, md := range []*model{&pipeModel, &futexModel, &yieldModel, &kvmModel} {
		seen := map[[2]Kind]bool{}
		for _, e := range md.edges {
			if seen[[2]Kind{e.from, e.to}] {
				t.Errorf("%s: %s -> %s twice", md.name, e.from, e.to)
			}
			seen[[2]Kind{e.from, e.to}] = true
			if e.from >= kindCount || e.to >= kindCount || e.from.IsInterrupt() || e.to.IsInterrupt() {
				t.Errorf("%s: bad kinds %d -> %d", md.name, e.from, e.to)
			}
			if e.name == "" || e.what == "" || strings.Contains(e.what, "\n") {
				t.Errorf("%s: %s -> %s needs a name and a one-line what", md.name, e.from, e.to)
			}
		}
		if len(md.gaps) == 0 {
			t.Errorf("%s: no gaps named", md.name)
		}
	}
}

func TestCellQuantile(t *testing.T) {
	m := synthetic(seg{KindSwitch, KindSchedExit, 300, 90}, seg{KindSwitch, KindSchedExit, 5000, 10})
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
		seg{KindKVMUserspaceExit, KindExitKVMRun, 100, hops},
		seg{KindExitKVMRun, KindEnterWrite, 300, hops},
		seg{KindEnterWrite, KindWaking, 100, hops},
		seg{KindWaking, KindWakeup, 100, hops},
		seg{KindWakeup, KindExitWrite, 100, hops},
		seg{KindExitWrite, KindEnterRead, 100, hops},
		seg{KindEnterRead, KindSchedEntry, 100, hops},
		seg{KindSchedEntry, KindSwitch, 100, hops},
		seg{KindSwitch, KindSchedExit, 100, hops},
		seg{KindSchedExit, KindExitRead, 100, hops},
		seg{KindExitRead, KindEnterKVMRun, 200, hops},
		seg{KindEnterKVMRun, KindFPULoad, 100, hops},
		seg{KindFPULoad, KindKVMFPULoad, 10, hops},
		seg{KindKVMFPULoad, KindFPULoad, 5000, hops},
		seg{KindFPULoad, KindKVMFPUUnload, 10, hops},
		seg{KindKVMFPUUnload, KindKVMUserspaceExit, 100, hops},
	)
	b := VMSwitchUser(m, hops)
	if b.Closure < 0.999 || len(b.Unattributed) != 0 {
		t.Fatalf("closure %.4f, unattributed %v:\n%s", b.Closure, b.Unattributed, b.String())
	}
}
