package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// capture.go: the slow-hop capture (ctxbench explain and ctxbench load with
// --capture-above): a threshold, and a traced block's captured hops as the
// worker sends them.

// Threshold is when a hop is captured: past an absolute duration
// (AboveNs), or past the running Quantile of its cell's hops (0.99 for
// "p99"). Exactly one is set.
type Threshold struct {
	AboveNs  int64   `json:"above_ns,omitempty"`
	Quantile float64 `json:"quantile,omitempty"`
}

// The relative thresholds offered: from the median up to one hop in ten
// thousand (the in-kernel estimate needs that many hops per CPU to settle).
const (
	MinCaptureQuantile = 0.5
	MaxCaptureQuantile = 0.9999
)

// ParseThreshold reads --capture-above: a duration ("50us", "1.5ms") above
// zero, or a percentile of the cell's hops ("p99", "p99.9") from p50 to
// p99.99. The error is one line that says what is wrong with the value;
// the command line, which parses the flag, names it.
func ParseThreshold(s string) (Threshold, error) {
	v := strings.TrimSpace(s)
	if q, ok := strings.CutPrefix(strings.ToLower(v), "p"); ok {
		p, err := strconv.ParseFloat(q, 64)
		if err != nil || math.IsNaN(p) || math.IsInf(p, 0) {
			return Threshold{}, errors.New("a percentile is p followed by a number, like p99 or p99.9")
		}
		if p/100 < MinCaptureQuantile || p/100 > MaxCaptureQuantile {
			return Threshold{}, fmt.Errorf("a percentile must be from p%g to p%g", 100*MinCaptureQuantile, 100*MaxCaptureQuantile)
		}
		return Threshold{Quantile: p / 100}, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return Threshold{}, errors.New("want a duration above zero (50us, 1ms) or a percentile of the cell's hops (p99, p99.9)")
	}
	if d <= 0 {
		return Threshold{}, errors.New("a duration must be above zero")
	}
	if d > time.Minute {
		return Threshold{}, errors.New("a hop longer than a minute is not a hop")
	}
	return Threshold{AboveNs: d.Nanoseconds()}, nil
}

// String is the threshold as the flag takes it.
func (t Threshold) String() string {
	if t.Quantile > 0 {
		return "p" + strconv.FormatFloat(100*t.Quantile, 'f', -1, 64)
	}
	return time.Duration(t.AboveNs).String()
}

// CaptureRequest asks a traced block to capture its slow hops: past
// Threshold, the Keep slowest and as many others sampled evenly kept, and
// about Samples hops of all sampled for the typical ones.
type CaptureRequest struct {
	Threshold Threshold `json:"threshold"`
	Keep      int       `json:"keep"`
	Samples   int       `json:"samples"`
}

// Cause is what a piece of a captured hop's time was: the categories rtla
// timerlat's auto-analysis uses for a timer's wake-up (IRQ and thread
// interference, a blocking thread, exit from idle), extended to a hop from
// one task to another.
type Cause string

// The causes.
const (
	// CauseWork is the hop's own work: the phases of its model (syscalls,
	// wakeup, scheduler, switch, user space).
	CauseWork Cause = "own-work"
	// CauseOtherTask is waiting while another task ran on the CPU the hop
	// was on (named by its comm and pid).
	CauseOtherTask Cause = "other-task"
	// CauseInterrupts is hard and soft interrupts, the timer tick and IPIs
	// that landed on the hop's path.
	CauseInterrupts Cause = "interrupts"
	// CauseIPIFlight is the wakee's idle CPU until the wakeup's IPI reached
	// it: the interrupt's delivery and the idle state's own wake-up (in a
	// guest, the host's share of waking a halted vCPU is inside it).
	CauseIPIFlight Cause = "ipi-flight"
	// CauseIdleExit is leaving the idle state: the idle loop, the pick from
	// idle, the switch from the idle task.
	CauseIdleExit Cause = "idle-exit"
	// CauseOtherWork is other work of the hop's own tasks: syscalls and
	// code its model does not hold (a load generator's timer and signal,
	// a benchmark's loop between two samples).
	CauseOtherWork Cause = "other-work"
	// CauseIdle is a CPU idle inside a hop on one CPU: nothing of the hop's
	// could run (a stopped task, a throttled group).
	CauseIdle Cause = "idle"
	// CauseUnattributed is time the phase model does not know.
	CauseUnattributed Cause = "not-attributed"
	// CauseUnrecorded is time the copied entries do not reach (the ring
	// had moved on).
	CauseUnrecorded Cause = "not-recorded"
)

