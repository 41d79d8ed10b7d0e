package explain

// derive.go: the ladder's steps attributed phase by phase, and the
// published write-up's claimed causes, each with a verdict from what the
// phases show. Computed once from the document, so renderers only render.
//
// A verdict selects phases by what they are — their kinds, their side, the
// kernel events that bound them (model.ExplainPhase) — never by their
// labels, and is drawn at a named threshold its evidence states.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/model"
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

// The thresholds the same-CPU verdicts are drawn at; each verdict's
// evidence states the one it used.
const (
	// fpuSavedPerHop: the outgoing task's FPU state saved on at least this
	// share of hops confirms "Save floating point state".
	fpuSavedPerHop = 0.9
	// tlbNoFlushPerHop: threads of one process flushing the TLB on fewer
	// than this share of hops refutes "TLB may be flushed".
	tlbNoFlushPerHop = 0.05
	// tlbFlushedPerHop: processes whose switches flush the TLB on at least
	// this share of hops confirm "TLB must be flushed".
	tlbFlushedPerHop = 0.5
	// pageTablesPerHop: the page tables switched (flushing or keeping the
	// TLB's entries) on at least this share of hops confirms "Page table
	// switch"; on fewer than noPageTablesPerHop refutes it.
	pageTablesPerHop   = 0.9
	noPageTablesPerHop = 0.1
	// namespaceChange: a step whose interval lies wholly below this change
	// refutes a cost of namespaces.
	namespaceChange = 0.05
	// schedulerShare: the scheduler's phases holding more than this share
	// of the phases' change (with a resolved untraced step) confirms
	// "Control group accounting".
	schedulerShare = 0.5
)

