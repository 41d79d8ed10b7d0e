package catalog

// ring.go: the hidden entries of the ring experiment. Each block builds a
// ring of N contexts inside a worker, runs it (the C or Go kernel times
// whole rounds), measures the one-context overheads, and answers with
// everything each member counted. Request.Ring carries the ring's size and
// working set; Request.CPUA is the head's CPU (and every even member's),
// CPUB every odd member's. The head calibrates the rounds per sample to
// Request.TargetNS itself unless Request.Iters fixes them.

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/ringproc"
)

// The ring entries, one per kind of context.
const (
	RingGoroutine = "ring/goroutine"
	RingThread    = "ring/thread"
	RingProcess   = "ring/process"
	RingProcessMT = "ring/process-mt"
	RingContainer = "ring/container"
)

// DefaultRingStack is a member thread's stack: the member loop needs a few
// hundred bytes, and 10,000 threads with glibc's 8 MiB default would
// reserve 80 GiB of address space.
const DefaultRingStack = 64 << 10

// ringRows are the hidden entries the ring experiment runs, one per kind of
// context.
func ringRows() []*model.Benchmark {
	const pipeRing = "pipe ring (8-byte token, blocking read)"
	return []*model.Benchmark{
		ringRow(model.Benchmark{
			Name: RingGoroutine, Rung: model.Goroutine,
			Description: "N goroutines pass a token around a ring of channels, each summing its working set per pass",
			Switched:    "the next goroutine of the ring", Mechanism: "channel ring (one-slot channels, blocking receive)",
			Settings: []string{"GOMAXPROCS=CPUs allowed"}, Unset: []string{"GOMAXPROCS"},
			Run: runGoRing,
		}),
		ringRow(model.Benchmark{
			Name: RingThread, Rung: model.Thread, ExpectSwitch: true,
			Description: "N threads of one process pass a token around a ring of pipes, each summing its working set per pass (lmbench lat_ctx with threads)",
			Switched:    "the next thread of the ring (same process)", Mechanism: pipeRing,
			Needs: needsCgo, Run: runThreadRing,
		}),
		ringRow(model.Benchmark{
			Name: RingProcess, Rung: model.Process, ExpectSwitch: true,
			Description: "N single-threaded processes pass a token around a ring of pipes, each summing its working set per pass (lmbench lat_ctx); the head and members are this binary re-executed into C before its Go runtime starts",
			Switched:    "the next process of the ring (separate address space, one thread)", Mechanism: pipeRing,
			Needs: needsCgo, Run: runProcessRing,
		}),
		ringRow(model.Benchmark{
			Name: RingProcessMT, Rung: model.Process, ExpectSwitch: true,
			Description: "N multi-threaded Go processes pass a token around a ring of pipes, each summing its working set per pass; the members are this binary re-executed, the head runs in the worker",
			Switched:    "the next process of the ring (separate address space, several threads)", Mechanism: pipeRing,
			// One P per member: fewer runtime threads in each of up to
			// thousands of partner processes (they inherit the worker's
			// environment).
			Settings: []string{"GOMAXPROCS=1 in every member"}, Env: []string{"GOMAXPROCS=1"},
			Needs: needsCgo, Run: runProcessRingMT,
		}),
		ringRow(model.Benchmark{
			Name: RingContainer, Rung: model.Container, ExpectSwitch: true,
			Description: "N-1 single-threaded processes, each in a container of its own (namespaces, cpu cgroup, seccomp, capabilities per the preset), and the timing head outside pass a token around a ring of pipes",
			Switched:    "the next process of the ring, in another container (one thread)", Mechanism: pipeRing,
			Needs: needsContainer("full"), Run: runProcessRing,
		}),
	}
}

// ringRow completes a ring entry with what every one shares: it is hidden
// (run by 'ctxbench ring'), times one round of the token at every
// placement, and sizes its own samples (the head calibrates its rounds).
func ringRow(b model.Benchmark) *model.Benchmark {
	b.Kind, b.Hidden, b.SelfCalibrating = model.Switch, true, true
	b.Op, b.HopsPerOp = "one round of the token (N hops)", 1
	b.Placements, b.Ladder = model.AllPlacements, single
	return &b
}

