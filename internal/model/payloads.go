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

// LoadParams are a block of the load experiment: Contexts woken contexts
// served by one open-loop generator posting Rate requests per second for
// DurationNS (constant gaps, or exponential when Poisson, from Seed), each
// request WorkIters iterations of the work loop; requests intended before
// WarmupNS are served but not measured, and what is still pending DrainNS
// after the schedule ends is left unserved (and counted). Request.CPUA is
// the generator's CPU, CPUB the contexts' (-1: not pinned).
type LoadParams struct {
	Contexts   int     `json:"contexts"`
	Rate       float64 `json:"rate"`
	Poisson    bool    `json:"poisson,omitempty"`
	Seed       uint64  `json:"seed,omitempty"`
	DurationNS int64   `json:"duration_ns"`
	WarmupNS   int64   `json:"warmup_ns"`
	WorkIters  uint64  `json:"work_iters"`
	DrainNS    int64   `json:"drain_ns,omitempty"`
	// KeepBusy keeps the contexts' CPU from idling between requests (a
	// SCHED_IDLE spinner that every request preempts).
	KeepBusy bool `json:"keep_busy,omitempty"`
}

// The histogram layout of the load kernel: HdrHistogram's (Gil Tene,
// https://github.com/HdrHistogram/HdrHistogram) for 1 ns to 1e11 ns at 2
// significant digits, whose counts array (hdrhistogram-go's New(1, 1e11,
// 2)) has LoadHistCounts entries; a value and its bucket's ends differ by
// at most 1/128.
const (
	LoadHistLowest  = 1
	LoadHistHighest = 100_000_000_000
	LoadHistFigures = 2
	LoadHistCounts  = 3968
)

// The histograms of a load block, by name: the generator's lag, and over
// the contexts the wake-up latency, the request latency corrected (from
// the intended time) and uncorrected (from the post), the service time
// and the queueing of requests that found their context awake.
const (
	HistLag         = "lag"
	HistWake        = "wake"
	HistCorrected   = "corrected"
	HistUncorrected = "uncorrected"
	HistService     = "service"
	HistQueue       = "queue"
)

// LoadHist is a histogram in HdrHistogram's layout (internal/kernels'
// LoadHist*: 1 ns to 1e11 ns, 2 significant digits), sparse: the counts at
// Index[i] are Count[i]. N values were recorded, the largest Max ns.
type LoadHist struct {
	N     uint64   `json:"n"`
	Max   uint64   `json:"max"`
	Index []int    `json:"index"`
	Count []uint64 `json:"count"`
}

// LoadData is what a load block measured (internal/kernels' load.c says
// what each figure is). Times are nanoseconds.
type LoadData struct {
	Scheduled         uint64 `json:"scheduled"`          // requests on the schedule, warm-up included
	MeasuredScheduled uint64 `json:"measured_scheduled"` // of them, intended after the warm-up
	Posted            uint64 `json:"posted"`
	Dropped           uint64 `json:"dropped"`  // every mailbox full
	Unserved          uint64 `json:"unserved"` // posted, still pending when the drain ran out
	Measured          uint64 `json:"measured"` // served, intended after the warm-up
	Hops              uint64 `json:"hops"`     // of them, a context slept and was woken by the request
	Queued            uint64 `json:"queued"`   // of them, the context was awake already
	// WindowNS is the first intended time to the last end; MeasuredNS the
	// end of the warm-up to the last end; ScheduleNS the end of the warm-up
	// to the last intended time.
	WindowNS   int64 `json:"window_ns"`
	MeasuredNS int64 `json:"measured_ns"`
	ScheduleNS int64 `json:"schedule_ns"`
	// LoadCPUNS is the CPU time spent on the contexts' CPUs by the load
	// (the contexts, and the generator where it shares their CPUs) over
	// the window; LoadCPUs is how many CPUs that is.
	LoadCPUNS int64 `json:"load_cpu_ns"`
	LoadCPUs  int   `json:"load_cpus"`
	// The contexts' switches, summed, and the kernel's account of their
	// waiting (schedstat run delay and timeslices; -1 without schedstat).
	Voluntary   int64 `json:"voluntary"`
	Involuntary int64 `json:"involuntary"`
	RunDelayNS  int64 `json:"run_delay_ns"`
	Timeslices  int64 `json:"timeslices"`
	// The generator's own figures.
	GenVoluntary   int64  `json:"gen_voluntary"`
	GenInvoluntary int64  `json:"gen_involuntary"`
	GenCPUNS       int64  `json:"gen_cpu_ns"`
	GenRunDelayNS  int64  `json:"gen_run_delay_ns"`
	CPUsSeenGen    uint64 `json:"cpus_seen_gen"`
	CPUsSeenCtx    uint64 `json:"cpus_seen_ctx"`
	// NSPerIter is the work loop's cost per iteration on the generator's
	// CPU before the schedule started (what a request's work is in time).
	NSPerIter float64             `json:"ns_per_iter"`
	Hists     map[string]LoadHist `json:"hists"`
	// Failed names the contexts that failed, and why.
	Failed []string `json:"failed,omitempty"`
}
