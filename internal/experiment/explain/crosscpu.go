package explain

// crosscpu.go: what a hop across CPUs costs beyond the same hop on one
// CPU, and the causes performance engineers name for it (the IPI, the idle
// CPU's exit, in a guest the vCPU's halt and the host's wake-up, cache
// lines moving between CPUs), each judged by the cross-CPU phase model's
// phases and counts.

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// crossSource is where the causes judged here come from: what tools that
// look at a cross-CPU wakeup name (perf sched timehist's wakeup latency,
// runqlat's run-queue latency, wult's idle-state exit latency) and what a
// guest adds (halt-polling in KVM's documentation).
const crossSource = "the usual explanations of a cross-CPU wakeup's latency (perf sched timehist, runqlat, wult; KVM's halt-polling documentation)"

// Cache transfer thresholds: the phases the two placements share (the same
// kernel transitions) must be this much slower across CPUs, relative and
// absolute, before their slowdown is called the cache's. The traced
// blocks' phase means carry no interval of their own, so the bar sits well
// above their block-to-block spread (a few percent on this kind of host).
const (
	cacheRelative = 0.25
	cacheAbsNs    = 200.0
	cacheSameNs   = 0.05 // within this, the shared phases did not change
)

// crossPairs finds, for each benchmark explained at one CPU and across
// CPUs in the same run, the two rows.
func crossPairs(d *result.Document) [][2]*result.Result {
	same := map[string]*result.Result{}
	for i := range d.Results {
		r := &d.Results[i]
		if r.Explain != nil && r.Placement == "same-cpu" {
			same[r.Name] = r
		}
	}
	var out [][2]*result.Result
	for i := range d.Results {
		r := &d.Results[i]
		if r.Explain == nil || !isCross(r.Explain) {
			continue
		}
		if s := same[r.Name]; s != nil {
			out = append(out, [2]*result.Result{s, r})
		}
	}
	return out
}

// isCross: the explanation is of a hop across CPUs (its phases say their
// side).
func isCross(e *result.Explain) bool {
	return slices.ContainsFunc(e.Phases, func(p result.ExplainPhase) bool { return p.CPU != "" })
}

// crossStep compares a hop on one CPU with the same benchmark's hop across
// CPUs: the untraced change with its interval (the four cells ran in the
// same rounds), and phase by phase by kernel transition (the events that
// bound each phase), so that the same work on both placements lines up,
// whatever the models call it.
func crossStep(a, b *result.Result) result.ExplainStep {
	s := result.ExplainStep{What: "same CPU → " + b.Placement + " (" + b.Name + ")", From: a.Name + " same-cpu", To: b.Name + " " + b.Placement,
		FromNS: a.OneWayNS.Median, ToNS: b.OneWayNS.Median}
	c := stats.PairedChange(a.Samples, result.BlockSizes(a.BlockInfo), result.BlockRounds(a.BlockInfo),
		b.Samples, result.BlockSizes(b.BlockInfo), result.BlockRounds(b.BlockInfo))
	if c.OK {
		s.Change, s.ChangeLow, s.ChangeHigh, s.Resolved, s.Confidence = c.Ratio-1, c.Lo-1, c.Hi-1, c.Resolved, c.Confidence
	}
	s.Phases, s.TracedDeltaNS = deltas(a.Explain.Phases, b.Explain.Phases, transition)
	return s
}

// transition is the kernel transition a phase is, whichever side it ran
// on; a phase that is no transition on one CPU (the interrupts, the time
// between two CPUs' events) is its identity.
func transition(p model.ExplainPhase) string {
	if p.From == "" && p.To == "" || p.OnSide() == model.SideBetween {
		return p.Identity()
	}
	return p.From + ">" + p.To
}

// shared are the phases both placements have (the same transition): the
// same kernel work, on one CPU and across two.
func shared(s result.ExplainStep) (from, to float64, names []string) {
	for _, p := range s.Phases {
		if p.FromNS > 0 && p.ToNS > 0 {
			from += p.FromNS
			to += p.ToNS
			names = append(names, p.Name)
		}
	}
	return from, to, names
}

// The thresholds of the cross-CPU verdicts: an event on at least
// crossAllPerHop of hops confirms the cause it shows, on fewer than
// crossNonePerHop refutes it, and in between the cause holds for part of
// the hops (the others took another path: a busy CPU, a polling one).
const (
	crossAllPerHop  = 0.9
	crossNonePerHop = 0.1
)

// byShare is the verdict of a cause seen on perHop of hops.
func byShare(perHop float64) string {
	switch {
	case perHop >= crossAllPerHop:
		return result.VerdictConfirmed
	case perHop < crossNonePerHop:
		return result.VerdictRefuted
	}
	return result.VerdictInPart
}