// ringConfig reads a ring request's parameters.
func ringConfig(req model.Request) (kernels.RingConfig, error) {
	if req.Ring == nil {
		return kernels.RingConfig{}, fmt.Errorf("%s is run by 'ctxbench ring', which says how many contexts and what working set", req.Bench)
	}
	p := req.Ring
	cfg := kernels.RingConfig{
		Tasks:       p.Tasks,
		WorkingSet:  p.WorkingSet,
		StackBytes:  uint64(p.StackBytes),
		MinSampleNS: uint64(req.TargetNS),
		Overhead:    true,
		IPC:         p.IPC,
	}
	if cfg.IPC != kernels.RingPipe && cfg.IPC != kernels.RingEventfd {
		return cfg, fmt.Errorf("ring: unknown link kind %d", cfg.IPC)
	}
	if cfg.Tasks < 1 {
		return cfg, fmt.Errorf("ring: %d tasks", cfg.Tasks)
	}
	if cfg.WorkingSet < 0 {
		return cfg, fmt.Errorf("ring: working set %d", cfg.WorkingSet)
	}
	if cfg.StackBytes == 0 {
		cfg.StackBytes = DefaultRingStack
	}
	if cfg.MinSampleNS == 0 && req.Iters == 0 {
		cfg.MinSampleNS = uint64(2 * time.Millisecond)
	}
	return cfg, nil
}

func ringResponse(out kernels.RingOutput, cfg kernels.RingConfig) model.Response {
	r := model.Response{NS: out.NS, TSC: out.TSC, A: out.A, B: out.B}
	r.Ring = &model.RingData{
		Tasks: cfg.Tasks, WorkingSet: cfg.WorkingSet,
		RoundsPerSample: out.RoundsPerSample, Rounds: out.Rounds, Token: out.Token,
		Passes: out.Passes, MinPasses: out.MinPasses, MaxPasses: out.MaxPasses,
		Errno:      out.Errno,
		OverheadNS: out.OverheadNS, OverheadTSC: out.OverheadTSC, HotNS: out.HotNS, HotTSC: out.HotTSC,
	}
	return r
}

func runGoRing(_ context.Context, req model.Request) (model.Response, error) {
	cfg, err := ringConfig(req)
	if err != nil {
		return model.Response{}, err
	}
	out, err := kernels.RingGo(block(req), cfg)
	r := ringResponse(out, cfg)
	r.GOMAXPROCS = runtime.GOMAXPROCS(0)
	return r, err
}

func runThreadRing(_ context.Context, req model.Request) (model.Response, error) {
	cfg, err := ringConfig(req)
	if err != nil {
		return model.Response{}, err
	}
	need := uint64(cfg.Tasks)*ringproc.LinkFDs(cfg.IPC) + 64
	if req.Perf {
		need += 4 * uint64(cfg.Tasks) // perf events opened by every member
	}
	if err := host.RaiseOpenFiles(need); err != nil {
		return model.Response{}, err
	}
	out, err := kernels.RingThreads(block(req), cfg)
	r := ringResponse(out, cfg)
	if err != nil {
		err = fmt.Errorf("%w%s", err, host.LimitHint(out.Errno, "thread"))
	}
	return r, err
}

// runProcessRing is a ring of single-threaded processes: the head and the
// members are this binary re-executed into st.c's ring roles, so no
// member is multi-threaded (see processRing).
func runProcessRing(ctx context.Context, req model.Request) (model.Response, error) {
	return processRing(ctx, req, true)
}

// runProcessRingMT is the same ring of multi-threaded Go processes: the
// members are partner processes running the ring kernel from Go, the head
// runs in the worker, as real multi-threaded services would.
func runProcessRingMT(ctx context.Context, req model.Request) (model.Response, error) {
	return processRing(ctx, req, false)
}

// processRing runs a ring of processes (internal/ringproc): with st the
// head and every member are single-threaded; a container preset starts
// every member but the head in a container of its own, verified from
// outside before the ring runs.
func processRing(ctx context.Context, req model.Request, st bool) (model.Response, error) {
	cfg, err := ringConfig(req)
	if err != nil {
		return model.Response{}, err
	}
	rc := ringproc.Config{Ring: cfg, Block: block(req), SingleThreaded: st}
	if preset := req.Ring.Container; preset != "" {
		spec, err := containerSpec(preset)
		if err != nil {
			return model.Response{}, err
		}
		rc.Container = &spec
	}
	out, c, err := ringproc.Run(ctx, rc)
	r := ringResponse(out, cfg)
	r.Ring.Container, r.Ring.ContainersVerified = c.Label, c.Verified
	if c.Verified < c.Members {
		r.Flags = []model.Flag{{Code: "isolation", Message: fmt.Sprintf("%d of %d members did not enter what the preset asks: %s", c.Members-c.Verified, c.Members, c.Failure)}}
	}
	return r, err
}

// CheckContainerPreset says whether name is a container preset a ring's
// members can be started into.
func CheckContainerPreset(name string) error {
	if slices.Contains(container.PresetNames(), name) {
		return nil
	}
	return fmt.Errorf("unknown container preset %q (want one of %s)", name, strings.Join(container.PresetNames(), ", "))
}