// Derive stores the steps and the claims' verdicts in d.Derived. A dry
// run's figures are synthetic: it derives nothing from them, so no verdict
// is ever printed from a run that measured nothing.
func Derive(d *result.Document) {
	if d.Settings.DryRun {
		return
	}
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

// decisive says a step's change interval may carry a verdict: it exists
// and is at 95% (with too few rounds the paired interval is at its own,
// lower level, and an absent one is zeros, which would read as "no
// change").
func decisive(s *result.ExplainStep) bool { return s.Confidence >= stats.Confidence-1e-9 }

// change is a step's untraced change with its interval, as evidence says
// it.
func change(s *result.ExplainStep) string {
	return fmt.Sprintf("%+.1f%% [%+.1f%%, %+.1f%%]", 100*s.Change, 100*s.ChangeLow, 100*s.ChangeHigh)
}

// step compares two explained rows: the untraced step with its interval
// (their blocks ran in the same rounds: paired), and phase by phase, the
// same phase (by identity) in both.
func step(what string, a, b *result.Result) result.ExplainStep {
	s := result.ExplainStep{What: what, From: a.Name, To: b.Name,
		FromNS: a.OneWayNS.Median, ToNS: b.OneWayNS.Median}
	c := stats.PairedChange(a.Samples, result.BlockSizes(a.BlockInfo), result.BlockRounds(a.BlockInfo),
		b.Samples, result.BlockSizes(b.BlockInfo), result.BlockRounds(b.BlockInfo))
	if c.OK {
		s.Change, s.ChangeLow, s.ChangeHigh, s.Resolved, s.Confidence = c.Ratio-1, c.Lo-1, c.Hi-1, c.Resolved, c.Confidence
	}
	s.Phases, s.TracedDeltaNS = deltas(a.Explain.Phases, b.Explain.Phases, model.ExplainPhase.Identity)
	return s
}

// deltas lines up two rows' phases by key, in the first row's time order
// then the second's new ones, and gives each one's change, largest first,
// and the change of them all. A key several phases of a row share is one
// line, named by the second row's phases (the first's where the second has
// none).
func deltas(from, to []model.ExplainPhase, key func(model.ExplainPhase) string) ([]result.ExplainDelta, float64) {
	type both struct {
		names    []string
		kinds    []model.PhaseKind
		from, to float64
	}
	by := map[string]*both{}
	var order []string
	get := func(p model.ExplainPhase) *both {
		k := key(p)
		x := by[k]
		if x == nil {
			x = &both{}
			by[k] = x
			order = append(order, k)
		}
		for _, kind := range p.Kinds {
			if !slices.Contains(x.kinds, kind) {
				x.kinds = append(x.kinds, kind)
			}
		}
		return x
	}
	for _, p := range from {
		get(p).from += p.NsPerHop
	}
	fromNames := map[string][]string{}
	for _, k := range order {
		fromNames[k] = nil
	}
	for _, p := range from {
		fromNames[key(p)] = appendNew(fromNames[key(p)], p.Name)
	}
	for _, p := range to {
		x := get(p)
		x.to += p.NsPerHop
		x.names = appendNew(x.names, p.Name)
	}
	var out []result.ExplainDelta
	var total float64
	for _, k := range order {
		x := by[k]
		names := x.names
		if len(names) == 0 {
			names = fromNames[k]
		}
		out = append(out, result.ExplainDelta{Name: strings.Join(names, " / "), Kinds: x.kinds, FromNS: x.from, ToNS: x.to, DeltaNS: x.to - x.from})
		total += x.to - x.from
	}
	slices.SortStableFunc(out, func(x, y result.ExplainDelta) int { return cmp.Compare(math.Abs(y.DeltaNS), math.Abs(x.DeltaNS)) })
	return out, total
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// matching adds the phases match selects: their time, and the names of
// those on at least namedPerHop of hops (a path a few hops took by chance
// would bury the hop's own in a list of merged names).
func matching(e *result.Explain, match func(model.ExplainPhase) bool) (ns float64, names []string) {
	for _, p := range e.Phases {
		if match(p) {
			ns += p.NsPerHop
			if p.PerHop >= namedPerHop {
				names = append(names, p.Name)
			}
		}
	}
	return ns, names
}

// namedPerHop is how often a phase must occur to be named in a claim.
const namedPerHop = 0.02

// ofKind selects the phases of any of the kinds.
func ofKind(kinds ...model.PhaseKind) func(model.ExplainPhase) bool {
	return func(p model.ExplainPhase) bool { return p.Is(kinds...) }
}

// stepDelta is the change of the phases of any of the kinds in the step to
// to, if that step was measured.
func stepDelta(steps []result.ExplainStep, to string, kinds ...model.PhaseKind) (float64, *result.ExplainStep) {
	for i, s := range steps {
		if s.To != to {
			continue
		}
		d := 0.0
		for _, p := range s.Phases {
			if slices.ContainsFunc(p.Kinds, func(k model.PhaseKind) bool { return slices.Contains(kinds, k) }) {
				d += p.DeltaNS
			}
		}
		return d, &steps[i]
	}
	return 0, nil
}

// switchProbed says the row's traced blocks had the switch window's
// probes (the TLB flush, the FPU save and restore): the light probe set
// leaves them out, and an event not probed was not counted.
func switchProbed(r *result.Result) bool { return r.Explain.Probes != model.ProbesLight }

// The kernel events the FPU's save and restore are recorded at
// (internal/phase's kind names).
const (
	eventFPUSave = "fpu-save"
	eventFPULoad = "fpu-load"
)

// claims gives each published cause a verdict from the phases, in the
// order of the published table: the OS thread's, the process's, the
// container's, the VM's.
func claims(rows map[string]*result.Result, steps []result.ExplainStep, backend string) []result.ExplainClaim {
	out := []result.ExplainClaim{fpuClaim(rows)}
	out = append(out, tlbClaims(rows, steps)...)
	if c, ok := pageTableClaim(rows); ok {
		out = append(out, c)
	}
	return append(out, namespaceClaim(steps), cgroupClaim(rows, steps), vmcsClaim(rows, backend))
}

// claimOf is a published cause's verdict, with its source.
func claimOf(rung, claim, phases, verdict, evidence string) result.ExplainClaim {
	return result.ExplainClaim{Rung: rung, Claim: claim, Source: claimSource, Phases: phases, Verdict: verdict, Evidence: evidence}
}

// notRun is the evidence of a claim whose rows this run did not measure.
func notRun(name string) string { return "not measured in this run: explain " + name + " measures it" }

// light is the evidence of a claim whose row was traced without the
// switch window's probes.
func light(name string) string {
	return name + " was traced with the light probe set, which counts no TLB flush or FPU save: explain " + name + " with the full set (the default) measures it"
}

// fpuClaim judges the OS thread's "Save floating point state" by the FPU
// saves counted per hop.
func fpuClaim(rows map[string]*result.Result) result.ExplainClaim {
	const claim = "Save floating point state"
	t := rows["thread/pipe"]
	switch {
	case t == nil:
		return claimOf("thread", claim, "", result.VerdictNotMeasured, notRun("thread/pipe"))
	case !switchProbed(t):
		return claimOf("thread", claim, "", result.VerdictNotMeasured, light("thread/pipe"))
	}
	save, restore := t.Explain.Counts["fpu_save"], t.Explain.Counts["fpu_restore"]
	ns, names := matching(t.Explain, func(p model.ExplainPhase) bool { return p.Bounded(eventFPUSave, eventFPULoad) })
	v := result.VerdictConfirmed
	if save < fpuSavedPerHop {
		v = result.VerdictRefuted
	}
	return claimOf("thread", claim, strings.Join(names, "; "), v,
		fmt.Sprintf("the outgoing task's FPU registers are saved %.2f times and restored %.2f times per hop (confirmed from %.2f saves per hop); the phases they bound take %.0f ns of the %.0f ns traced hop (they hold the stack switch and the return to user space too)",
			save, restore, fpuSavedPerHop, ns, t.Explain.TracedMeanNS))
}

// tlbClaims judge the OS thread's "TLB may be flushed" and the process's
// "TLB must be flushed" by the TLB flushes counted per hop: both from
// thread/pipe and process/pipe, or one claim saying why neither is judged.
func tlbClaims(rows map[string]*result.Result, steps []result.ExplainStep) []result.ExplainClaim {
	const must = "TLB must be flushed (different address space)"
	t, p := rows["thread/pipe"], rows["process/pipe"]
	switch {
	case t == nil || p == nil:
		return []result.ExplainClaim{claimOf("process", must, "", result.VerdictNotMeasured, notRun("thread/pipe process/pipe"))}
	case !switchProbed(t) || !switchProbed(p):
		return []result.ExplainClaim{claimOf("process", must, "", result.VerdictNotMeasured, light("thread/pipe process/pipe"))}
	}
	tt, pt := t.Explain.Counts["tlb_flush"], p.Explain.Counts["tlb_flush"]
	v := result.VerdictConfirmed
	if tt < tlbNoFlushPerHop {
		v = result.VerdictRefuted
	}
	may := claimOf("thread", "TLB may be flushed", "(no address-space switch)", v,
		fmt.Sprintf("threads of one process share the address space, so switch_mm loads nothing: %.3f tlb_flush events per hop (refuted below %.2f)", tt, tlbNoFlushPerHop))
	d, _ := stepDelta(steps, "process/pipe", model.PhaseSwitchMM)
	_, names := matching(p.Explain, ofKind(model.PhaseSwitchMM))
	flushed, kept := p.Explain.Counts["tlb_switch_flushed"], p.Explain.Counts["tlb_switch_kept"]
	v = result.VerdictRefuted
	if flushed >= tlbFlushedPerHop {
		v = result.VerdictConfirmed
	}
	return []result.ExplainClaim{may, claimOf("process", must, strings.Join(names, "; "), v,
		fmt.Sprintf("an address-space switch on %.2f of hops (the tlb_flush tracepoint); it flushed the TLB on %.2f per hop and kept the entries (PCID) on %.2f (confirmed from %.2f flushes per hop); the address-space phases add %+.0f ns per hop against threads", pt, flushed, kept, tlbFlushedPerHop, d))}
}

// pageTableClaim judges the process's "Page table switch" — counted, not
// inferred from a phase being there: switch_mm's tlb_flush tracepoint
// fires on every switch of address space, flushing or keeping the TLB's
// entries. Without process/pipe there is no claim (false).
func pageTableClaim(rows map[string]*result.Result) (result.ExplainClaim, bool) {
	const claim = "Page table switch"
	p := rows["process/pipe"]
	switch {
	case p == nil:
		return result.ExplainClaim{}, false
	case !switchProbed(p):
		return claimOf("process", claim, "", result.VerdictNotMeasured, light("process/pipe")), true
	}
	ns, names := matching(p.Explain, ofKind(model.PhaseSwitchMM))
	switches := p.Explain.Counts["tlb_switch_flushed"] + p.Explain.Counts["tlb_switch_kept"]
	v := result.VerdictNotResolved
	switch {
	case switches >= pageTablesPerHop:
		v = result.VerdictConfirmed
	case switches < noPageTablesPerHop:
		v = result.VerdictRefuted
	}
	return claimOf("process", claim, strings.Join(names, "; "), v,
		fmt.Sprintf("switch_mm switched the page tables on %.2f of hops (the tlb_flush tracepoint at each address-space switch, flushing or keeping the TLB; confirmed from %.2f per hop, refuted below %.2f); the address-space phases take %.0f ns per hop",
			switches, pageTablesPerHop, noPageTablesPerHop, ns)), true
}

// namespaceClaim judges the container's "Namespace context switch" by the
// untraced step from container/pipe-plain to container/pipe-ns.
func namespaceClaim(steps []result.ExplainStep) result.ExplainClaim {
	const claim = "Namespace context switch"
	_, s := stepDelta(steps, "container/pipe-ns")
	if s == nil {
		return claimOf("container", claim, "", result.VerdictNotMeasured, notRun("container/pipe-plain container/pipe-ns"))
	}
	// Refuted only when the interval rules out a change worth the name; a
	// wide interval is no evidence either way.
	v := result.VerdictNotResolved
	switch {
	case !decisive(s):
		v = result.VerdictTooFewRounds
	case s.Resolved && s.Change > 0:
		v = result.VerdictConfirmed
	case s.ChangeHigh < namespaceChange:
		v = result.VerdictRefuted
	}
	return claimOf("container", claim, "(no phase of its own)", v,
		fmt.Sprintf("container/pipe-ns against container/pipe-plain: %s (confirmed by a resolved increase, refuted by an interval below %+.0f%%); no kernel phase of a hop belongs to namespaces (they are consulted on system calls that name resources, not on a switch)",
			change(s), 100*namespaceChange))
}

// cgroupClaim judges the container's "Control group accounting" — the
// scheduler's per-level work — by the deepest cgroup step measured.
func cgroupClaim(rows map[string]*result.Result, steps []result.ExplainStep) result.ExplainClaim {
	const claim = "Control group accounting"
	var deep string
	for _, n := range []string{"container/pipe-cg4", "container/pipe-cg2", "container/pipe-cg1", "container/pipe-full"} {
		if _, s := stepDelta(steps, n); s != nil {
			deep = n
			break
		}
	}
	if deep == "" {
		return claimOf("container", claim, "", result.VerdictNotMeasured, notRun("container/pipe-plain container/pipe-cg4"))
	}
	d, s := stepDelta(steps, deep, model.PhaseWakeup, model.PhaseSchedule)
	_, names := matching(rows[deep].Explain, ofKind(model.PhaseWakeup, model.PhaseSchedule))
	v := result.VerdictRefuted
	switch {
	case !decisive(s):
		v = result.VerdictTooFewRounds
	case s.Resolved && s.Change > 0 && d > schedulerShare*s.TracedDeltaNS:
		v = result.VerdictConfirmed
	}
	return claimOf("container", claim, strings.Join(names, "; "), v,
		fmt.Sprintf("%s against container/pipe-plain: %s untraced; traced, the scheduler phases (enqueue, dequeue and pick up the cgroup hierarchy) change by %+.0f ns of the %+.0f ns the phases change in all (confirmed when the untraced step is a resolved increase and they hold more than %.0f%% of it)",
			deep, change(s), d, s.TracedDeltaNS, 100*schedulerShare))
}

// vmcsClaim says the VM's "VMCS updates" cannot be measured here: it needs
// a hardware VM exit and a tracepoint VMCS accesses do not have; the world
// switch's time is given beside it where vm/exit-user ran.
func vmcsClaim(rows map[string]*result.Result, backend string) result.ExplainClaim {
	evidence := fmt.Sprintf("a VMCS exists only with VMX, and VMCS reads and writes have no tracepoint; this host's KVM backend is %q", backend)
	var phases string
	if v := rows["vm/exit-user"]; v != nil {
		ns, names := matching(v.Explain, ofKind(model.PhaseGuest))
		phases = strings.Join(names, "; ")
		evidence += fmt.Sprintf("; vm/exit-user's world switch (the guest's entry, the guest, its exit and the exit's handling) takes %.0f ns of its %.0f ns exit", ns, v.Explain.TracedMeanNS)
	}
	return claimOf("vm", "VMCS (Virtual Machine Control Structure) updates", phases, result.VerdictNotMeasurable, evidence)
}
