package explain

// derive.go: the ladder's steps attributed phase by phase, and the
// published write-up's claimed causes, each with a verdict from what the
// phases show. Computed once from the document, so renderers only render.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// Steps are the ladder's steps explain attributes when both rows ran.
var Steps = []struct{ From, To, What string }{
	{"thread/pipe", "process/pipe", "thread → process (pipe)"},
	{"thread/futex", "process/futex", "thread → process (futex)"},
	{"process/pipe", "process/pipe-mt", "single-threaded → multi-threaded processes"},
	// Container sides are single-threaded processes, as process/pipe's
	// are: like for like.
	{"process/pipe", "container/pipe-plain", "process → process in a container without isolation"},
	{"container/pipe-plain", "container/pipe-ns", "plain → namespaces"},
	{"container/pipe-plain", "container/pipe-cg1", "plain → own cpu cgroup (depth 1)"},
	{"container/pipe-plain", "container/pipe-cg2", "plain → cpu cgroup at depth 2"},
	{"container/pipe-plain", "container/pipe-cg4", "plain → cpu cgroup at depth 4"},
	{"container/pipe-plain", "container/pipe-full", "plain → every isolation"},
}

// Source of the claims: the cost-hierarchy write-up the replicate command
// reproduces ("Context Switching Experiment: Goroutine Switching Cost").
const claimSource = `"Context Switching Experiment: Goroutine Switching Cost", an unattributed write-up`

// Derive stores the steps and the claims' verdicts in d.Derived.
func Derive(d *result.Document) {
	// The ladder's steps and the published causes are about hops on one
	// CPU; hops across CPUs are compared with them below.
	rows := map[string]*result.Result{}
	for i := range d.Results {
		if d.Results[i].Explain != nil && d.Results[i].Placement == "same-cpu" {
			rows[d.Results[i].Name] = &d.Results[i]
		}
	}
	pairs := crossPairs(d)
	if len(rows) == 0 && len(pairs) == 0 {
		return
	}
	x := &result.ExplainDerived{}
	for _, s := range Steps {
		a, b := rows[s.From], rows[s.To]
		if a == nil || b == nil {
			continue
		}
		x.Steps = append(x.Steps, step(s.What, a, b))
	}
	if len(rows) > 0 {
		x.Claims = claims(rows, x.Steps, d.Environment.Virtualization.KVM.Backend)
	}
	for _, p := range pairs {
		st := crossStep(p[0], p[1])
		x.Steps = append(x.Steps, st)
		x.Claims = append(x.Claims, crossClaims(p[0], p[1], st, d.Environment.Virtualization.Guest, d.Environment.Idle.Halts)...)
	}
	if d.Derived == nil {
		d.Derived = &result.Derived{}
	}
	d.Derived.Explain = x
}

// tooFewRounds is the verdict of a cause judged by a step whose interval
// cannot carry one.
const tooFewRounds = "not enough rounds to tell"

// decisive says a step's change interval may carry a verdict: it exists
// and is at 95% (with too few rounds the paired interval is at its own,
// lower level, and an absent one is zeros, which would read as "no
// change").
func decisive(s *result.ExplainStep) bool { return s.Confidence >= stats.Confidence-1e-9 }

// step compares two explained rows: the untraced step with its interval
// (their blocks ran in the same rounds: paired), and phase by phase.
func step(what string, a, b *result.Result) result.ExplainStep {
	s := result.ExplainStep{What: what, From: a.Name, To: b.Name,
		FromNS: a.OneWayNS.Median, ToNS: b.OneWayNS.Median}
	c := stats.PairedChange(a.Samples, result.BlockSizes(a.BlockInfo), result.BlockRounds(a.BlockInfo),
		b.Samples, result.BlockSizes(b.BlockInfo), result.BlockRounds(b.BlockInfo))
	if c.OK {
		s.Change, s.ChangeLow, s.ChangeHigh, s.Resolved, s.Confidence = c.Ratio-1, c.Lo-1, c.Hi-1, c.Resolved, c.Confidence
	}
	from := phaseMap(a.Explain)
	to := phaseMap(b.Explain)
	var names []string
	for _, p := range a.Explain.Phases {
		names = append(names, p.Name)
	}
	for _, p := range b.Explain.Phases {
		if _, ok := from[p.Name]; !ok {
			names = append(names, p.Name)
		}
	}
	for _, n := range names {
		s.Phases = append(s.Phases, result.ExplainDelta{Name: n, FromNS: from[n], ToNS: to[n], DeltaNS: to[n] - from[n]})
		s.TracedDeltaNS += to[n] - from[n]
	}
	slices.SortStableFunc(s.Phases, func(x, y result.ExplainDelta) int { return cmp.Compare(math.Abs(y.DeltaNS), math.Abs(x.DeltaNS)) })
	return s
}

