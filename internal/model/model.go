// Package model is ctxbench's vocabulary: the rungs of the ladder, the
// placements, what a benchmark is, and the typed messages a worker process
// receives and answers for each experiment (ladder blocks, ring blocks,
// creation and memory measurements).
//
// It imports nothing of ctxbench: every other package may use it, and the
// scheduler can be built and tested with it alone.
package model

import "fmt"

// Rung is a level of the ladder.
type Rung string

// The rungs, cheapest first.
const (
	Floor     Rung = "floor"
	Coroutine Rung = "coroutine"
	Goroutine Rung = "goroutine"
	Runtime   Rung = "runtime"
	Thread    Rung = "thread"
	Process   Rung = "process"
	Container Rung = "container"
	VM        Rung = "vm"
	Reference Rung = "reference"
)

// RungOrder is the order of the ladder.
var RungOrder = []Rung{Floor, Coroutine, Goroutine, Runtime, Thread, Process, Container, VM, Reference}

// RungIndex is r's position in RungOrder (len(RungOrder) when unknown).
func RungIndex(r Rung) int {
	for i, x := range RungOrder {
		if x == r {
			return i
		}
	}
	return len(RungOrder)
}

// Placement says where the two contexts run.
type Placement string

// The placements. They measure different quantities and are never mixed.
const (
	SameCPU  Placement = "same-cpu"  // both pinned to one CPU: the direct switch cost
	CrossCPU Placement = "cross-cpu" // pinned to two CPUs: wake-up latency, IPIs, idle exit
	Unpinned Placement = "unpinned"  // wherever the scheduler puts them: often bimodal
)

// AllPlacements lists the placements in display order.
var AllPlacements = []Placement{SameCPU, CrossCPU, Unpinned}

// ParsePlacement accepts a placement name.
func ParsePlacement(s string) (Placement, error) {
	for _, p := range AllPlacements {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown placement %q (want same-cpu, cross-cpu or unpinned)", s)
}

// Kind separates switches from reference rows.
type Kind string

// The kinds of result.
const (
	Switch  Kind = "switch"
	RefKind Kind = "reference"
)
