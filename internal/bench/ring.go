package bench

// ring.go: the hidden entries of the ring experiment (internal/ring). Each
// block builds a ring of N contexts inside a worker, runs it (the C or Go
// kernel times whole rounds), measures the one-context overheads, and
// answers with everything each member counted. Request.Params carry the
// ring's size and working set; Request.CPUA is the head's CPU (and every
// even member's), CPUB every odd member's.

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/partner"
)

// The ring entries, one per kind of context.
const (
	RingGoroutine = "ring/goroutine"
	RingThread    = "ring/thread"
	RingProcess   = "ring/process"
	RingContainer = "ring/container"
)

// Request.Params keys of a ring block.
const (
	ParamTasks       = "tasks"         // contexts in the ring
	ParamWorkingSet  = "working_set"   // bytes each context sums per pass
	ParamMinSampleNS = "min_sample_ns" // target sample length when Iters is 0
	ParamStack       = "stack_bytes"   // member thread stack (thread rings)
	ParamIPC         = "ipc"           // 0: pipes, 1: eventfds (kernels.RingIPC)
	ParamContainer   = "container"     // container rings: 1 + index of the preset in container.PresetNames()
)

// RingContainerPreset encodes a container preset name as ParamContainer.
func RingContainerPreset(name string) (int64, error) {
	for i, p := range container.PresetNames() {
		if p == name {
			return int64(i + 1), nil
		}
	}
	return 0, fmt.Errorf("unknown container preset %q (want one of %s)", name, strings.Join(container.PresetNames(), ", "))
}

// DefaultRingStack is a member thread's stack: the member loop needs a few
// hundred bytes, and 10,000 threads with glibc's 8 MiB default would
// reserve 80 GiB of address space.
const DefaultRingStack = 64 << 10

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
}

func init() {
	Register(
		&Benchmark{
			Name: RingGoroutine, Rung: Goroutine, Kind: Switch, Hidden: true,
			Description: "N goroutines pass a token around a ring of channels, each summing its working set per pass",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next goroutine of the ring", Mechanism: "channel ring (one-slot channels, blocking receive)",
			Placements: AllPlacements, Ladder: []Placement{SameCPU},
			Settings: []string{"GOMAXPROCS=CPUs allowed"}, Unset: []string{"GOMAXPROCS"},
			Run: runGoRing,
		},
		&Benchmark{
			Name: RingThread, Rung: Thread, Kind: Switch, Hidden: true, ExpectSwitch: true,
			Description: "N threads of one process pass a token around a ring of pipes, each summing its working set per pass (lmbench lat_ctx with threads)",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next thread of the ring (same process)", Mechanism: "pipe ring (8-byte token, blocking read)",
			Placements: AllPlacements, Ladder: []Placement{SameCPU},
			Needs: needsCgo, Run: runThreadRing,
		},
		&Benchmark{
			Name: RingProcess, Rung: Process, Kind: Switch, Hidden: true, ExpectSwitch: true,
			Description: "N processes pass a token around a ring of pipes, each summing its working set per pass (lmbench lat_ctx); the members are this binary re-executed",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next process of the ring (separate address space)", Mechanism: "pipe ring (8-byte token, blocking read)",
			Placements: AllPlacements, Ladder: []Placement{SameCPU},
			// One P per member: fewer runtime threads in each of up to
			// thousands of partner processes (they inherit the worker's
			// environment).
			Settings: []string{"GOMAXPROCS=1 in every member"}, Env: []string{"GOMAXPROCS=1"},
			Needs: needsCgo, Run: runProcessRing,
		},
		&Benchmark{
			Name: RingContainer, Rung: Container, Kind: Switch, Hidden: true, ExpectSwitch: true,
			Description: "N-1 processes, each in a container of its own (namespaces, cpu cgroup, seccomp, capabilities per the preset), and the timing head outside pass a token around a ring of pipes",
			Op:          "one round of the token (N hops)", HopsPerOp: 1,
			Switched: "the next process of the ring, in another container", Mechanism: "pipe ring (8-byte token, blocking read)",
			Placements: AllPlacements, Ladder: []Placement{SameCPU},
			Settings: []string{"GOMAXPROCS=1 in every member"}, Env: []string{"GOMAXPROCS=1"},
			Needs: needsContainer("full"), Run: runProcessRing,
		},
	)
}

