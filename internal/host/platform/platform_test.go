package platform

import "testing"

// Every platform answers for every mechanism, and each answer says what
// gives it or why it is missing: a reader of `ctxbench list` on either
// platform is never left with an empty reason.
func TestEveryPlatformAnswersEveryMechanism(t *testing.T) {
	all := Linux.Mechanisms()
	for _, p := range Platforms {
		if len(p.Mechanisms()) != len(all) {
			t.Errorf("%s answers %d mechanisms, Linux %d", p.Name, len(p.Mechanisms()), len(all))
		}
		for _, m := range all {
			a := p.Answer(m)
			switch {
			case a.Gives && (a.How == "" || a.Why != ""):
				t.Errorf("%s %s: gives it, so How and no Why: %+v", p.Name, m, a)
			case !a.Gives && (a.Why == "" || a.How != ""):
				t.Errorf("%s %s: does not give it, so Why and no How: %+v", p.Name, m, a)
			}
			ok, why := p.Gives(m)
			if ok != a.Gives || (!ok && why != a.Why) {
				t.Errorf("%s %s: Gives = %v %q, answer %+v", p.Name, m, ok, why, a)
			}
		}
		if p.Clock == "" || p.Name == "" {
			t.Errorf("%s: no clock or name", p.OS)
		}
	}
}

// What the issue asks macOS to say: no pinning, no containers, no KVM, no
// BPF explain, no perf, no PSS, per-process switch counts only; and its
// own primitives, which Linux does not have.
func TestDarwinSaysWhatItLacks(t *testing.T) {
	for _, m := range []Mechanism{Pinning, Containers, KVM, BPF, PerfEvents, PSS, ThreadSwitches, Futex, Eventfd, DeathSignal, Subreaper, CPUTime, ExecTarget, Topology} {
		if ok, _ := Darwin.Gives(m); ok {
			t.Errorf("macOS gives %s", m)
		}
	}
	for _, m := range []Mechanism{ThreadCPU, ProcessSwitches, WaitOnAddress, KqueueUser} {
		if ok, why := Darwin.Gives(m); !ok {
			t.Errorf("macOS lacks %s: %s", m, why)
		}
	}
	for _, m := range []Mechanism{WaitOnAddress, KqueueUser} {
		if ok, _ := Linux.Gives(m); ok {
			t.Errorf("Linux gives macOS's %s", m)
		}
	}
}
