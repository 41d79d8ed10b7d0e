package phase

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/model"
)

// Phase is one part of a hop: the time between two probe events, per hop.
type Phase struct {
	Name string `json:"name"`
	// What the kernel does between the two events, in one line.
	What string `json:"what"`
	// Kinds is what work the phase is: the kind of the model's phase, or
	// of each phase a merged one spans. Verdicts select by it, not Name.
	Kinds []model.PhaseKind `json:"kinds"`
	// From and To are the probe events that bound the phase (From opens
	// it, To closes it). For the interrupts phase both are KindNone
	// (interrupts land anywhere in the hop); for the time between two
	// CPUs, From is the event on the first CPU and To KindNone.
	From, To Kind `json:"-"`
	// Probes names them: "sys_exit, read -> x86_fpu_regs_activated".
	Probes string `json:"probes"`
	// NsPerHop is the phase's total time divided by the hops.
	NsPerHop float64 `json:"ns_per_hop"`
	// PerHop is how many times per hop the phase occurred: below 1 for a
	// path only some hops take, above 1 for work repeated in a hop.
	PerHop float64 `json:"per_hop"`
	// MeanNs is the mean of one occurrence.
	MeanNs float64 `json:"mean_ns"`
	// Firings is the probe firings per hop inside the phase: one per
	// occurrence (the event that closes it; a merged phase's skipped
	// boundaries did not fire), two per interrupt (entry and exit).
	Firings float64 `json:"firings_per_hop"`
	// Side, on a hop across CPUs, is whose CPU the phase ran on; empty for
	// a hop on one CPU.
	Side model.Side `json:"cpu,omitempty"`
	// Merged lists the phases of the model this one spans when optional
	// boundaries between them did not fire (nil for a phase of the model).
	Merged []string `json:"merged,omitempty"`
	Cell   Cell     `json:"-"`
}

// Gap is work a phase contains that the available probes cannot separate.
type Gap struct {
	Work   string `json:"work"`
	Inside string `json:"inside"` // the phase(s) whose time includes it
	Needs  string `json:"needs"`  // the boundary that would separate it
}

// Breakdown is a Matrix read through a phase model.
type Breakdown struct {
	Model  string `json:"model"`
	Method string `json:"method"`
	Hops   uint64 `json:"hops"`
	// TracedNs is every cell of the matrix: the traced time (for one CPU,
	// its span from the first to the last recorded event).
	TracedNs       uint64  `json:"traced_ns"`
	TracedNsPerHop float64 `json:"traced_ns_per_hop"`
	// Phases in time order, then the interrupts that landed inside them.
	Phases []Phase `json:"phases"`
	// Parallel, on a hop across CPUs, is what the waker's CPU did while
	// the hop went on elsewhere (finishing its syscall, going to sleep,
	// idling): measured, shown, never added to the hop.
	Parallel []Phase `json:"parallel,omitempty"`
	// Other are the cells of time the CPU gave to untracked tasks or to
	// idle inside the traced span: every cell that starts or ends at a
	// switch to or from another task or idle (the switches included).
	// Shown, not hidden, and not part of the hop.
	Other         []Transition `json:"-"`
	OtherNsPerHop float64      `json:"other_ns_per_hop"`
	// Unattributed are the cells the model does not explain (setup before
	// and after the hops, paths the model does not know), most time first.
	Unattributed         []Transition `json:"-"`
	UnattributedNsPerHop float64      `json:"unattributed_ns_per_hop"`
	// HopNsPerHop is the traced time less Other, per hop: what the hops
	// themselves took.
	HopNsPerHop float64 `json:"hop_ns_per_hop"`
	// Closure is the phases' sum over HopNsPerHop: 1 when the model
	// explains all the traced time that was not another task's.
	Closure float64 `json:"closure"`
	// FiringsPerHop is every recorded probe firing per hop: each event
	// (those counted inside interrupts too) and each interrupt's exit.
	FiringsPerHop float64 `json:"firings_per_hop"`
	// PerHop are event counts per hop: switches, preemptions, wakeups,
	// need-resched requests, ...
	PerHop map[string]float64 `json:"per_hop_counts"`
	Gaps   []Gap              `json:"gaps"`
	Notes  []string           `json:"notes,omitempty"`
}

// edge is one phase of a model: a transition a hop is expected to make,
// what work it is, and its label.
type edge struct {
	from, to Kind
	kind     model.PhaseKind
	name     string
	what     string
	// ctx is the context the transition's segment opens in: CtxIdle for
	// the idle task's events on the wakee's CPU of a hop across CPUs,
	// CtxTask for everything else.
	ctx Context
	// Across CPUs: whose CPU it runs on, and whether it runs in parallel
	// with the hop (the waker's CPU after its part: finishing its syscall,
	// blocking, idling) rather than on the hop's path.
	side     model.Side
	parallel bool
}

// node is an event in a context: what a model's phases start and end at.
type node struct {
	kind Kind
	ctx  Context
}