// ringConfig reads a ring request's parameters.
func ringConfig(req Request) (kernels.RingConfig, error) {
	cfg := kernels.RingConfig{
		Tasks:       int(req.Params[ParamTasks]),
		WorkingSet:  req.Params[ParamWorkingSet],
		StackBytes:  uint64(req.Params[ParamStack]),
		MinSampleNS: uint64(req.Params[ParamMinSampleNS]),
		Overhead:    true,
		IPC:         kernels.RingIPC(req.Params[ParamIPC]),
	}
	if cfg.IPC != kernels.RingPipe && cfg.IPC != kernels.RingEventfd {
		return cfg, fmt.Errorf("ring: unknown link kind %d", cfg.IPC)
	}
	if _, ok := req.Params[ParamTasks]; !ok {
		return cfg, fmt.Errorf("%s is run by 'ctxbench ring', which says how many contexts and what working set", req.Bench)
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

func ringResponse(out kernels.RingOutput, cfg kernels.RingConfig) Response {
	r := Response{NS: out.NS, TSC: out.TSC, A: out.A, B: out.B}
	r.Ring = &RingData{
		Tasks: cfg.Tasks, WorkingSet: cfg.WorkingSet,
		RoundsPerSample: out.RoundsPerSample, Rounds: out.Rounds, Token: out.Token,
		Passes: out.Passes, MinPasses: out.MinPasses, MaxPasses: out.MaxPasses,
		Errno:      out.Errno,
		OverheadNS: out.OverheadNS, OverheadTSC: out.OverheadTSC, HotNS: out.HotNS, HotTSC: out.HotTSC,
	}
	return r
}

func runGoRing(_ context.Context, req Request) (Response, error) {
	cfg, err := ringConfig(req)
	if err != nil {
		return Response{}, err
	}
	out, err := kernels.RingGo(req.Block(), cfg)
	r := ringResponse(out, cfg)
	r.Facts = map[string]string{"GOMAXPROCS": strconv.Itoa(runtime.GOMAXPROCS(0))}
	return r, err
}

func runThreadRing(_ context.Context, req Request) (Response, error) {
	cfg, err := ringConfig(req)
	if err != nil {
		return Response{}, err
	}
	need := uint64(cfg.Tasks)*linkFDs(cfg.IPC) + 64
	if req.Perf {
		need += 4 * uint64(cfg.Tasks) // perf events opened by every member
	}
	if err := RaiseOpenFiles(need); err != nil {
		return Response{}, err
	}
	out, err := kernels.RingThreads(req.Block(), cfg)
	r := ringResponse(out, cfg)
	if err != nil {
		err = fmt.Errorf("%v%s", err, RingLimitHint(out.Errno, "thread"))
	}
	return r, err
}

// runProcessRing starts N-1 partner processes chained by pipes (or
// eventfds), runs the head here, collects every member's counts, then
// measures the overheads in this process.
func runProcessRing(ctx context.Context, req Request) (Response, error) {
	cfg, err := ringConfig(req)
	if err != nil {
		return Response{}, err
	}
	n := cfg.Tasks
	var set *container.Set
	if idx := req.Params[ParamContainer]; idx > 0 {
		names := container.PresetNames()
		if int(idx) > len(names) {
			return Response{}, fmt.Errorf("ring: container preset %d", idx)
		}
		spec, err := containerSpec(names[idx-1])
		if err != nil {
			return Response{}, err
		}
		if set, err = container.NewSet(spec); err != nil {
			return Response{}, err
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
	// while it starts, and the overhead's own links afterwards.
	if err := RaiseOpenFiles(uint64(n)*(linkFDs(cfg.IPC)+2) + 64); err != nil {
		return Response{}, err
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
	defer func() {
		for i := range rd {
			if cfg.IPC == kernels.RingEventfd {
				wr[i] = nil // the same file as rd[i]
			}
			closeLink(&rd[i])
			closeLink(&wr[i])
		}
	}()
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
			return Response{Ring: &RingData{Tasks: n, WorkingSet: cfg.WorkingSet, Errno: errnoOf(err)}},
				fmt.Errorf("creating link %d of %d: %v%s", i+1, n, err, RingLimitHint(errnoOf(err), "process"))
		}
	}

	// Partners are started from one goroutine locked to its thread, which
	// stays alive until they are reaped: a partner's Pdeathsig fires when
	// the thread that started it exits, not the process.
	type started struct {
		ps  []*partner.Process
		err error
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
					closeLink(&rd[i-1])
					wr[i-1] = nil
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
	}
	data := &RingData{Tasks: n, WorkingSet: cfg.WorkingSet}
	if s.err != nil {
		killAll()
		data.Errno = errnoOf(s.err)
		return Response{Ring: data}, fmt.Errorf("%v%s", s.err, RingLimitHint(data.Errno, "process"))
	}

	var facts map[string]string
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
		facts = map[string]string{"container": set.Label(), "containers_verified": strconv.Itoa(len(s.ps) - bad)}
		if bad > 0 {
			facts["flag:isolation"] = fmt.Sprintf("%d of %d members did not enter what the preset asks: %s", bad, len(s.ps), first)
		}
	}

	// A member that dies makes the next one read end-of-file (pipes); an
	// eventfd has no end-of-file, so the head is told directly: a stop
	// token in its own link ends its loop with an error.
	died := make(chan *partner.Process, len(s.ps))
	for _, p := range s.ps {
		go func(p *partner.Process) {
			<-p.Exited()
			if p.ExitError() != nil {
				died <- p
			}
		}(p)
	}
	abort := func() {
		killAll()
		if rd[n-1] != nil {
			var stop [8]byte
			binary.NativeEndian.PutUint64(stop[:], 1<<63)
			_, _ = unix.Write(int(rd[n-1].Fd()), stop[:])
		}
	}
	blk := req.Block()
	blk.FD[0], blk.FD[1] = int(rd[n-1].Fd()), int(wr[0].Fd())
	type ret struct {
		out kernels.RingOutput
		err error
	}
	headCh := make(chan ret, 1)
	headCfg := cfg
	headCfg.Overhead = false
	go func() {
		out, err := kernels.RingHead(blk, headCfg)
		headCh <- ret{out, err}
	}()
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
		return Response{Ring: data}, ctx.Err()
	}
	resp := ringResponse(h.out, cfg)
	resp.Facts = facts
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

	oblk := req.Block()
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

// RaiseOpenFiles makes sure this process may hold need descriptors,
// raising RLIMIT_NOFILE's soft limit and, where permitted (root), its hard
// limit; children inherit it.
func RaiseOpenFiles(need uint64) error {
	var l unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &l); err != nil {
		return err
	}
	if l.Cur >= need {
		return nil
	}
	want := l
	want.Cur = need
	if want.Max < need {
		want.Max = need
	}
	if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &want); err != nil {
		return fmt.Errorf("the ring needs %d open files; RLIMIT_NOFILE is %d (hard %d) and could not be raised: %v (raise it with ulimit -n, or run as root)", need, l.Cur, l.Max, err)
	}
	return nil
}

