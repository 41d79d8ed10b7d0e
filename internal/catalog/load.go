package catalog

// load.go: the hidden entries of the load experiment (ctxbench load). A
// block is one load level: a generator posting requests on a schedule to
// contexts it wakes through futexes (internal/kernels/load.c), the
// generator on Request.CPUA, the contexts on CPUB (-1: not pinned), and
// everything it measured answered as model.LoadData.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/partner"
)

// The load entries, one per kind of woken context.
const (
	LoadThread  = "load/thread"
	LoadProcess = "load/process"
)

// LoadWork is the hidden entry that measures what one iteration of the
// load kernel's work loop costs on the cell's CPU (how --work's time
// becomes iterations).
const LoadWork = "load/work"

func loadRows() []*model.Benchmark {
	row := func(b model.Benchmark) *model.Benchmark {
		b.Kind, b.Hidden, b.SelfCalibrating = model.Switch, true, true
		b.Op, b.HopsPerOp = "one request: a post, the woken context's wake-up and its work", 1
		b.Placements, b.Ladder = []model.Placement{model.SameCPU, model.CrossCPU, model.Unpinned}, single
		b.PlacementNote = "the generator and the contexts share one CPU, are on two, or are left to the scheduler"
		b.Needs = needsCgo
		b.ExpectSwitch = true
		// A wake-up is a futex hop: its slow ones are captured and read
		// through the futex model (ctxbench load --capture-above).
		b.Phases = "futex"
		return &b
	}
	return []*model.Benchmark{
		row(model.Benchmark{
			Name: LoadThread, Rung: model.Thread,
			Description: "threads of one process woken by an open-loop generator through futexes, each request a fixed amount of work",
			Switched:    "a woken thread of the same process", Mechanism: "futex wake from a generator thread (open loop)",
			Run: func(ctx context.Context, req model.Request) (model.Response, error) { return runLoad(ctx, req, false) },
		}),
		row(model.Benchmark{
			Name: LoadProcess, Rung: model.Process,
			Description: "single-threaded processes woken by an open-loop generator through futexes on a shared memfd, each request a fixed amount of work",
			Switched:    "a woken single-threaded process", Mechanism: "futex wake on shared memory from a generator thread (open loop)",
			Run: func(ctx context.Context, req model.Request) (model.Response, error) { return runLoad(ctx, req, true) },
		}),
		row(model.Benchmark{
			Name: LoadWork, Rung: model.Thread, ExpectSwitch: false,
			Description: "the cost of one iteration of the load kernel's work loop on the cell's CPU",
			Run:         runLoadWork,
		}),
	}
}

// runLoadWork answers the work loop's ns per iteration as its only sample
// (in hundredths of a ns: Response.NS holds integers).
func runLoadWork(_ context.Context, req model.Request) (model.Response, error) {
	if err := pinTo(req.CPUB); err != nil {
		return model.Response{}, err
	}
	ns, err := kernels.LoadWorkNS(2_000_000)
	if err != nil {
		return model.Response{}, err
	}
	return model.Response{NS: []uint64{uint64(ns * 100)}, TSC: []uint64{0}}, nil
}

func pinTo(cpu int) error {
	if cpu < 0 {
		return nil
	}
	return host.PinThread([]int{cpu})
}

