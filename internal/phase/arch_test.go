package phase

import (
	"slices"
	"strings"
	"testing"
)

// arm64's models have only arm64's boundaries: no transition or path
// through an event it has no tracepoint for, no phase said in x86's words,
// its probes named as arm64 names them, and the note that says so; the
// vm rung's models are x86-64's alone.
func TestArm64ModelsHaveArm64sBoundaries(t *testing.T) {
	gone := Absent(ARM64)
	if len(gone) == 0 || len(Absent(AMD64)) != 0 {
		t.Fatalf("absent on arm64 %v, on x86-64 %v", gone, Absent(AMD64))
	}
	x86Words := []string{"FPU", "XSAVE", "XRSTOR", "APIC", "HLT", "MWAIT", "PTI", "CR3", "x86", "rsp", "call_function", "reschedule_entry"}
	ms := byArch[ARM64]
	for _, set := range []map[string]*phaseModel{ms.oneCPU, ms.acrossCPUs} {
		for name, md := range set {
			if md.arch != ARM64 || !slices.Contains(md.notes, arm64Note) {
				t.Errorf("%s: arch %q, notes %v", name, md.arch, md.notes)
			}
			for _, e := range md.edges {
				_, a := gone[e.from]
				_, b := gone[e.to]
				if a || b {
					t.Errorf("%s: %s -> %s, an event arm64 does not trace", name, e.from, e.to)
				}
				for _, w := range x86Words {
					if strings.Contains(e.name+" "+e.what, w) {
						t.Errorf("%s: %q says %q: %s", name, e.name, w, e.what)
					}
				}
			}
			for _, p := range md.paths {
				for _, n := range p.nodes {
					if _, ok := gone[n.kind]; ok {
						t.Errorf("%s, %q: through %s", name, p.name, n.kind)
					}
				}
			}
			for _, o := range md.optional {
				if _, ok := gone[o]; ok {
					t.Errorf("%s: %s optional, and absent", name, o)
				}
			}
		}
	}
	for _, phases := range []string{"kvm-exit", "vm-switch-user"} {
		if _, ok := SplitFor(ARM64, phases, false); ok {
			t.Errorf("arm64 has a %s model", phases)
		}
		if _, ok := SplitFor(AMD64, phases, false); !ok {
			t.Errorf("x86-64 has no %s model", phases)
		}
	}
	for _, phases := range []string{"pipe", "futex", "yield"} {
		if _, ok := SplitFor(ARM64, phases, false); !ok {
			t.Errorf("arm64 has no %s model", phases)
		}
	}
	if _, ok := SplitFor("riscv64", "pipe", false); ok {
		t.Error("a model for an architecture none is written for")
	}
	if p := KindReschedIPI.ProbeOn(ARM64); !strings.Contains(p, "ipi_entry") || KindReschedIPI.ProbeOn(AMD64) != KindReschedIPI.Probe() {
		t.Errorf("the reschedule IPI's probe: arm64 %q, x86-64 %q", p, KindReschedIPI.ProbeOn(AMD64))
	}
}

// An arm64 pipe hop, every boundary it has fired: the switch is one phase
// (no TLB flush or FPU save between sched_switch and sched_exit_tp), and
// the hop closes with the probes named as arm64 names them.
func TestArm64PipeHopCloses(t *testing.T) {
	const hops = 100
	m := synthetic(
		seg{KindSchedExit, KindExitRead, 100, hops, CtxTask},
		seg{KindExitRead, KindEnterWrite, 110, hops, CtxTask},
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
		seg{KindSwitch, KindSchedExit, 170, hops, CtxTask},
		seg{KindWakeup, KindReschedIPI, 3000, 1, CtxTask}, // an IPI inside a phase
	)
	split, ok := SplitFor(ARM64, "pipe", false)
	if !ok {
		t.Fatal("no arm64 pipe model")
	}
	b := split(m, hops)
	if b.Closure < 0.999 || b.Closure > 1.001 || len(b.Unattributed) != 0 {
		t.Fatalf("closure %.4f, unattributed %v:\n%s", b.Closure, b.Unattributed, b.String())
	}
	sw := slices.IndexFunc(b.Phases, func(p Phase) bool { return p.From == KindSwitch })
	if sw < 0 || b.Phases[sw].Name != arm64Switch.name || len(b.Phases[sw].Merged) != 0 {
		t.Fatalf("the switch: %+v", b.Phases)
	}
	last := b.Phases[len(b.Phases)-1]
	if last.Name != "interrupts" || last.NsPerHop != 30 || !strings.Contains(last.Probes, "ipi_entry") {
		t.Errorf("interrupts %+v", last)
	}
	// The same cells through x86-64's model: the switch without its
	// boundaries is x86's merged-or-FPU-less phase, not arm64's.
	x86, _ := SplitFor(AMD64, "pipe", false)
	for _, p := range x86(m, hops).Phases {
		if p.Name == arm64Switch.name {
			t.Errorf("x86-64's model names a phase as arm64's: %+v", p)
		}
	}
}
