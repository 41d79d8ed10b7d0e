package render_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
)

func ptr(v float64) *float64 { return &v }

// explainDoc has a same-CPU row on both scales (one phase marked) and a
// cross-CPU row of the light probe set without an untraced scale.
func explainDoc() *result.Document {
	same := result.Result{Name: "thread/pipe", Placement: "same-cpu", Explain: &result.Explain{
		Blocks: 10, UntracedOneWayNS: 3400, TracedOneWayNS: 6100, TracedMeanNS: 6500, UntracedMeanNS: 3500,
		ProbeCost: 0.79, ProbeCostLow: 0.7, ProbeCostHigh: 0.9, Closure: 0.99, KernelClosure: 0.99, KernelHopNS: 6540,
		FiringsPerHop: 21.3, Probes: "full", UntracedClosure: ptr(0.98),
		ProbeNsPerFiring: &result.Interval{Median: 41.2, Low: 37, High: 46.1, Confidence: 0.9785, Rounds: 10},
		Phases: []result.ExplainPhase{
			{Name: "write(): copy into the pipe", NsPerHop: 394, PerHop: 0.59, Firings: 0.59, UntracedNs: ptr(370)},
			{Name: "wakeup: psi, preemption check", NsPerHop: 19.6, PerHop: 0.02, Firings: 1, UntracedNs: ptr(-21.6), UntracedUnreliable: true},
		}}}
	cross := result.Result{Name: "process/pipe", Placement: "cross-cpu", Explain: &result.Explain{
		Blocks: 10, UntracedOneWayNS: 5000, TracedOneWayNS: 7000, TracedMeanNS: 7200, UntracedMeanNS: 5100, Closure: 0.97,
		Probes: "light", FiringsPerHop: 8,
		ProbeNsPerFiring: &result.Interval{Median: 250, Low: 100, High: 400, Confidence: 0.9375, Rounds: 5},
		Phases: []result.ExplainPhase{
			{Name: "write() up to the wakeup", NsPerHop: 900, PerHop: 1, CPU: "waker"},
			{Name: "the IPI in flight", NsPerHop: 1500, PerHop: 1, CPU: "between"},
			{Name: "wakee: schedule, switch, return", NsPerHop: 4600, PerHop: 1, CPU: "wakee"},
		}}}
	return &result.Document{Results: []result.Result{same, cross}}
}

// Each phase shows its traced ns and its untraced ns beside it; the header
// gives the probes' cost per firing with its interval and level and the
// closure on both scales; a marked phase carries the mark, explained once;
// the light set and the CPU sides are said; a row without the untraced
// scale has no column for it.
func TestExplainBothScales(t *testing.T) {
	var b bytes.Buffer
	render.Explain(render.Fit(&b, render.Style{Wide: true}), explainDoc())
	out := b.String()
	i := strings.Index(out, "process/pipe cross-cpu")
	if i < 0 {
		t.Fatalf("no cross-cpu row:\n%s", out)
	}
	same, cross := out[:i], out[i:]
	for _, want := range []string{
		"probes: 41.2 ns per firing [37.0, 46.1] (97.9%), 21.3 firings per hop",
		"the phases sum to 99% of the traced hop (mean 6.50 µs), and on the untraced scale to 98% of the untraced hop (mean 3.50 µs)",
		"UNTRACED", "FIRINGS",
	} {
		if !strings.Contains(same, want) {
			t.Errorf("the same-cpu row lacks %q:\n%s", want, same)
		}
	}
	if l := tableLine(t, same, "write(): copy into the pipe", "394"); !strings.Contains(l, "  370  ") || strings.Contains(l, "†") {
		t.Errorf("phase line %q: want 394 traced and 370 untraced, unmarked", l)
	}
	if l := tableLine(t, same, "wakeup: psi", "19.6"); !strings.Contains(l, "-21.6 †") {
		t.Errorf("phase line %q: want the untraced -21.6 marked", l)
	}
	if strings.Count(out, "† not trustworthy on the untraced scale") != 1 {
		t.Errorf("the mark is not explained exactly once:\n%s", out)
	}
	for _, want := range []string{"probes (the light set: syscalls, wakeup and switch only): 250 ns per firing [100, 400] (93.8%)", "CPU"} {
		if !strings.Contains(cross, want) {
			t.Errorf("the cross-cpu row lacks %q:\n%s", want, cross)
		}
	}
	if l := tableLine(t, cross, "the IPI in flight", "between"); !strings.Contains(l, "1500") {
		t.Errorf("phase line %q", l)
	}
	if strings.Contains(cross, "UNTRACED") || strings.Contains(cross, "untraced scale") || strings.Contains(same, "  CPU  ") {
		t.Errorf("a column or closure without its data:\n%s", out)
	}
}

// Phases a hop takes only by chance (on under 2% of hops, under 0.5% of
// it) fold into one "rare paths" line; the hop's own path and its
// interrupts stay; the waker's CPU's time meanwhile is printed apart.
func TestExplainFoldsRarePaths(t *testing.T) {
	d := explainDoc()
	e := d.Results[1].Explain
	e.Phases = append(e.Phases,
		result.ExplainPhase{Name: "IPI: handler returns + idle-state exit", NsPerHop: 14, PerHop: 0.005, CPU: "wakee"},
		result.ExplainPhase{Name: "idle-state exit + idle loop: leave", NsPerHop: 0.2, PerHop: 0.001, CPU: "wakee"},
		result.ExplainPhase{Name: "interrupts", NsPerHop: 10, PerHop: 0.01, CPU: "wakee"})
	e.Parallel = []result.ExplainPhase{{Name: "idle: waiting for the partner", NsPerHop: 9000, PerHop: 1, CPU: "waker"}}
	var b bytes.Buffer
	render.Explain(&b, d)
	out := b.String()
	for _, want := range []string{"rare paths (2 phases", "interrupts", "the IPI in flight",
		"meanwhile on the waker's CPU (in parallel with the hop, not part of it): 9.00 µs per hop", "idle: waiting for the partner"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "idle-state exit + idle loop") {
		t.Errorf("a rare path is printed on its own:\n%s", out)
	}
}