// path is a sequence of events one CPU's timeline goes through, back to
// where it began: a hop on one CPU, or one CPU's turn as the wakee, the
// waker and in parallel on a hop across two. The models list the paths
// hops take; a test proves each is made of the model's phases (or of
// another task's time, on a busy CPU), every phase is on one, and the
// model attributes each step to its phase.
type path struct {
	name  string
	nodes []node
}

// phaseModel describes a kind of hop as the transitions it goes through,
// in time order. A transition between two of its events that skips only
// optional boundaries (events that do not fire every time, or whose probe
// a kernel lacks) is the chain of phases it spans, merged.
type phaseModel struct {
	name string
	// arch is the architecture whose kernel the model's boundaries are
	// (arch.go): "" is x86-64's, the reference.
	arch string
	// cross: a hop across two CPUs, read from both CPUs' matrices added
	// up (crosscpu.go); its edges say their side.
	cross bool
	// wake and sleep are the syscall a hop's waker wakes its partner in
	// (its entry) and the one the woken partner returns from (its exit):
	// where a captured hop begins and ends (KindNone: the model's hops
	// wake nobody).
	wake, sleep Kind
	optional    []Kind
	edges       []edge
	paths       []path
	gaps        []Gap
	notes       []string
}

// attribution is what a cell of the matrix is, for a model.
type attribution struct {
	first  int     // the index of the (first) model phase it is
	order  float64 // position in time: the first phase's index, merged phases just after it
	name   string
	what   string
	kinds  []model.PhaseKind
	merged []string
}

// attribute finds the phase of the model a transition belongs to: the
// edge with its context and kinds, else the shortest chain of edges from
// -> to through optional events only, whose first edge opens in the
// transition's context (the skipped events did not fire, so the segment
// stayed in the context it opened in).
func (md *phaseModel) attribute(x Context, from, to Kind) (attribution, bool) {
	for i, e := range md.edges {
		if e.ctx == x && e.from == from && e.to == to {
			return attribution{first: i, order: float64(i), name: e.name, what: e.what, kinds: []model.PhaseKind{e.kind}}, true
		}
	}
	type chain struct {
		at    Kind
		edges []int
	}
	queue := []chain{{at: from}}
	seen := map[Kind]bool{from: true}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		for i, e := range md.edges {
			if e.from != c.at || (len(c.edges) == 0 && e.ctx != x) {
				continue
			}
			edges := append(slices.Clip(c.edges), i)
			if e.to == to && len(edges) > 1 {
				a := attribution{first: edges[0], order: float64(edges[0]) + 0.5}
				var whats []string
				for _, j := range edges {
					a.merged = append(a.merged, md.edges[j].name)
					whats = append(whats, md.edges[j].what)
					if !slices.Contains(a.kinds, md.edges[j].kind) {
						a.kinds = append(a.kinds, md.edges[j].kind)
					}
				}
				a.name = strings.Join(a.merged, " + ")
				a.what = strings.Join(whats, "; ")
				return a, true
			}
			if !seen[e.to] && slices.Contains(md.optional, e.to) {
				seen[e.to] = true
				queue = append(queue, chain{e.to, edges})
			}
		}
	}
	return attribution{}, false
}

// nodes are the events the model's phases start or end at.
func (md *phaseModel) nodes() map[Kind]bool {
	n := map[Kind]bool{}
	for _, e := range md.edges {
		n[e.from], n[e.to] = true, true
	}
	return n
}

// isForeign: the kind is a switch to or from another task or idle, or an
// event of the idle task a tracked task left a CPU to: on one CPU, time
// that is not the hop's.
func isForeign(k Kind) bool {
	switch k {
	case KindSwitchToOther, KindSwitchFromOther, KindSwitchToIdle, KindSwitchFromIdle,
		KindIdleEnter, KindIdleExit, KindIPIIn, KindIPIOut:
		return true
	}
	return false
}

// isOtherTask: the kind is a switch to or from another task. Across CPUs,
// idle and what ends it are the hop's; only other tasks' time is not.
func isOtherTask(k Kind) bool { return k == KindSwitchToOther || k == KindSwitchFromOther }

// probes names the tracepoints of a transition on the model's architecture.
func (md *phaseModel) probes(from, to Kind) string {
	return from.ProbeOn(md.arch) + " -> " + to.ProbeOn(md.arch)
}

// breakdown reads m through a model of a hop on one CPU, for hops hops.
func (md *phaseModel) breakdown(m *Matrix, hops uint64) Breakdown {
	if md.cross {
		return md.crossBreakdown(m, hops)
	}
	b, h := newBreakdown(md.name, md.gaps, md.notes, m, hops)
	if h == 0 {
		return b
	}
	var phases []placed
	irq := interrupts(md.arch)
	nodes := md.nodes()
	var attributed, other uint64
	for _, t := range m.Transitions() {
		// On one CPU the idle task's time is not the hop's: the CPU had
		// nothing of the hop's to run.
		if t.Ctx == CtxIdle || isForeign(t.From) || isForeign(t.To) {
			b.Other = append(b.Other, t)
			other += t.Ns
			continue
		}
		if t.To.IsInterrupt() && nodes[t.From] {
			irq.Cell.add(&t.Cell)
			attributed += t.Ns
			continue
		}
		a, ok := md.attribute(t.Ctx, t.From, t.To)
		if !ok {
			b.Unattributed = append(b.Unattributed, t)
			continue
		}
		attributed += t.Ns
		phases = append(phases, placed{a.order, md.phaseOf(a, t, h)})
	}
	b.Phases = inOrder(phases, irq, h)
	b.OtherNsPerHop = float64(other) / h
	b.FiringsPerHop = float64(m.Firings()) / h
	b.HopNsPerHop = float64(b.TracedNs-other) / h
	if b.TracedNs > other {
		b.Closure = float64(attributed) / float64(b.TracedNs-other)
	}
	b.UnattributedNsPerHop = nsOf(b.Unattributed) / h
	b.PerHop = perHopCounts(m, irq.Cell.Count, h)
	return b
}

