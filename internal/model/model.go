// Package model is ctxbench's vocabulary: the rungs of the ladder, the
// placements, what a benchmark is, and the typed messages a worker process
// receives and answers for each experiment (ladder blocks, ring blocks,
// creation and memory measurements).
//
// It imports nothing of ctxbench: every other package may use it, and the
// scheduler can be built and tested with it alone.
package model

import (
	"fmt"
	"strings"
)

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

// The levels of the CPU topology, each a placement on two CPUs like
// cross-cpu, at the pair the environment recorded for it (internal/host's
// Level, result.Environment's topology). A cross-CPU figure without its
// level is ambiguous: these say which hop it is.
const (
	SMTSibling   Placement = "smt-sibling"   // two hardware threads of one core
	SameLLC      Placement = "same-llc"      // different cores sharing the last-level cache
	OtherLLC     Placement = "other-llc"     // one package and NUMA node, different last-level caches
	OtherNode    Placement = "other-node"    // one package, different NUMA nodes
	OtherPackage Placement = "other-package" // different sockets
	PToE         Placement = "p-to-e"        // a performance core waking an efficiency core
)

// Levels lists the topology levels, nearest first.
var Levels = []Placement{SMTSibling, SameLLC, OtherLLC, OtherNode, OtherPackage, PToE}

// AllPlacements lists the placements in display order: the levels after
// cross-cpu, of which each is a kind.
var AllPlacements = []Placement{SameCPU, CrossCPU, SMTSibling, SameLLC, OtherLLC, OtherNode, OtherPackage, PToE, Unpinned}

// IsLevel reports whether p is a level of the CPU topology: two CPUs, as
// for cross-cpu, but the pair the topology recorded for that level.
func (p Placement) IsLevel() bool {
	for _, l := range Levels {
		if p == l {
			return true
		}
	}
	return false
}

// TwoCPUs reports whether p pins the two contexts to two CPUs: cross-cpu
// or a level of the topology.
func (p Placement) TwoCPUs() bool { return p == CrossCPU || p.IsLevel() }

// PlacementNames is the placements' names, for help and error text:
// "same-cpu, cross-cpu, smt-sibling, ... or unpinned".
func PlacementNames(conj string) string {
	var b strings.Builder
	for i, p := range AllPlacements {
		switch {
		case i == len(AllPlacements)-1:
			b.WriteString(" " + conj + " ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(string(p))
	}
	return b.String()
}

// ParsePlacement accepts a placement name.
func ParsePlacement(s string) (Placement, error) {
	for _, p := range AllPlacements {
		if string(p) == s {
			return p, nil
		}
	}
	return "", fmt.Errorf("unknown placement %q (want %s)", s, PlacementNames("or"))
}

// Kind separates switches from reference rows.
type Kind string

// The kinds of result.
const (
	Switch  Kind = "switch"
	RefKind Kind = "reference"
)