func runLoad(ctx context.Context, req model.Request, processes bool) (model.Response, error) {
	p := req.Load
	if p == nil {
		return model.Response{}, fmt.Errorf("%s is run by 'ctxbench load', which says the rate and the work", req.Bench)
	}
	// Each block of a level draws its own Poisson schedule.
	cfg := kernels.LoadConfig{Contexts: p.Contexts, Rate: p.Rate, Poisson: p.Poisson, Seed: p.Seed + uint64(req.Round)*0x9e3779b97f4a7c15,
		Duration: time.Duration(p.DurationNS), Warmup: time.Duration(p.WarmupNS), WorkIters: p.WorkIters,
		CPUGen: req.CPUA, CPUCtx: req.CPUB, GenOnCtxCPU: req.CPUA == req.CPUB, Drain: time.Duration(p.DrainNS), Processes: processes, KeepBusy: p.KeepBusy}
	r, err := kernels.NewLoadRegion(cfg)
	if err != nil {
		return model.Response{}, err
	}
	defer r.Close()
	var sides []*partner.Process
	defer func() {
		for _, s := range sides {
			s.Kill()
		}
	}()
	if processes {
		for i := range p.Contexts {
			s, err := partner.Start(ctx, partner.Spec{SingleThreaded: "load-ctx", Files: []*os.File{r.File()},
				Request: partner.Request{Block: kernels.Block{Iters: 1, Arg: int64(i), CPUA: -1, CPUB: req.CPUB}}, Stderr: os.Stderr})
			if err != nil {
				return model.Response{}, fmt.Errorf("starting context %d: %w", i, err)
			}
			sides = append(sides, s)
		}
		for _, s := range sides {
			if err := s.Go(); err != nil {
				return model.Response{}, fmt.Errorf("releasing a context: %w", err)
			}
		}
	}
	out, err := r.Run()
	if err != nil {
		return model.Response{}, err
	}
	var failed []string
	for i, s := range sides {
		if _, err := s.Output(); err != nil {
			failed = append(failed, fmt.Sprintf("context %d: %v", i, err))
		}
	}
	sides = nil
	d := loadData(out, cfg)
	d.Failed = append(d.Failed, failed...)
	if len(d.Failed) > 0 {
		return model.Response{}, errors.New("load: " + d.Failed[0])
	}
	return model.Response{Load: d}, nil
}

// loadData is the kernel's output as the worker answers it.
func loadData(out kernels.LoadOutput, cfg kernels.LoadConfig) *model.LoadData {
	d := &model.LoadData{Scheduled: out.Scheduled, MeasuredScheduled: out.MeasuredScheduled, Posted: out.Posted,
		Dropped: out.Dropped, Unserved: out.Unserved, GenVoluntary: out.GenVoluntary, GenInvoluntary: out.GenInvoluntary,
		GenCPUNS: out.GenCPUNS, GenRunDelayNS: out.GenRunDelayNS, CPUsSeenGen: out.GenCPUsSeen, NSPerIter: out.NSPerIter,
		Hists: map[string]model.LoadHist{}}
	if out.TEnd > out.T0 {
		d.WindowNS = int64(out.TEnd - out.T0)
	}
	if out.TEnd > out.TMeasure {
		d.MeasuredNS = int64(out.TEnd - out.TMeasure)
	}
	if out.TLast > out.TMeasure {
		d.ScheduleNS = int64(out.TLast - out.TMeasure)
	}
	d.RunDelayNS, d.Timeslices = 0, 0
	for i, c := range out.Contexts {
		d.Measured += c.Measured
		d.Hops += c.Hops
		d.Queued += c.Queued
		d.Voluntary += c.Voluntary
		d.Involuntary += c.Involuntary
		d.LoadCPUNS += c.CPUNS
		d.CPUsSeenCtx |= c.CPUsSeen
		if c.RunDelayNS < 0 || d.RunDelayNS < 0 {
			d.RunDelayNS, d.Timeslices = -1, -1
		} else {
			d.RunDelayNS += c.RunDelayNS
			d.Timeslices += c.Timeslices
		}
		if c.Failed != "" {
			d.Failed = append(d.Failed, fmt.Sprintf("context %d: %s", i, c.Failed))
		}
	}
	if cfg.GenOnCtxCPU {
		d.LoadCPUNS += out.GenCPUNS
	}
	d.LoadCPUs = 1
	if cfg.CPUCtx < 0 {
		if cpus, err := host.Of(0); err == nil {
			d.LoadCPUs = len(cpus)
		}
	}
	for name, h := range out.Hists {
		s := model.LoadHist{N: h.N, Max: h.Max}
		for i, c := range h.Counts {
			if c != 0 {
				s.Index = append(s.Index, i)
				s.Count = append(s.Count, uint64(c))
			}
		}
		d.Hists[name] = s
	}
	return d
}
