package result

import "github.com/ctxbench/ctxbench/internal/model"

// Derived holds the figures computed from several rows of a document, so
// that renderers only render: the "× baseline" multiples' reference, the VM
// decomposition, and the published hierarchy set beside what was measured.
type Derived struct {
	// Baseline is the row every "× baseline" multiple divides by.
	Baseline *BaselineRef `json:"baseline,omitempty"`
	// VM splits the vm rows as docs/vm.md describes.
	VM *VMDecomposition `json:"vm_decomposition,omitempty"`
	// Hierarchy is the published cost hierarchy, row by row, beside the
	// ctxbench figure that measures each row; Claims its creation and
	// memory claims beside what was measured.
	Hierarchy []HierarchyRow `json:"hierarchy,omitempty"`
	Claims    []ClaimRow     `json:"claims,omitempty"`
	// Explain attributes the ladder's steps phase by phase and judges the
	// published causes (ctxbench explain).
	Explain *ExplainDerived `json:"explain,omitempty"`
}

// ExplainDerived is what ctxbench explain derives from several rows.
type ExplainDerived struct {
	Steps  []ExplainStep  `json:"steps,omitempty"`
	Claims []ExplainClaim `json:"claims,omitempty"`
}

// ExplainStep is a step of the ladder (thread → process, plain → cgroup):
// the untraced medians, the change with its interval (blocks paired by
// round), and phase by phase on the kernel's clock, largest change first.
type ExplainStep struct {
	What       string  `json:"what"`
	From       string  `json:"from"`
	To         string  `json:"to"`
	FromNS     float64 `json:"from_ns"`
	ToNS       float64 `json:"to_ns"`
	Change     float64 `json:"change"`
	ChangeLow  float64 `json:"change_low"`
	ChangeHigh float64 `json:"change_high"`
	Resolved   bool    `json:"resolved"`
	// Confidence is the change interval's level (0: no interval); a
	// verdict is drawn only from an interval at 95%.
	Confidence    float64        `json:"confidence"`
	TracedDeltaNS float64        `json:"traced_delta_ns"` // the phases' sum, to − from
	Phases        []ExplainDelta `json:"phases"`
}

// ExplainDelta is one phase in a step: the same phase (by its identity,
// model.ExplainPhase.Identity) in both rows, or across placements the same
// kernel transition.
type ExplainDelta struct {
	Name string `json:"name"`
	// Kinds is what work the phase is (the kinds of its phases in both
	// rows): what a verdict selects it by.
	Kinds   []model.PhaseKind `json:"kinds,omitempty"`
	FromNS  float64           `json:"from_ns"`
	ToNS    float64           `json:"to_ns"`
	DeltaNS float64           `json:"delta_ns"`
}

// The verdicts of an ExplainClaim.
const (
	VerdictConfirmed = "confirmed"
	VerdictRefuted   = "refuted"
	// VerdictNotResolved: the data show no difference, but could not rule
	// one out.
	VerdictNotResolved = "not resolved here"
	// VerdictTooFewRounds: the step's interval is below 95% or missing.
	VerdictTooFewRounds = "not enough rounds to tell"
	// VerdictNotMeasurable: nothing this machine can probe measures it.
	VerdictNotMeasurable = "not measurable here"
	// VerdictNotMeasured: this run did not measure what would tell.
	VerdictNotMeasured = "not measured"
	// VerdictInPart: the cause held on some of the hops and not on the
	// others (across CPUs: a busy CPU, a polling one); the evidence says on
	// how many.
	VerdictInPart = "in part"
)

// ExplainClaim is a published cause of a rung's cost, the phases it
// corresponds to, and a verdict (Verdict*), with its evidence: the figures
// it was drawn from and the thresholds it was drawn at.
type ExplainClaim struct {
	Rung string `json:"rung"`
	// Step, for a cause of a placement's extra cost (a hop across CPUs
	// against the same benchmark on one CPU), names it: "cross-cpu
	// thread/pipe". Empty for a rung's own causes.
	Step     string `json:"step,omitempty"`
	Claim    string `json:"claim"`
	Source   string `json:"source"`
	Phases   string `json:"phases,omitempty"`
	Verdict  string `json:"verdict"`
	Evidence string `json:"evidence"`
}