// Causes lists the causes in the order reports show them.
func Causes() []Cause {
	return []Cause{CauseWork, CauseOtherWork, CauseOtherTask, CauseInterrupts, CauseIPIFlight, CauseIdleExit, CauseIdle, CauseUnattributed, CauseUnrecorded}
}

// Known says the cause is one of the hop's named parts (closure counts
// these; not attributed and not recorded are not).
func (c Cause) Known() bool { return c != CauseUnattributed && c != CauseUnrecorded }

// Task is another task that ran on a hop's CPU. PID is the kernel's pid
// of the task, which for a thread is its thread id. Self says it was one of
// ctxbench's own: a thread of the measuring worker that is not one of the
// measured sides (its Go runtime, the harness around the timed loop), so a
// reader does not go looking for another program.
type Task struct {
	Comm string `json:"comm"`
	PID  int    `json:"pid"`
	Self bool   `json:"self,omitempty"`
}

func (t Task) String() string {
	if t.Self {
		return fmt.Sprintf("%s (pid %d), ctxbench's own worker: its harness, not a measured side", t.Comm, t.PID)
	}
	return fmt.Sprintf("%s (pid %d)", t.Comm, t.PID)
}

// HopPhase is one part of a captured hop: a phase of the model (with its
// identity, as ExplainPhase has it), another task's time, interrupts, the
// IPI's flight... ns on the kernel's clock.
type HopPhase struct {
	Name  string      `json:"name"`
	Cause Cause       `json:"cause"`
	Kinds []PhaseKind `json:"kinds,omitempty"`
	From  string      `json:"from,omitempty"`
	To    string      `json:"to,omitempty"`
	CPU   string      `json:"cpu,omitempty"` // the side, on a hop across CPUs
	Task  *Task       `json:"task,omitempty"`
	Ns    float64     `json:"ns"`
	Count int         `json:"count"` // pieces of the hop it gathers
}

// Key is the phase's identity within and across hops: its cause, side,
// bounding events and kinds, and for another task's time the task's name
// (pids differ between blocks; the name does not).
func (p HopPhase) Key() string {
	k := string(p.Cause) + "|" + p.CPU + "|" + p.From + ">" + p.To
	for _, x := range p.Kinds {
		k += "|" + string(x)
	}
	if p.Cause == CauseOtherTask && p.Task != nil {
		k += "|" + p.Task.Comm
	}
	if p.Cause == CauseUnattributed || p.Cause == CauseInterrupts {
		k += "|" + p.Name
	}
	return k
}

// HopPiece is a stretch of a captured hop on one CPU, for drawing it as
// lanes on one time axis: its CPU, its start after the hop's and its
// length, and the phase it belongs to (an index into the hop's Phases).
type HopPiece struct {
	CPU   int     `json:"cpu"`
	AtNs  float64 `json:"at_ns"`
	Ns    float64 `json:"ns"`
	Phase int     `json:"phase"`
}