// interrupts is the phase that gathers the interrupts landing inside the
// hop's phases, on arch.
func interrupts(arch string) Phase {
	return Phase{Name: "interrupts", Kinds: []model.PhaseKind{model.PhaseInterrupts},
		What:   "hard and soft interrupts, timer ticks and IPIs that landed inside the hop's phases (their time is not in the phases)",
		Probes: interruptProbes(arch)}
}

// newBreakdown starts a model's reading of m: its identity and the traced
// time, and the hops as a divisor (0, with a note, when there are none).
func newBreakdown(name string, gaps []Gap, notes []string, m *Matrix, hops uint64) (Breakdown, float64) {
	b := Breakdown{Model: name, Method: MethodRawTracepoints, Hops: hops, TracedNs: m.TracedNs(), Gaps: gaps, Notes: notes}
	if hops == 0 {
		b.Notes = append(slices.Clip(b.Notes), "no hops: nothing to divide by")
		return b, 0
	}
	b.TracedNsPerHop = float64(b.TracedNs) / float64(hops)
	return b, float64(hops)
}

// phaseOf is transition t read as the model's phase a, per hop: one
// probe firing per occurrence (the event that closes it).
func (md *phaseModel) phaseOf(a attribution, t Transition, hops float64) Phase {
	return Phase{Name: a.name, What: a.what, Kinds: a.kinds, From: t.From, To: t.To, Probes: md.probes(t.From, t.To),
		NsPerHop: float64(t.Ns) / hops, PerHop: float64(t.Count) / hops, MeanNs: t.Mean(),
		Firings: float64(t.Count) / hops, Merged: a.merged, Cell: t.Cell}
}

// placed is a phase with its position in the hop's time order.
type placed struct {
	order float64
	Phase
}

// inOrder is the phases in time order (stable: merged phases stay just
// after the one they start with), then the interrupts that landed in
// them, if any.
func inOrder(phases []placed, irq Phase, hops float64) []Phase {
	slices.SortStableFunc(phases, func(x, y placed) int { return cmp.Compare(x.order, y.order) })
	var out []Phase
	for _, p := range phases {
		out = append(out, p.Phase)
	}
	if irq.Cell.Count > 0 {
		irq.NsPerHop, irq.PerHop, irq.MeanNs = float64(irq.Cell.Ns)/hops, float64(irq.Cell.Count)/hops, irq.Cell.Mean()
		irq.Firings = 2 * irq.PerHop
		out = append(out, irq)
	}
	return out
}

// nsOf is the transitions' time added up.
func nsOf(ts []Transition) float64 {
	var n uint64
	for _, t := range ts {
		n += t.Ns
	}
	return float64(n)
}

// perHopCounts are the event counts every model reports per hop.
func perHopCounts(m *Matrix, interrupts uint64, hops float64) map[string]float64 {
	return map[string]float64{
		"switches_out": float64(m.SwitchesOut) / hops,
		"switches_in":  float64(m.SwitchesIn) / hops,
		"preempted":    float64(m.Preempted) / hops,
		"wakeups":      float64(m.Events[KindWaking]) / hops,
		"need_resched": float64(m.Events[KindNeedResched]) / hops,
		"interrupts":   float64(interrupts) / hops,
	}
}

// SumPhases is the phases' ns per hop added up.
func (b *Breakdown) SumPhases() float64 {
	var s float64
	for _, p := range b.Phases {
		s += p.NsPerHop
	}
	return s
}

// String renders the breakdown as a plain table.
func (b *Breakdown) String() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s — %s, %d hops, traced %.1f ns/hop\n", b.Model, b.Method, b.Hops, b.TracedNsPerHop)
	for _, p := range b.Phases {
		fmt.Fprintf(&sb, "  %9.1f ns  %5.2f/hop  %-50s  %s\n", p.NsPerHop, p.PerHop, p.Name, p.Probes)
	}
	fmt.Fprintf(&sb, "  %9.1f ns  unattributed\n", b.UnattributedNsPerHop)
	fmt.Fprintf(&sb, "  %9.1f ns  other tasks and idle (not part of the hop)\n", b.OtherNsPerHop)
	fmt.Fprintf(&sb, "  closure %.3f (phases %.1f ns / hop time %.1f ns per hop)\n", b.Closure, b.SumPhases(), b.HopNsPerHop)
	return sb.String()
}