// BaselineRef names the baseline row and why it was chosen.
type BaselineRef struct {
	Name      string  `json:"name"`
	Placement string  `json:"placement"`
	MedianNS  float64 `json:"median_ns"`
	Why       string  `json:"why"`
}

// VMDecomposition puts the vm rows side by side (same CPU, medians): what
// returning to the VMM adds to an exit, and what a VM-to-VM hop costs
// beyond a process hop and an exit. A part is nil when its rows were not
// measured (or, for the exit, were not one real exit per op of one guest
// mode). The stored parts are the rows' medians and differences of those
// medians, so that they add up; each interval is the difference taken
// round by round, and its median (the figure the views print) can differ
// from the stored difference.
type VMDecomposition struct {
	Exit   *VMExitParts   `json:"exit,omitempty"`
	Switch *VMSwitchParts `json:"switch,omitempty"`
}

// VMExitParts: exit-user = exit-kernel + the return to the VMM, all three
// from the rows' medians.
type VMExitParts struct {
	ExitUserNS    float64 `json:"exit_user_ns"`
	ExitKernelNS  float64 `json:"exit_kernel_ns"`
	ReturnToVMMNS float64 `json:"return_to_vmm_ns"`
	// ReturnToVMMInterval is the difference taken round by round (the two
	// rows' blocks ran interleaved): the median of the per-round
	// differences, with its interval.
	ReturnToVMMInterval *Interval `json:"return_to_vmm_interval,omitempty"`
}

// Interval is a derived figure's interval: the median of its per-round
// values and their order-statistic interval at Confidence. A difference
// whose interval holds 0 (a ratio: 1) is not resolved here.
type Interval struct {
	Median     float64 `json:"median"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	Rounds     int     `json:"rounds"`
}

// Holds says whether x lies inside the interval.
func (i *Interval) Holds(x float64) bool { return i != nil && i.Low <= x && x <= i.High }

// VMSwitchParts: a VM-to-VM hop = a process hop + an exit to user space +
// a residual (another VM's vcpu_put/vcpu_load, cache effects), all from the
// rows' medians.
type VMSwitchParts struct {
	HopNS        float64 `json:"hop_ns"`
	ProcessHopNS float64 `json:"process_hop_ns"`
	ExitNS       float64 `json:"exit_ns"`
	ResidualNS   float64 `json:"residual_ns"`
	// ResidualInterval is the residual taken round by round: the median of
	// the per-round residuals, with its interval.
	ResidualInterval *Interval `json:"residual_interval,omitempty"`
}

// HierarchyRow is one row of the published hierarchy table and the
// ctxbench figure that measures it.
type HierarchyRow struct {
	Abstraction       string `json:"abstraction"`
	Published         string `json:"published"`          // per switch, as published
	PublishedMultiple string `json:"published_multiple"` // of the published baseline
	// PublishedLowNS and PublishedHighNS are Published as numbers, ns per
	// switch (equal where the source states one figure; null in files
	// written before they were recorded): what a chart draws, so no
	// reader parses the text back.
	PublishedLowNS  *float64 `json:"published_low_ns,omitempty"`
	PublishedHighNS *float64 `json:"published_high_ns,omitempty"`
	Name            string   `json:"name"` // the ctxbench row
	Placement       string   `json:"placement"`
	MedianNS        *float64 `json:"median_ns"` // null: not measured (Why says why)
	// Multiple is the row's multiple of the baseline as the ladder
	// stores and prints it: its MultipleInterval's median where there is
	// one, else its Multiple.
	Multiple       *float64 `json:"multiple_of_baseline,omitempty"`
	SwitchesPerHop *float64 `json:"switches_per_hop,omitempty"`
	Verified       bool     `json:"verified,omitempty"`
	Why            string   `json:"why,omitempty"`
	Note           string   `json:"note,omitempty"`
}

// ClaimRow is a published claim about creation or memory beside the
// measurement that answers it.
type ClaimRow struct {
	Name      string `json:"name"` // spawn/KIND or memory/KIND
	Published string `json:"published"`
	Measured  string `json:"measured"`
}
