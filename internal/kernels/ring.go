package kernels

import "github.com/ctxbench/ctxbench/internal/model"

// RingMember is the partner-side kernel of a process ring (ring.c,
// cb_ring_member): Block.FD[0] is the read end of the previous context's
// pipe, FD[1] the write end of this member's pipe, Arg the working-set bytes,
// CPUB the CPU to pin to (-1: none). It passes the token until the stop
// token; Output.B counts its passes (Ops) and its own context switches.
const RingMember Kernel = "ring-member"

// RingConfig is one ring of Tasks contexts passing a token; each sums
// WorkingSet bytes of its own memory per pass (lmbench lat_ctx -s).
type RingConfig struct {
	Tasks      int
	WorkingSet int64
	// StackBytes is each member thread's stack (thread rings); 0: the
	// default.
	StackBytes uint64
	// MinSampleNS is the target sample length when Block.Iters is 0: the
	// head then calibrates the rounds per sample itself.
	MinSampleNS uint64
	// Overhead also measures, after the ring, the token passed through N
	// pipes (or channels) by one context with no switch (see ring.c).
	Overhead bool
	// IPC is what links the contexts of a thread or process ring.
	IPC RingIPC
}

// RingIPC is what carries the token between the contexts of a C ring: a
// pipe (two descriptors) or an eventfd whose counter is the token (one
// descriptor; ring.h).
type RingIPC = model.RingIPC

// The links.
const (
	RingPipe    = model.RingPipe
	RingEventfd = model.RingEventfd
)

// RingOutput is what a ring measured. Output.NS and TSC are the ring's
// samples (RoundsPerSample rounds of Tasks hops each); Output.A counts the
// head, Output.B the other members summed (thread rings).
type RingOutput struct {
	Output
	RoundsPerSample uint64
	Rounds          uint64 // rounds the head made, calibration and warm-up included
	Token           uint64 // hops the token counted
	Passes          uint64 // passes counted by the members other than the head, summed
	MinPasses       uint64 // the fewest and most passes of a single member
	MaxPasses       uint64
	Started         int // member threads started (thread rings)
	Errno           int // errno of a failed thread/pipe/memory allocation, else 0
	// OverheadNS/TSC: one context, the same pipes and the same N working
	// sets; HotNS/TSC: one context, the same pipes, one working set
	// (lmbench's own baseline). Same samples and rounds as the ring.
	OverheadNS, OverheadTSC []uint64
	HotNS, HotTSC           []uint64
}
