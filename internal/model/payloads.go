package model

// RingIPC is what carries the token between the contexts of a C ring.
type RingIPC int

// The links: a pipe (two descriptors) or an eventfd whose counter is the
// token (one descriptor).
const (
	RingPipe    RingIPC = 0
	RingEventfd RingIPC = 1
)

// String names the link as the command line takes it.
func (i RingIPC) String() string {
	if i == RingEventfd {
		return "eventfd"
	}
	return "pipe"
}

// RingParams are a ring block's parameters.
type RingParams struct {
	Tasks       int     `json:"tasks"`         // contexts in the ring
	WorkingSet  int64   `json:"working_set"`   // bytes each context sums per pass
	MinSampleNS int64   `json:"min_sample_ns"` // target sample length when Request.Iters is 0
	StackBytes  int64   `json:"stack_bytes"`   // member thread stack (thread rings); 0: the default
	IPC         RingIPC `json:"ipc"`
	// Container is the container preset of every member but the head
	// (container rings), by name.
	Container string `json:"container,omitempty"`
}

// RingData is what a ring block counted beyond the ring's samples (in
// Response.NS/TSC), the head's counts (Response.A) and the other members'
// counts summed (Response.B).
type RingData struct {
	Tasks           int      `json:"tasks"`
	WorkingSet      int64    `json:"working_set"`
	RoundsPerSample uint64   `json:"rounds_per_sample"`
	Rounds          uint64   `json:"rounds"`     // head's rounds: calibration + warm-up + samples
	Token           uint64   `json:"token"`      // hops the token counted
	Passes          uint64   `json:"passes"`     // members 1..N-1, each counting its own passes
	MinPasses       uint64   `json:"min_passes"` // the fewest and most passes of one member
	MaxPasses       uint64   `json:"max_passes"`
	Errno           int      `json:"errno,omitempty"` // errno of a failed creation
	OverheadNS      []uint64 `json:"overhead_ns"`     // one context, same pipes/channels, same N working sets
	OverheadTSC     []uint64 `json:"overhead_tsc"`
	HotNS           []uint64 `json:"hot_ns"` // one context, same pipes/channels, one working set (lmbench)
	HotTSC          []uint64 `json:"hot_tsc"`
	// Container and ContainersVerified: what each member's container is
	// made of, and how many members were verified from outside.
	Container          string `json:"container,omitempty"`
	ContainersVerified int    `json:"containers_verified,omitempty"`
}

// KVMData is what KVM itself counted over a vm block: its vCPU statistics
// divided by the block's ops (exits, insn_emulation, halt_exits, ...; a
// statistic the kernel lacks is absent), and the guest mode the block ran
// ("kernel": CPL0, "user": CPL3, "real"), as internal/kvm names it.
type KVMData struct {
	GuestMode string             `json:"guest_mode"`
	PerOp     map[string]float64 `json:"per_op"`
}

// SpawnData describes a creation measurement (its samples are the
// response's NS: nanoseconds per creation).
type SpawnData struct {
	Context string   `json:"context"` // goroutine, thread, process, container, vm, runtime (...)
	Op      string   `json:"op"`      // what one creation is
	Label   string   `json:"label"`
	Notes   []string `json:"notes,omitempty"`
}

// MemoryParams are a memory measurement's parameters.
type MemoryParams struct {
	N        int  `json:"n"`         // contexts to hold; 0: the kind's default
	NoSettle bool `json:"no_settle"` // don't wait for /proc/meminfo to settle
}

// MemoryData is what holding many contexts of one kind cost, per context.
type MemoryData struct {
	Kind      string `json:"kind"`
	Context   string `json:"context"`
	Label     string `json:"label"`
	Requested int    `json:"requested"`
	Reached   int    `json:"reached"`
	Limit     string `json:"limit,omitempty"` // why fewer than requested
	// Per-context bytes (see result.Memory for each).
	RSS, PSS, Virtual                   float64
	KernelStack, PageTables, Slab       float64
	Charged, ChargedUser, ChargedKernel float64
	Runtime                             float64 `json:"runtime,omitempty"`
	RuntimeMetric                       string  `json:"runtime_metric,omitempty"`
	// CreateNS is the time to create the contexts divided by their number.
	CreateNS float64  `json:"create_ns_per_context,omitempty"`
	Limits   []string `json:"limits,omitempty"` // the system limits that bound N, as read
	Notes    []string `json:"notes,omitempty"`
}