// RingLimitHint names the limits that a failed creation of errno e most
// likely ran into, as " (...)" to append to the error, or "".
func RingLimitHint(e int, kind string) string {
	switch syscall.Errno(e) {
	case syscall.EAGAIN:
		return fmt.Sprintf(" (a %s limit: kernel.threads-max=%s, kernel.pid_max=%s, RLIMIT_NPROC=%s, vm.max_map_count=%s; see 'ctxbench ring --help')",
			kind, procValue("/proc/sys/kernel/threads-max"), procValue("/proc/sys/kernel/pid_max"), nprocLimit(), procValue("/proc/sys/vm/max_map_count"))
	case syscall.ENOMEM:
		return fmt.Sprintf(" (out of memory or address space: vm.max_map_count=%s, MemAvailable=%s)", procValue("/proc/sys/vm/max_map_count"), memAvailable())
	case syscall.EMFILE, syscall.ENFILE:
		return fmt.Sprintf(" (open files: RLIMIT_NOFILE=%s, fs.file-max=%s)", nofileLimit(), procValue("/proc/sys/fs/file-max"))
	}
	return ""
}

func procValue(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "?"
	}
	return strings.TrimSpace(string(b))
}

func nprocLimit() string {
	var l unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NPROC, &l) != nil {
		return "?"
	}
	if l.Cur == unix.RLIM_INFINITY {
		return "unlimited"
	}
	return strconv.FormatUint(l.Cur, 10)
}

func nofileLimit() string {
	var l unix.Rlimit
	if unix.Getrlimit(unix.RLIMIT_NOFILE, &l) != nil {
		return "?"
	}
	return strconv.FormatUint(l.Cur, 10)
}

func memAvailable() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			return strings.TrimSpace(rest)
		}
	}
	return "?"
}
