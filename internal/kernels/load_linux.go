//go:build cgo && linux

package kernels

/*
#include <stdlib.h>
#include "load.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"time"
	"unsafe"

	"github.com/ctxbench/ctxbench/internal/host"
	"golang.org/x/sys/unix"
)

// LoadBuilt says whether this build has the load kernels.
const LoadBuilt = true

// LoadRegion is a load block's shared region (load.h): a memfd mapped
// here, which process contexts map too (File, handed to them as a
// descriptor). Everything the block measures is left in it.
type LoadRegion struct {
	f   *os.File
	mem []byte
	l   *C.cb_load
}

// MaxLoadContexts bounds a block's contexts (each holds a 4,096-request
// mailbox and its histograms, about 160 KiB).
const MaxLoadContexts = 1024

// NewLoadRegion makes the region of a block.
func NewLoadRegion(cfg LoadConfig) (*LoadRegion, error) {
	if cfg.Contexts < 1 || cfg.Contexts > MaxLoadContexts {
		return nil, fmt.Errorf("load: %d contexts (want 1 to %d)", cfg.Contexts, MaxLoadContexts)
	}
	if !(cfg.Rate > 0) || cfg.Duration <= 0 || cfg.Warmup < 0 || cfg.Warmup >= cfg.Duration {
		return nil, errors.New("load: need a positive rate, a duration and a warm-up shorter than it")
	}
	if n := cfg.Rate * cfg.Duration.Seconds(); n > 50e6 {
		return nil, fmt.Errorf("load: %.0f requests in one block is more than the schedule holds (50 million)", n)
	}
	size := int(C.cb_load_size(C.int32_t(cfg.Contexts)))
	f, err := host.SharedMemory("ctxbench-load", int64(size))
	if err != nil {
		return nil, err
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("mmap of the load region: %w", err)
	}
	r := &LoadRegion{f: f, mem: mem, l: (*C.cb_load)(unsafe.Pointer(&mem[0]))}
	l := r.l
	l.nctx = C.int32_t(cfg.Contexts)
	if cfg.Poisson {
		l.poisson = 1
	}
	l.rate = C.double(cfg.Rate)
	l.seed = C.uint64_t(cfg.Seed)
	l.duration_ns = C.uint64_t(cfg.Duration.Nanoseconds())
	l.warmup_ns = C.uint64_t(cfg.Warmup.Nanoseconds())
	l.work_iters = C.uint64_t(cfg.WorkIters)
	l.cpu_gen, l.cpu_ctx = C.int32_t(cfg.CPUGen), C.int32_t(cfg.CPUCtx)
	if cfg.GenOnCtxCPU {
		l.gen_on_ctx_cpu = 1
	}
	if cfg.Processes {
		l.processes = 1
	}
	if cfg.KeepBusy {
		l.keep_busy = 1
	}
	drain := cfg.Drain
	if drain <= 0 {
		drain = time.Second
	}
	l.drain_ns = C.uint64_t(drain.Nanoseconds())
	C.cb_load_init(l)
	return r, nil
}

// File is the region's descriptor, for process contexts.
func (r *LoadRegion) File() *os.File { return r.f }

// Close unmaps and closes the region.
func (r *LoadRegion) Close() {
	if r.mem != nil {
		_ = unix.Munmap(r.mem)
		r.mem, r.l = nil, nil
	}
	r.f.Close()
}

// Run runs the block: the generator on a thread of its own (pinned by the
// kernel), thread contexts started by it, or process contexts that must
// already be started on File (the generator waits for them to be ready).
func (r *LoadRegion) Run() (LoadOutput, error) {
	rc, err := onThread(func() (C.int, error) { return C.cb_load_run(r.l), nil })
	if err != nil {
		return LoadOutput{}, err
	}
	out := r.output()
	if rc != 0 {
		return out, errors.New(C.GoString(&r.l.err[0]))
	}
	return out, nil
}

func hist(h *C.cb_lh) LoadHist {
	counts := unsafe.Slice((*uint32)(unsafe.Pointer(&h.counts[0])), LoadHistCounts)
	return LoadHist{N: uint64(h.n), Max: uint64(h.max), Counts: append([]uint32(nil), counts...)}
}

// output reads what the block left in the region: the generator's
// figures, each context's counts, and the histograms merged over the
// contexts.
func (r *LoadRegion) output() LoadOutput {
	l := r.l
	out := LoadOutput{
		Scheduled: uint64(l.scheduled), MeasuredScheduled: uint64(l.measured_scheduled),
		Posted: uint64(l.posted), Dropped: uint64(l.dropped), Unserved: uint64(l.unserved),
		T0: uint64(l.t0), TMeasure: uint64(l.t_measure), TLast: uint64(l.t_last_intended), TEnd: uint64(l.t_end),
		GenVoluntary: int64(l.gen_nvcsw), GenInvoluntary: int64(l.gen_nivcsw),
		GenCPUNS: int64(l.gen_cpu_ns), GenRunDelayNS: int64(l.gen_run_delay_ns), GenCPUsSeen: uint64(l.gen_cpus_seen),
		NSPerIter: float64(l.ns_per_iter),
		Hists:     map[string]LoadHist{HistLag: hist(&l.lag)},
	}
	ctxs := unsafe.Slice((*C.cb_load_ctx)(unsafe.Pointer(uintptr(unsafe.Pointer(l))+unsafe.Sizeof(*l))), int(l.nctx))
	names := map[int]string{C.CB_LH_WAKE: HistWake, C.CB_LH_REQ_C: HistCorrected, C.CB_LH_REQ_U: HistUncorrected,
		C.CB_LH_SERVICE: HistService, C.CB_LH_QUEUE: HistQueue}
	for i := range ctxs {
		c := &ctxs[i]
		cc := LoadContextCounts{Done: uint64(c.done), Measured: uint64(c.measured), Hops: uint64(c.hops), Queued: uint64(c.queued),
			Voluntary: int64(c.nvcsw), Involuntary: int64(c.nivcsw), CPUNS: int64(c.cpu_ns),
			RunDelayNS: int64(c.run_delay_ns), Timeslices: int64(c.timeslices), CPUsSeen: uint64(c.cpus_seen)}
		if c.failed != 0 || c.exited == 0 {
			cc.Failed = C.GoString(&c.err[0])
			if cc.Failed == "" {
				cc.Failed = "did not finish"
			}
		}
		out.Contexts = append(out.Contexts, cc)
		for k, name := range names {
			h := hist(&c.h[k])
			m := out.Hists[name]
			if m.Counts == nil {
				m.Counts = make([]uint32, LoadHistCounts)
			}
			for j, v := range h.Counts {
				m.Counts[j] += v
			}
			m.N += h.N
			m.Max = max(m.Max, h.Max)
			out.Hists[name] = m
		}
	}
	return out
}

// LoadWorkNS is the work loop's cost per iteration on the calling thread
// (the least of five runs of iters).
func LoadWorkNS(iters uint64) (float64, error) {
	return onThread(func() (float64, error) { return float64(C.cb_load_work_ns(C.uint64_t(iters), 5)), nil })
}

// LoadHistIndex is the bucket load.c records a value in (for the test that
// the layout is HdrHistogram's).
func LoadHistIndex(v uint64) int { return int(C.cb_lh_index(C.uint64_t(v))) }
