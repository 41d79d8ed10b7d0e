package kernels

import (
	"time"

	"github.com/ctxbench/ctxbench/internal/model"
)

// LoadConfig is one block of the open-loop load kernel (load.c): Contexts
// woken contexts served by one generator posting Rate requests per second
// for Duration (constant gaps, or exponential ones when Poisson), each
// request WorkIters iterations of the work loop; requests intended before
// Warmup are served but not measured.
type LoadConfig struct {
	Contexts  int
	Rate      float64
	Poisson   bool
	Seed      uint64
	Duration  time.Duration
	Warmup    time.Duration
	WorkIters uint64
	// CPUGen and CPUCtx are where the generator and the contexts run (-1:
	// not pinned); GenOnCtxCPU says the generator shares the contexts'
	// CPUs, so its CPU time is part of the load they carry.
	CPUGen, CPUCtx int
	GenOnCtxCPU    bool
	// Drain is how long the contexts may take to serve what is pending
	// once the schedule has ended; what is left then is unserved.
	Drain time.Duration
	// KeepBusy runs a SCHED_IDLE spinner on the contexts' CPU, so it never
	// idles between requests (its CPU time is not the load's).
	KeepBusy bool
	// Processes: the contexts are other processes that map the region
	// (LoadRegion.File) and run LoadContext; otherwise threads of this one.
	Processes bool
}

// The histogram layout of load.c (model's, the vocabulary's: HdrHistogram's
// for 1 ns to 1e11 ns at 2 significant digits) and the names of its
// histograms.
const (
	LoadHistLowest  = model.LoadHistLowest
	LoadHistHighest = model.LoadHistHighest
	LoadHistFigures = model.LoadHistFigures
	LoadHistCounts  = model.LoadHistCounts

	HistLag         = model.HistLag
	HistWake        = model.HistWake
	HistCorrected   = model.HistCorrected
	HistUncorrected = model.HistUncorrected
	HistService     = model.HistService
	HistQueue       = model.HistQueue
)

// LoadHist is one histogram: its counts in the layout above, the values
// recorded and the largest, exactly.
type LoadHist struct {
	N, Max uint64
	Counts []uint32
}

// LoadContextCounts is what one context counted about itself.
type LoadContextCounts struct {
	Done, Measured, Hops, Queued uint64
	Voluntary, Involuntary       int64
	CPUNS                        int64
	RunDelayNS, Timeslices       int64 // -1 without schedstat
	CPUsSeen                     uint64
	Failed                       string
}

// LoadOutput is what a load block measured. Times are CLOCK_MONOTONIC ns.
type LoadOutput struct {
	Scheduled, MeasuredScheduled uint64
	Posted, Dropped, Unserved    uint64
	T0, TMeasure, TLast, TEnd    uint64 // start, end of warm-up, last intended, last end
	GenVoluntary, GenInvoluntary int64
	GenCPUNS, GenRunDelayNS      int64
	GenCPUsSeen                  uint64
	NSPerIter                    float64
	Contexts                     []LoadContextCounts
	Hists                        map[string]LoadHist
}
