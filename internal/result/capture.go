package result

import "github.com/ctxbench/ctxbench/internal/model"

// Capture is a cell's captured hops (ctxbench explain or load with
// --capture-above): the hops past the threshold, kept in the kernel with
// their phases and what else ran on their CPUs, beside the cell's typical
// hops (the median band), phase by phase with intervals over blocks, and
// what the capture itself cost.
type Capture struct {
	// Threshold as given ("p99", "50µs"); Quantile or AboveNS is set.
	Threshold string  `json:"threshold"`
	Quantile  float64 `json:"quantile,omitempty"`
	AboveNS   float64 `json:"above_ns,omitempty"`
	// Method is how hops left the kernel: "ring buffer" or "perf event
	// array" (kernels before 5.8).
	Method string `json:"method"`
	Blocks int    `json:"blocks"`
	// Counts add the blocks up: every hop the kernel saw end, past the
	// threshold, copied out, lost (the buffer full), kept and not kept.
	Counts model.CaptureCounts `json:"counts"`
	// HopNS are the hops' percentiles on the kernel's clock, from the
	// waker's syscall entry to the wakee's return (the median over blocks
	// of each block's, from an in-kernel histogram of every hop).
	HopNS CapturePercentiles `json:"hop_ns"`
	// MedianNS is the sampled hops' median (the median over blocks).
	MedianNS float64 `json:"median_ns"`
	// Cost is what the capture added per hop: capture on against off,
	// both traced, blocks paired by round. Nil without two rounds.
	Cost *CaptureCost `json:"cost"`
	// Slowest are the slowest hops kept, slowest first (at most Keep).
	Slowest []CapturedHop `json:"slowest"`
	// Typical are the hops nearest the median, one per block at most
	// three: what a hop usually is, drawn beside the slowest.
	Typical []CapturedHop `json:"typical"`
	// ExcessNS is what a slow hop takes beyond a typical one (the mean
	// over blocks of each block's difference), with its interval.
	ExcessNS Difference `json:"excess_ns"`
	// Phases are the slow hops' parts against the typical hops', part by
	// part, largest difference first; Causes the same by cause.
	Phases []CapturePhase `json:"phases"`
	Causes []CaptureCause `json:"causes"`
	Notes  []string       `json:"notes,omitempty"`
}

// CapturedHop is one captured hop (the worker's type, with the experiment's
// excess and main cause).
type CapturedHop = model.CapturedHop

// CapturePercentiles are a distribution's p50, p90, p99 and p99.9.
type CapturePercentiles struct {
	P50   float64 `json:"p50"`
	P90   float64 `json:"p90"`
	P99   float64 `json:"p99"`
	P99_9 float64 `json:"p99_9"`
}

// CaptureCost is what the capture costs per hop: Change is the capture
// cells' median hop over the traced cells' minus 1, with its interval at
// Confidence (paired blocks); NSPerHop the same per round in ns with the
// order-statistic interval; KernelNSPerHop the kernel's own account of the
// time it spent copying hops out, per hop.
type CaptureCost struct {
	Change         float64   `json:"change"`
	Low            float64   `json:"low"`
	High           float64   `json:"high"`
	Confidence     float64   `json:"confidence"`
	NSPerHop       *Interval `json:"ns_per_hop"`
	KernelNSPerHop float64   `json:"kernel_ns_per_hop"`
	Rounds         int       `json:"rounds"`
}

// Difference is a per-block difference summarised over blocks: the
// Hodges–Lehmann centre and the signed-rank interval at Confidence
// (stats.ShiftInterval); Blocks is how many blocks had both sides.
type Difference struct {
	NS         float64 `json:"ns"`
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	Blocks     int     `json:"blocks"`
}

// Resolved says the interval holds no zero.
func (d Difference) Resolved() bool { return d.Blocks >= 2 && (d.Low > 0 || d.High < 0) }

// CapturePhase is one part of a hop, slow against typical: the mean over
// blocks of each side (ns per hop), the difference with its interval, and
// its share of the excess.
type CapturePhase struct {
	Name  string            `json:"name"`
	Cause model.Cause       `json:"cause"`
	Kinds []model.PhaseKind `json:"kinds,omitempty"`
	From  string            `json:"from,omitempty"`
	To    string            `json:"to,omitempty"`
	CPU   string            `json:"cpu,omitempty"`
	// Tasks are the other tasks this part holds (another task's time).
	Tasks     []model.Task `json:"tasks,omitempty"`
	SlowNS    float64      `json:"slow_ns"`
	TypicalNS float64      `json:"typical_ns"`
	Delta     Difference   `json:"delta"`
	Share     float64      `json:"share_of_excess"`
}

// CaptureCause is the same by cause.
type CaptureCause struct {
	Cause     model.Cause  `json:"cause"`
	Tasks     []model.Task `json:"tasks,omitempty"`
	SlowNS    float64      `json:"slow_ns"`
	TypicalNS float64      `json:"typical_ns"`
	Delta     Difference   `json:"delta"`
	Share     float64      `json:"share_of_excess"`
}

// The captured hops' vocabulary, for the renderers (which read results,
// not the worker's model).
type (
	// Cause is what a part of a captured hop's time was.
	Cause = model.Cause
	// Task is another task that ran on a captured hop's CPU.
	Task = model.Task
	// HopPhase is one part of a captured hop.
	HopPhase = model.HopPhase
)

// The causes (model.Cause).
const (
	CauseWork         = model.CauseWork
	CauseOtherWork    = model.CauseOtherWork
	CauseOtherTask    = model.CauseOtherTask
	CauseInterrupts   = model.CauseInterrupts
	CauseIPIFlight    = model.CauseIPIFlight
	CauseIdleExit     = model.CauseIdleExit
	CauseIdle         = model.CauseIdle
	CauseUnattributed = model.CauseUnattributed
	CauseUnrecorded   = model.CauseUnrecorded
)

// Causes lists the causes in the order reports show them.
func Causes() []Cause { return model.Causes() }
