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
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/machine"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/partner"
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
// context. They size their own samples (the head calibrates its rounds).
func ringRows() []*model.Benchmark {
	return []*model.Benchmark{
		{
			Name: RingGoroutine, Rung: model.Goroutine, Kind: model.Switch, Hidden: true,
			Description: "N goroutines pass a token around a ring of channels, each summing its working set per pass",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next goroutine of the ring", Mechanism: "channel ring (one-slot channels, blocking receive)",
			Placements: model.AllPlacements, Ladder: single, SelfCalibrating: true,
			Settings: []string{"GOMAXPROCS=CPUs allowed"}, Unset: []string{"GOMAXPROCS"},
			Run: runGoRing,
		},
		{
			Name: RingThread, Rung: model.Thread, Kind: model.Switch, Hidden: true, ExpectSwitch: true,
			Description: "N threads of one process pass a token around a ring of pipes, each summing its working set per pass (lmbench lat_ctx with threads)",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next thread of the ring (same process)", Mechanism: "pipe ring (8-byte token, blocking read)",
			Placements: model.AllPlacements, Ladder: single, SelfCalibrating: true,
			Needs: needsCgo, Run: runThreadRing,
		},
		{
			Name: RingProcess, Rung: model.Process, Kind: model.Switch, Hidden: true, ExpectSwitch: true,
			Description: "N single-threaded processes pass a token around a ring of pipes, each summing its working set per pass (lmbench lat_ctx); the head and members are this binary re-executed into C before its Go runtime starts",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next process of the ring (separate address space, one thread)", Mechanism: "pipe ring (8-byte token, blocking read)",
			Placements: model.AllPlacements, Ladder: single, SelfCalibrating: true,
			Needs: needsCgo, Run: runProcessRing,
		},
		{
			Name: RingProcessMT, Rung: model.Process, Kind: model.Switch, Hidden: true, ExpectSwitch: true,
			Description: "N multi-threaded Go processes pass a token around a ring of pipes, each summing its working set per pass; the members are this binary re-executed, the head runs in the worker",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next process of the ring (separate address space, several threads)", Mechanism: "pipe ring (8-byte token, blocking read)",
			Placements: model.AllPlacements, Ladder: single, SelfCalibrating: true,
			// One P per member: fewer runtime threads in each of up to
			// thousands of partner processes (they inherit the worker's
			// environment).
			Settings: []string{"GOMAXPROCS=1 in every member"}, Env: []string{"GOMAXPROCS=1"},
			Needs: needsCgo, Run: runProcessRingMT,
		},
		{
			Name: RingContainer, Rung: model.Container, Kind: model.Switch, Hidden: true, ExpectSwitch: true,
			Description: "N-1 single-threaded processes, each in a container of its own (namespaces, cpu cgroup, seccomp, capabilities per the preset), and the timing head outside pass a token around a ring of pipes",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next process of the ring, in another container (one thread)", Mechanism: "pipe ring (8-byte token, blocking read)",
			Placements: model.AllPlacements, Ladder: single, SelfCalibrating: true,
			Needs: needsContainer("full"), Run: runProcessRing,
		},
	}
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
	need := uint64(cfg.Tasks)*linkFDs(cfg.IPC) + 64
	if req.Perf {
		need += 4 * uint64(cfg.Tasks) // perf events opened by every member
	}
	if err := machine.RaiseOpenFiles(need); err != nil {
		return model.Response{}, err
	}
	out, err := kernels.RingThreads(block(req), cfg)
	r := ringResponse(out, cfg)
	if err != nil {
		err = fmt.Errorf("%v%s", err, machine.LimitHint(out.Errno, "thread"))
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

// processRing starts N-1 member processes chained by pipes (or eventfds)
// and the head, runs the ring, and collects every member's counts. With st
// the head is a single-threaded partner too, which after the ring measures
// the one-context overheads in its own process, as lmbench does; without,
// the head and the overheads run in this worker.
func processRing(ctx context.Context, req model.Request, st bool) (model.Response, error) {
	cfg, err := ringConfig(req)
	if err != nil {
		return model.Response{}, err
	}
	n := cfg.Tasks
	var set *container.Set
	var self *container.SelfApplied
	if preset := req.Ring.Container; preset != "" {
		spec, err := containerSpec(preset)
		if err != nil {
			return model.Response{}, err
		}
		sa, err := container.SelfApply(spec)
		if err != nil {
			return model.Response{}, err
		}
		self = &sa
		if set, err = container.NewSet(spec); err != nil {
			return model.Response{}, err
		}
		defer set.Close()
	}
	instances := make([]*container.Instance, n)
	defer func() {
		for _, in := range instances {
			if in != nil {
				in.Release()
			}
		}
	}()
	// Links (until handed over), one control pipe per partner, its stdin
	// while it starts, and the overhead's own links afterwards (a
	// single-threaded head inherits this limit).
	if err := machine.RaiseOpenFiles(uint64(n)*(linkFDs(cfg.IPC)+2) + 64); err != nil {
		return model.Response{}, err
	}
	// Link i: member i writes it, member i+1 (mod n) reads it; the head is
	// member 0. With pipes rd[i] and wr[i] are the two ends; with an
	// eventfd they are the same descriptor.
	rd := make([]*os.File, n)
	wr := make([]*os.File, n)
	closeLink := func(f **os.File) {
		if *f != nil {
			(*f).Close()
			*f = nil
		}
	}
	// closeEventfd drops this process's copy of eventfd link i.
	closeEventfd := func(i int) {
		wr[i] = nil // the same file as rd[i]
		closeLink(&rd[i])
	}
	closeAll := func() {
		for i := range rd {
			if cfg.IPC == kernels.RingEventfd {
				closeEventfd(i)
			}
			closeLink(&rd[i])
			closeLink(&wr[i])
		}
	}
	defer closeAll()
	for i := 0; i < n; i++ {
		if cfg.IPC == kernels.RingEventfd {
			fd, e := unix.Eventfd(0, unix.EFD_CLOEXEC)
			if e == nil {
				rd[i] = os.NewFile(uintptr(fd), "ctxbench-ring-link")
				wr[i] = rd[i]
			}
			err = e
		} else {
			rd[i], wr[i], err = os.Pipe()
		}
		if err != nil {
			return model.Response{Ring: &model.RingData{Tasks: n, WorkingSet: cfg.WorkingSet, Errno: errnoOf(err)}},
				fmt.Errorf("creating link %d of %d: %v%s", i+1, n, err, machine.LimitHint(errnoOf(err), "process"))
		}
	}

	// Partners are started from one goroutine locked to its thread, which
	// stays alive until they are reaped: a partner's Pdeathsig fires when
	// the thread that started it exits, not the process.
	type started struct {
		ps   []*partner.Process
		head *partner.Process // st: the single-threaded head
		err  error
	}
	release := make(chan struct{})
	startedCh := make(chan started, 1)
	go func() {
		runtime.LockOSThread()
		var s started
		for i := 1; i < n; i++ {
			cpu := req.CPUA
			if i%2 == 1 {
				cpu = req.CPUB
			}
			spec := partner.Spec{
				Request: partner.Request{Kernel: kernels.RingMember, Block: kernels.Block{
					Iters: 1, Samples: 1, CPUA: -1, CPUB: cpu, Arg: cfg.WorkingSet, Perf: req.Perf}},
				Files:  []*os.File{rd[i-1], wr[i]},
				Stderr: os.Stderr,
			}
			if st {
				spec.SingleThreaded, spec.Confine = "ring-member", self
			}
			if set != nil {
				i := i
				spec.Start = func(cmd *exec.Cmd) error {
					in, err := set.Start(cmd, "m"+strconv.Itoa(i))
					instances[i] = in
					return err
				}
			}
			p, err := partner.Start(ctx, spec)
			// The partner holds its ends now; ours must go, so that a dead
			// member shows up downstream as end-of-file (pipes). An
			// eventfd link stays open here until its reader has it too.
			if cfg.IPC == kernels.RingEventfd {
				if i-1 > 0 {
					closeEventfd(i - 1)
				}
			} else {
				closeLink(&rd[i-1])
				closeLink(&wr[i])
			}
			if err != nil {
				s.err = fmt.Errorf("could not start ring member process %d of %d: %v", i+1, n, err)
				break
			}
			s.ps = append(s.ps, p)
		}
		if st && s.err == nil {
			blk := block(req)
			s.head, s.err = partner.Start(ctx, partner.Spec{
				Request: partner.Request{Block: blk}, Files: []*os.File{rd[n-1], wr[0]}, Stderr: os.Stderr,
				SingleThreaded: "ring-head",
				Ring:           &partner.RingHead{Tasks: n, MinSampleNS: cfg.MinSampleNS, IPC: cfg.IPC, Overhead: true},
			})
			if s.err != nil {
				s.err = fmt.Errorf("could not start the ring's head process: %v", s.err)
			}
			closeAll() // every link is in its processes now
		}
		startedCh <- s
		<-release
		runtime.UnlockOSThread()
	}()
	s := <-startedCh
	defer close(release)
	killAll := func() {
		for _, p := range s.ps {
			p.Kill()
		}
		if s.head != nil {
			s.head.Kill()
		}
	}
	data := &model.RingData{Tasks: n, WorkingSet: cfg.WorkingSet}
	if s.err != nil {
		killAll()
		data.Errno = errnoOf(s.err)
		return model.Response{Ring: data}, fmt.Errorf("%v%s", s.err, machine.LimitHint(data.Errno, "process"))
	}

	var flags []model.Flag
	var label string
	verified := 0
	if set != nil {
		// What every member entered, checked from outside.
		bad, first := 0, ""
		for _, in := range instances {
			if in == nil {
				continue
			}
			if v := in.Verify(); !v.OK {
				bad++
				if first == "" {
					first = v.Summary()
				}
			}
		}
		label, verified = set.Label(), len(s.ps)-bad
		if bad > 0 {
			flags = append(flags, model.Flag{Code: "isolation", Message: fmt.Sprintf("%d of %d members did not enter what the preset asks: %s", bad, len(s.ps), first)})
		}
	}

	// Release every single-threaded process into its loop, the head last.
	if st {
		for _, p := range append(slices.Clone(s.ps), s.head) {
			if err := p.Go(); err != nil {
				killAll()
				return model.Response{Ring: data}, fmt.Errorf("releasing a ring process: %v", err)
			}
		}
	}

	// A member that dies makes the next one read end-of-file (pipes); an
	// eventfd has no end-of-file, so the head is stopped directly: killed
	// (st), or told by a stop token in its own link (in this worker).
	died := make(chan *partner.Process, len(s.ps))
	for _, p := range s.ps {
		go func(p *partner.Process) {
			<-p.Exited()
			if p.ExitError() != nil {
				died <- p
			}
		}(p)
	}
	type ret struct {
		out kernels.RingOutput
		err error
	}
	headCh := make(chan ret, 1)
	abort := killAll
	if st {
		go func() {
			out, err := s.head.RingOutput()
			headCh <- ret{out, err}
		}()
	} else {
		abort = func() {
			killAll()
			if rd[n-1] != nil {
				var stop [8]byte
				binary.NativeEndian.PutUint64(stop[:], 1<<63)
				_, _ = unix.Write(int(rd[n-1].Fd()), stop[:])
			}
		}
		blk := block(req)
		blk.FD[0], blk.FD[1] = int(rd[n-1].Fd()), int(wr[0].Fd())
		headCfg := cfg
		headCfg.Overhead = false
		go func() {
			out, err := kernels.RingHead(blk, headCfg)
			headCh <- ret{out, err}
		}()
	}
	var h ret
	var dead *partner.Process
	select {
	case h = <-headCh:
	case dead = <-died:
		abort()
		h = <-headCh
	case <-ctx.Done():
		abort()
		<-headCh
		return model.Response{Ring: data}, ctx.Err()
	}
	resp := ringResponse(h.out, cfg)
	resp.Flags = flags
	resp.Ring.Container, resp.Ring.ContainersVerified = label, verified
	if dead != nil || h.err != nil {
		killAll()
		if dead == nil {
			for _, p := range s.ps {
				if p.ExitError() != nil {
					dead = p
					break
				}
			}
		}
		if dead != nil {
			return resp, fmt.Errorf("a ring member process died: %v (head: %v)", dead.ExitError(), h.err)
		}
		return resp, h.err
	}
	resp.Ring.MinPasses = ^uint64(0)
	if n == 1 {
		resp.Ring.MinPasses = 0
	}
	var b kernels.Counts
	b.PerfSwitches, b.PerfMigrations, b.PerfInstructions, b.PerfCycles = -1, -1, -1, -1
	for i, p := range s.ps {
		c, err := p.Result()
		if err != nil {
			killAll()
			return resp, fmt.Errorf("ring member process %d of %d: %v", i+2, n, err)
		}
		resp.Ring.Passes += c.Ops
		resp.Ring.MinPasses = min(resp.Ring.MinPasses, c.Ops)
		resp.Ring.MaxPasses = max(resp.Ring.MaxPasses, c.Ops)
		b.Voluntary += c.Voluntary
		b.Involuntary += c.Involuntary
		b.CPUsSeen |= c.CPUsSeen
		b.Ops += c.Ops
		addPerf(&b.PerfSwitches, c.PerfSwitches)
		addPerf(&b.PerfMigrations, c.PerfMigrations)
		addPerf(&b.PerfInstructions, c.PerfInstructions)
		addPerf(&b.PerfCycles, c.PerfCycles)
	}
	resp.B = b
	if st {
		if len(resp.Ring.OverheadNS) != len(resp.NS) {
			return resp, fmt.Errorf("the ring's head reported %d overhead samples for %d samples", len(resp.Ring.OverheadNS), len(resp.NS))
		}
		return resp, nil
	}

	oblk := block(req)
	oblk.Iters = h.out.RoundsPerSample
	ov, err := kernels.RingOverhead(oblk, cfg)
	if err != nil {
		return resp, fmt.Errorf("ring overhead: %v", err)
	}
	resp.Ring.OverheadNS, resp.Ring.OverheadTSC = ov.OverheadNS, ov.OverheadTSC
	resp.Ring.HotNS, resp.Ring.HotTSC = ov.HotNS, ov.HotTSC
	return resp, nil
}

// linkFDs is how many descriptors one link of a ring takes.
func linkFDs(ipc kernels.RingIPC) uint64 {
	if ipc == kernels.RingEventfd {
		return 1
	}
	return 2
}

func addPerf(sum *int64, v int64) {
	if v < 0 {
		return
	}
	if *sum < 0 {
		*sum = 0
	}
	*sum += v
}

func errnoOf(err error) int {
	var e syscall.Errno
	if errors.As(err, &e) {
		return int(e)
	}
	return 0
}

// CheckContainerPreset says whether name is a container preset a ring's
// members can be started into.
func CheckContainerPreset(name string) error {
	if slices.Contains(container.PresetNames(), name) {
		return nil
	}
	return fmt.Errorf("unknown container preset %q (want one of %s)", name, strings.Join(container.PresetNames(), ", "))
}