// CapturedHop is one hop the flight recorder kept: from the waker's
// syscall entry to the wakee's return from its syscall, on the kernel's
// clock; the CPUs it crossed; its parts.
type CapturedHop struct {
	Ns       float64 `json:"ns"`
	Slow     bool    `json:"slow"`
	WakerCPU int     `json:"waker_cpu"`
	WakeeCPU int     `json:"wakee_cpu"`
	WakerPID int     `json:"waker_pid"`
	WakeePID int     `json:"wakee_pid"`
	// Migrated: the wakee ran last on another CPU than the one it was
	// woken on (its time is spread over the phases: cold caches).
	Migrated bool `json:"migrated"`
	// Threshold is what it was judged against (0 in a relative
	// threshold's warm-up).
	ThresholdNs float64 `json:"threshold_ns"`
	// Phases, in time order of first appearance; their known causes sum to
	// Closure × Ns.
	Phases  []HopPhase `json:"phases"`
	Pieces  []HopPiece `json:"pieces,omitempty"`
	Closure float64    `json:"closure"`
	// Truncated: the copied entries did not reach back to the hop's start
	// on some CPU (that stretch is "not recorded").
	Truncated bool `json:"truncated,omitempty"`
	// Round is the block's round (set by the experiment).
	Round int `json:"round"`
	// Weight, for a slow hop kept as a sample of the rest (not among the
	// slowest), is how many slow hops it stands for in its block.
	Weight float64 `json:"weight,omitempty"`
	// ExcessNs and Main, set by the experiment: what the hop took beyond
	// its cell's typical hop, and the part that took most of it.
	ExcessNs float64  `json:"excess_ns,omitempty"`
	Main     *HopMain `json:"main,omitempty"`
}

// HopMain is the part of a slow hop that took most of its excess over a
// typical hop: Ns beyond the typical hops' same part, Share of the excess.
type HopMain struct {
	Name  string  `json:"name"`
	Cause Cause   `json:"cause"`
	Task  *Task   `json:"task,omitempty"`
	Ns    float64 `json:"ns"`
	Share float64 `json:"share"`
}

// CaptureCounts are what happened to a block's hops.
type CaptureCounts struct {
	Hops       uint64 `json:"hops"`        // ended in the window (hops with a wakeup)
	Warmup     uint64 `json:"warmup"`      // in a relative threshold's warm-up: not judged
	Past       uint64 `json:"past"`        // past the threshold
	Copied     uint64 `json:"copied"`      // slow hops copied out of the kernel
	Lost       uint64 `json:"lost"`        // slow hops the buffer refused (full)
	Kept       uint64 `json:"kept"`        // slow hops kept (the slowest and a sample of the rest)
	NotKept    uint64 `json:"not_kept"`    // slow hops copied out and not kept
	Sampled    uint64 `json:"sampled"`     // hops copied out as samples of all hops
	SampleLost uint64 `json:"sample_lost"` // samples the buffer refused
	Typical    uint64 `json:"typical"`     // samples in the median band, kept as typical
	Truncated  uint64 `json:"truncated"`   // kept hops whose entries did not reach their start
	// Boundary are slow hops in which the benchmark's tasks made other
	// syscalls (its loop between two samples, outside the timed ones):
	// counted, not kept.
	Boundary uint64 `json:"boundary"`
	Stale    uint64 `json:"stale"` // hops begun before the window, dropped
}

// Capture is a traced block's capture, as the worker sends it.
type Capture struct {
	Threshold Threshold `json:"threshold"`
	// Method is how hops left the kernel: "ring buffer" or "perf event
	// array".
	Method string `json:"method"`
	// CrossCopy: the kernel could copy another CPU's entries (Linux 5.19+);
	// without it a hop across CPUs has only the wakee's CPU.
	CrossCopy bool          `json:"cross_copy"`
	Counts    CaptureCounts `json:"counts"`
	// HopNs are the block's hops' p50, p90, p99 and p99.9 on the kernel's
	// clock (from an in-kernel histogram of every hop, 16 buckets per
	// power of two); MedianNs the sampled hops' median (exact values).
	P50Ns    float64 `json:"p50_ns"`
	P90Ns    float64 `json:"p90_ns"`
	P99Ns    float64 `json:"p99_ns"`
	P99_9Ns  float64 `json:"p99_9_ns"`
	MedianNs float64 `json:"median_ns"`
	// CaptureNsPerHop is the time the kernel spent copying hops, per hop.
	CaptureNsPerHop float64       `json:"capture_ns_per_hop"`
	Slow            []CapturedHop `json:"slow"`
	Typical         []CapturedHop `json:"typical"`
	Notes           []string      `json:"notes,omitempty"`
}