func phaseMap(e *result.Explain) map[string]float64 {
	m := map[string]float64{}
	for _, p := range e.Phases {
		m[p.Name] += p.NsPerHop
	}
	return m
}

// sumPhases adds the phases whose name contains any of words.
func sumPhases(e *result.Explain, words ...string) (ns float64, names []string) {
	for _, p := range e.Phases {
		for _, w := range words {
			if strings.Contains(p.Name, w) {
				ns += p.NsPerHop
				names = append(names, p.Name)
				break
			}
		}
	}
	return ns, names
}

// stepDelta is the change of the phases whose name contains any of words
// in the step from -> to, if that step was measured.
func stepDelta(steps []result.ExplainStep, to string, words ...string) (float64, *result.ExplainStep) {
	for i, s := range steps {
		if s.To != to {
			continue
		}
		d := 0.0
		for _, p := range s.Phases {
			for _, w := range words {
				if strings.Contains(p.Name, w) {
					d += p.DeltaNS
					break
				}
			}
		}
		return d, &steps[i]
	}
	return 0, nil
}

// claims gives each published cause a verdict from the phases.
func claims(rows map[string]*result.Result, steps []result.ExplainStep, backend string) []result.ExplainClaim {
	var out []result.ExplainClaim
	add := func(rung, claim, phases, verdict, evidence string) {
		out = append(out, result.ExplainClaim{Rung: rung, Claim: claim, Source: claimSource, Phases: phases, Verdict: verdict, Evidence: evidence})
	}
	notRun := func(name string) string { return "not measured in this run: explain " + name + " measures it" }

	// OS thread: "Save floating point state".
	if t := rows["thread/pipe"]; t != nil {
		save, restore := t.Explain.Counts["fpu_save"], t.Explain.Counts["fpu_restore"]
		ns, _ := sumPhases(t.Explain, "FPU")
		if save >= 0.9 {
			add("thread", "Save floating point state", "context switch: FPU save …; exit to user: FPU restore",
				"confirmed", fmt.Sprintf("the outgoing task's FPU registers are saved %.2f times and restored %.2f times per hop; the phases they bound take %.0f ns of the %.0f ns traced hop (they hold the stack switch and the return to user space too)",
					save, restore, ns, t.Explain.TracedMeanNS))
		} else {
			add("thread", "Save floating point state", "context switch: FPU save …", "refuted",
				fmt.Sprintf("the FPU registers were saved on %.2f of hops", save))
		}
	} else {
		add("thread", "Save floating point state", "", "not measured", notRun("thread/pipe"))
	}

	// OS thread: "TLB may be flushed"; process: "TLB must be flushed".
	if t, p := rows["thread/pipe"], rows["process/pipe"]; t != nil && p != nil {
		tt, pt := t.Explain.Counts["tlb_flush"], p.Explain.Counts["tlb_flush"]
		add("thread", "TLB may be flushed", "(no address-space switch)", verdictIf(tt < 0.05, "refuted", "confirmed"),
			fmt.Sprintf("threads of one process share the address space, so switch_mm loads nothing: %.3f tlb_flush events per hop", tt))
		d, _ := stepDelta(steps, "process/pipe", "switch_mm", "TLB flush", "mm,")
		flushed, kept := p.Explain.Counts["tlb_switch_flushed"], p.Explain.Counts["tlb_switch_kept"]
		v := "refuted"
		if flushed >= 0.5 {
			v = "confirmed"
		}
		add("process", "TLB must be flushed (different address space)", "context switch: switch_mm up to a TLB flush; TLB flush, switch_to …", v,
			fmt.Sprintf("an address-space switch on %.2f of hops (the tlb_flush tracepoint); it flushed the TLB on %.2f per hop and kept the entries (PCID) on %.2f; the address-space phases add %+.0f ns per hop against threads", pt, flushed, kept, d))
	} else {
		add("process", "TLB must be flushed (different address space)", "", "not measured", notRun("thread/pipe process/pipe"))
	}

	// Process: "Page table switch" — the switch_mm phase.
	if p := rows["process/pipe"]; p != nil {
		ns, names := sumPhases(p.Explain, "switch_mm")
		v := "confirmed"
		if len(names) == 0 {
			v = "refuted"
		}
		add("process", "Page table switch", strings.Join(names, "; "), v,
			fmt.Sprintf("sched_switch up to the tlb_flush tracepoint (switch_mm loading the next page tables): %.0f ns per hop", ns))
	}

	// Container: "Namespace context switch".
	if _, s := stepDelta(steps, "container/pipe-ns"); s != nil {
		// Refuted only when the interval rules out a change worth the
		// name (5%); a wide interval is no evidence either way.
		v := "not resolved here"
		switch {
		case !decisive(s):
			v = tooFewRounds
		case s.Resolved && s.Change > 0:
			v = "confirmed"
		case s.ChangeHigh < 0.05:
			v = "refuted"
		}
		add("container", "Namespace context switch", "(no phase of its own)", v,
			fmt.Sprintf("container/pipe-ns against container/pipe-plain: %+.1f%% [%+.1f%%, %+.1f%%]; no kernel phase of a hop belongs to namespaces (they are consulted on system calls that name resources, not on a switch)", 100*s.Change, 100*s.ChangeLow, 100*s.ChangeHigh))
	} else {
		add("container", "Namespace context switch", "", "not measured", notRun("container/pipe-plain container/pipe-ns"))
	}

	// Container: "Control group accounting" — the scheduler's per-level work.
	sched := []string{"cgroup", "pick next", "schedule()", "wakeup", "block"}
	var deep string
	for _, n := range []string{"container/pipe-cg4", "container/pipe-cg2", "container/pipe-cg1", "container/pipe-full"} {
		if _, s := stepDelta(steps, n); s != nil {
			deep = n
			break
		}
	}
	if deep != "" {
		d, s := stepDelta(steps, deep, sched...)
		v := "refuted"
		switch {
		case !decisive(s):
			v = tooFewRounds
		case s.Resolved && s.Change > 0 && d > 0.5*(s.TracedDeltaNS):
			v = "confirmed"
		}
		add("container", "Control group accounting", "wakeup: …; schedule(): …; block: …; pick next task (the hierarchy walks)", v,
			fmt.Sprintf("%s against container/pipe-plain: %+.1f%% [%+.1f%%, %+.1f%%] untraced; traced, the scheduler phases (enqueue, dequeue and pick up the cgroup hierarchy) change by %+.0f ns of the %+.0f ns the phases change in all",
				deep, 100*s.Change, 100*s.ChangeLow, 100*s.ChangeHigh, d, s.TracedDeltaNS))
	} else {
		add("container", "Control group accounting", "", "not measured", notRun("container/pipe-plain container/pipe-cg4"))
	}

	// Virtual machine: "VMCS updates" — needs a hardware VM exit.
	evidence := fmt.Sprintf("a VMCS exists only with VMX, and VMCS reads and writes have no tracepoint; this host's KVM backend is %q", backend)
	if v := rows["vm/exit-user"]; v != nil {
		ns, _ := sumPhases(v.Explain, "guest entry")
		evidence += fmt.Sprintf("; vm/exit-user's world switch (guest entry, guest, exit and its handling) takes %.0f ns of its %.0f ns exit", ns, v.Explain.TracedMeanNS)
	}
	add("vm", "VMCS (Virtual Machine Control Structure) updates", "guest entry, guest, exit and its handling", "not measurable here", evidence)
	return out
}

func verdictIf(ok bool, yes, no string) string {
	if ok {
		return yes
	}
	return no
}