// crossClaims judges the causes of a cross-CPU hop's extra cost by the
// pair's phases (one CPU, a, against across CPUs, b) and step.
func crossClaims(a, b *result.Result, s result.ExplainStep, guest bool, halts *bool) []result.ExplainClaim {
	e := b.Explain
	rung, step := b.Rung, b.Placement+" "+b.Name
	extra := e.TracedMeanNS - a.Explain.TracedMeanNS
	var out []result.ExplainClaim
	add := func(claim, phases, verdict, evidence string) {
		out = append(out, result.ExplainClaim{Rung: rung, Step: step, Claim: claim, Source: crossSource, Phases: phases, Verdict: verdict, Evidence: evidence})
	}
	// A share is of the traced cross-CPU hop: the causes overlap (the
	// IPI's handler does the same enqueue a same-CPU wakeup does), so
	// shares of the difference would not add up either way; the
	// difference is said beside.
	share := func(ns float64) string {
		return fmt.Sprintf("%.0f ns per hop, %.0f%% of the %.0f ns traced hop across CPUs (which costs %+.0f ns beyond one CPU's)",
			ns, 100*ns/math.Max(e.TracedMeanNS, 1), e.TracedMeanNS, extra)
	}
	thresholds := fmt.Sprintf("confirmed from %.2f per hop, refuted below %.2f, in part between", crossAllPerHop, crossNonePerHop)
	busy := e.Counts["busy_wakeups"]
	busyNote := ""
	if busy > 0 {
		busyNote = fmt.Sprintf("; on %.2f of hops the wakee's CPU was running another task: the waker enqueued the wakee there and a reschedule IPI made that task give way", busy)
	}

	// The IPI: sending it, its flight, the handler that runs the wake list
	// (or, to a busy CPU, the reschedule that makes its task give way).
	ipis, sent := e.Counts["idle_ipis"], e.Counts["ipis_sent"]
	ipiNs, ipiNames := matching(e, func(p model.ExplainPhase) bool { return p.OnSide() == model.SideBetween || p.Is(model.PhaseIPI) })
	add("the wakeup crosses CPUs by an inter-processor interrupt (IPI)", strings.Join(ipiNames, "; "), byShare(ipis+busy),
		fmt.Sprintf("the wakee's idle CPU took %.2f IPIs per hop, a busy one %.2f reschedule IPIs that ended in a switch to the wakee (%.2f sent by the waker; %s); the send, its flight and the handler take %s",
			ipis, busy, sent, thresholds, share(ipiNs)))

	// The idle CPU's exit: from the IPI's return to the woken task running.
	enters := e.Counts["idle_enters"]
	idleNs, idleNames := matching(e, func(p model.ExplainPhase) bool {
		return p.OnSide() == model.SideWakee && p.Is(model.PhaseIdleExit)
	})
	v := byShare(enters)
	if idleNs == 0 && v != result.VerdictRefuted {
		v = result.VerdictNotMeasured // entered idle, but no exit phase was traced
	}
	add("the wakee's CPU must leave an idle state", strings.Join(idleNames, "; "), v,
		fmt.Sprintf("the wakee's CPU entered an idle state %.2f times per hop (%s)%s; leaving it and switching from the idle task take %s (the idle state's own wake-up latency is inside the IPI's flight)",
			enters, thresholds, busyNote, share(idleNs)))

	// In a guest: the vCPU halts, and only the host can wake it.
	switch {
	case !guest:
		add("the halted vCPU must be woken by the host", "", result.VerdictNotMeasurable, "not a virtual machine guest: there is no host to wake a vCPU")
	case halts != nil && !*halts:
		add("the halted vCPU must be woken by the host", "", result.VerdictRefuted,
			"this guest's idle CPUs do not halt (idle=poll or halt-polling): a vCPU waiting for its partner stays running")
	default:
		flight, names := matching(e, func(p model.ExplainPhase) bool { return p.OnSide() == model.SideBetween })
		how := "how an idle vCPU waits is not known here"
		if halts != nil {
			how = "an idle vCPU halts here (HLT exits to the host)"
		}
		add("the halted vCPU must be woken by the host", strings.Join(names, "; "), result.VerdictNotMeasurable,
			fmt.Sprintf("%s, and the wakee's vCPU went idle %.2f times per hop; the host's share (taking the APIC write, waking the vCPU's thread, entering the guest) lies inside the phases between the CPUs, %s, which a guest's probes cannot split",
				how, enters, share(flight)))
	}

	// Cache lines: the same kernel work, slower when its data was last
	// written on the other CPU.
	from, to, names := shared(s)
	v = result.VerdictNotResolved
	switch {
	case from <= 0:
		v = result.VerdictNotMeasured
	case to-from >= cacheRelative*from && to-from >= cacheAbsNs:
		v = result.VerdictConfirmed
	case math.Abs(to-from) <= cacheSameNs*from:
		v = result.VerdictRefuted
	}
	add("cache lines move between the CPUs (the pipe or futex word, the task, the runqueue)", strings.Join(names, "; "), v,
		fmt.Sprintf("the phases both placements share (the same kernel transitions) take %.0f ns per hop across CPUs against %.0f on one (%+.0f ns, %+.0f%%; judged from the traced blocks' means: confirmed from +%.0f%% and +%.0f ns, refuted within ±%.0f%%)",
			to, from, to-from, 100*(to-from)/math.Max(from, 1), 100*cacheRelative, cacheAbsNs, 100*cacheSameNs))
	return out
}
