package probe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
)

// Request is one run of one probe bench.
type Request struct {
	Bench Bench
	// CPUs confines the whole probe process (every thread of its runtime) to these CPUs;
	// empty means unpinned.
	CPUs []int
	// Iterations is ops per sample; 0 lets the probe calibrate to Target.
	Iterations int64
	// Samples is the number of timed samples (default 10); Warmup the untimed ones before.
	Samples int
	Warmup  int
	// Target is the calibrated duration of one sample (default 20 ms).
	Target time.Duration
	// JITWarmup is the minimum untimed warm-up for JIT runtimes (Java, Node); 0 keeps the
	// probe's default (Java 1 s, Node 300 ms).
	JITWarmup time.Duration
	// Contexts is parked contexts per memory sample; 0 keeps the bench's default.
	Contexts int
	// Parallelism overrides ParallelN (schedulers/carriers/workers); 0 = CPUs allowed.
	Parallelism int
	// Timeout bounds the run (default 2 min); the build is not counted.
	Timeout time.Duration
	// Cache holds the builds; zero value = DefaultCache().
	Cache Cache
}

// DefaultRequest is a full-length run of b. Memory samples are slow (10^5 contexts each) and
// vary little, so a memory bench takes three.
func DefaultRequest(b Bench) Request {
	if b.Kind == KindMemory {
		return Request{Bench: b, Samples: 3, Warmup: 1}
	}
	return Request{Bench: b, Samples: 10, Warmup: 2, Target: 20 * time.Millisecond}
}

// QuickRequest is a short run of b that, once the build is cached, finishes in about one or
// two seconds: few samples, calibrated iterations, short JIT warm-up, fewer parked contexts.
func QuickRequest(b Bench) Request {
	r := Request{Bench: b, Samples: 5, Warmup: 1, Target: 10 * time.Millisecond}
	switch b.Language {
	case Java:
		r.JITWarmup = 400 * time.Millisecond
	case Node:
		r.JITWarmup = 100 * time.Millisecond
	}
	if b.Kind == KindMemory {
		r.Samples, r.Warmup, r.Contexts = 1, 1, 10000
		if b.Contexts > 0 && b.Contexts < r.Contexts {
			r.Contexts = b.Contexts
		}
	}
	return r
}

// Rusage is the probe process's resource use, from wait4.
type Rusage struct {
	Voluntary   int64 // ru_nvcsw: the process blocked
	Involuntary int64 // ru_nivcsw: the process was preempted
	User        time.Duration
	System      time.Duration
	MaxRSSKiB   int64
	// CPUsSeen is not from wait4: where the process's threads were seen
	// running (bit i: CPU i), sampled from /proc every CPUSamplePeriod
	// while it ran.
	CPUsSeen uint64
}

// Result is what one run measured.
type Result struct {
	Bench  Bench
	Blocks []Block
	// Command and Env (the CTXBENCH_* inputs) say exactly how the probe was started.
	Command     []string
	Env         []string
	CPUs        []int
	Parallelism int // resolved schedulers/carriers/workers; 0 when not applicable
	Built       Built
	Rusage      Rusage // of the whole probe process, start-up included
	Wall        time.Duration
}

// CPUSamplePeriod is how often the CPUs a probe's threads last ran on are
// read while it runs (host.TaskCPUs): a read of a few dozen /proc files
// takes tens of microseconds of the probe's CPUs, so a read every 200 ms
// costs it about 0.02% of its time.
const CPUSamplePeriod = 200 * time.Millisecond

// Primary is the first block: the switch/spawn block, or a memory bench's main metric.
func (r Result) Primary() Block { return r.Blocks[0] }

// UnavailableError says a bench cannot run here (missing toolchain or runtime feature).
type UnavailableError struct {
	Bench  string
	Reason string
}

func (e *UnavailableError) Error() string { return e.Bench + " unavailable: " + e.Reason }

// Run builds (or reuses) the bench's probe, runs it confined to req.CPUs with a timeout that
// kills its whole process group, and parses and checks its output.
func Run(ctx context.Context, req Request) (Result, error) {
	b := req.Bench
	r, ok := recipes[b.Language]
	if !ok || b.Probe == "" {
		return Result{}, fmt.Errorf("probe: %q is not a probe bench", b.Name)
	}
	if ok, why := b.Available(); !ok {
		return Result{}, &UnavailableError{Bench: b.Name, Reason: why}
	}
	if err := checkRequest(req); err != nil {
		return Result{}, err
	}
	cache := req.Cache
	if cache.Dir == "" {
		var err error
		if cache, err = DefaultCache(); err != nil {
			return Result{}, err
		}
	}
	built, err := cache.Build(ctx, b.Language)
	if err != nil {
		return Result{}, err
	}

	par := 0
	switch {
	case b.Parallelism == ParallelN && req.Parallelism > 0:
		par = req.Parallelism
	case b.Parallelism == ParallelN:
		par = allowedCPUs(req.CPUs)
	case b.Parallelism > 0:
		par = b.Parallelism
	}
	argv, langEnv := r.command(built.Toolchain, built.Dir, b, par)
	inputs := probeInputs(req, par)
	inputs = append(inputs, langEnv...)
	inputs = append(inputs, b.Env...)
	env := childEnv(r.unset, inputs)

	timeout := req.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	res := Result{Bench: b, Command: argv, Env: inputs, CPUs: req.CPUs, Parallelism: par, Built: built}
	start := time.Now()
	out, ru, err := execProbe(ctx, argv, env, req.CPUs, timeout)
	res.Wall = time.Since(start)
	res.Rusage = ru
	if err != nil {
		return res, fmt.Errorf("%s: %w", b.Name, err)
	}
	blocks, err := ParseOutput(out)
	if err != nil {
		return res, fmt.Errorf("%s: %w", b.Name, err)
	}
	want := string(b.Language) + "/" + b.Probe
	for _, bl := range blocks {
		if bl.Name != want {
			return res, fmt.Errorf("%s: probe printed a block named %q, want %q", b.Name, bl.Name, want)
		}
		if bl.Kind == KindUnavailable {
			return res, &UnavailableError{Bench: b.Name, Reason: bl.Reason}
		}
		if bl.Kind != b.Kind {
			return res, fmt.Errorf("%s: probe printed a %s block, want %s", b.Name, bl.Kind, b.Kind)
		}
		if b.Kind == KindSwitch && bl.HopsPerOp != b.HopsPerOp {
			return res, fmt.Errorf("%s: probe says %d hops per op, the table says %d", b.Name, bl.HopsPerOp, b.HopsPerOp)
		}
	}
	if b.Kind != KindMemory && len(blocks) != 1 {
		return res, fmt.Errorf("%s: probe printed %d blocks, want 1", b.Name, len(blocks))
	}
	res.Blocks = blocks
	return res, nil
}

func checkRequest(req Request) error {
	switch {
	case req.Iterations < 0:
		return fmt.Errorf("probe: iterations must be >= 0")
	case req.Samples < 0 || req.Warmup < 0 || req.Contexts < 0 || req.Parallelism < 0:
		return fmt.Errorf("probe: samples, warm-up, contexts and parallelism must be >= 0")
	case req.Target < 0 || req.JITWarmup < 0:
		return fmt.Errorf("probe: target and JIT warm-up must be >= 0")
	}
	for _, c := range req.CPUs {
		if c < 0 || c >= 1024 {
			return fmt.Errorf("probe: CPU %d out of range", c)
		}
	}
	return nil
}

// probeInputs are the CTXBENCH_* variables every probe reads (docs/probes.md).
func probeInputs(req Request, par int) []string {
	samples := req.Samples
	if samples <= 0 {
		samples = 10
	}
	target := req.Target
	if target <= 0 {
		target = 20 * time.Millisecond
	}
	env := []string{
		"CTXBENCH_BENCH=" + req.Bench.Probe,
		"CTXBENCH_ITERATIONS=" + strconv.FormatInt(req.Iterations, 10),
		"CTXBENCH_SAMPLES=" + strconv.Itoa(samples),
		"CTXBENCH_WARMUP=" + strconv.Itoa(req.Warmup),
		"CTXBENCH_TARGET_NS=" + strconv.FormatInt(target.Nanoseconds(), 10),
	}
	if req.Bench.Kind == KindMemory {
		n := req.Contexts
		if n == 0 {
			n = req.Bench.Contexts
		}
		if n > 0 {
			env = append(env, "CTXBENCH_CONTEXTS="+strconv.Itoa(n))
		}
	}
	if req.JITWarmup > 0 {
		env = append(env, "CTXBENCH_JIT_WARMUP_MS="+strconv.FormatInt(req.JITWarmup.Milliseconds(), 10))
	}
	if par > 0 {
		env = append(env, "CTXBENCH_PARALLELISM="+strconv.Itoa(par))
	}
	return env
}

// childEnv is our environment without inherited CTXBENCH_* inputs and the variables that
// would change the probe's result, plus the inputs.
func childEnv(unset, inputs []string) []string {
	drop := map[string]bool{}
	for _, u := range unset {
		drop[u] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if drop[k] || strings.HasPrefix(k, "CTXBENCH_") && k != "CTXBENCH_CACHE_DIR" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, inputs...)
}

// allowedCPUs is len(cpus), or the number of CPUs this process may run on.
func allowedCPUs(cpus []int) int {
	if len(cpus) > 0 {
		return len(cpus)
	}
	if cpus, err := host.Of(0); err == nil && len(cpus) > 0 {
		return len(cpus)
	}
	return runtime.NumCPU()
}

const maxProbeOutput = 64 << 20

// execProbe runs argv in its own process group, confined to cpus, and returns its stdout.
// On timeout or cancellation the whole group is killed; after the probe exits any process it
// left in its group is killed too, so nothing outlives the run.
func execProbe(ctx context.Context, argv, env []string, cpus []int, timeout time.Duration) ([]byte, Rusage, error) {
	cmd, outR, errR, err := startProbe(argv, env, cpus)
	if err != nil {
		return nil, Rusage{}, err
	}
	pgid := cmd.Process.Pid
	stopCPUs := watchCPUs(pgid)
	var stdout, stderr bytes.Buffer
	readers := readProbeOutput(outR, errR, &stdout, &stderr)
	guard := watchProbe(ctx, pgid, timeout)
	waitErr := cmd.Wait()
	guard.stop()
	cpusSeen := stopCPUs()
	unix.Kill(-pgid, unix.SIGKILL) // leftovers of the group (ESRCH when there are none)
	closeProbeOutput(readers, outR, errR)
	ru := rusageOf(cmd.ProcessState, cpusSeen)
	timedOut, cancelled := guard.outcome()
	if err := probeErr(ctx, timeout, waitErr, &stderr, timedOut, cancelled); err != nil {
		return nil, ru, err
	}
	if stdout.Len() >= maxProbeOutput {
		return nil, ru, fmt.Errorf("probe printed more than %d bytes", maxProbeOutput)
	}
	return stdout.Bytes(), ru, nil
}

// startProbe starts argv in its own process group, pinned to cpus, with its stdout and
// stderr on pipes whose read ends it returns: the write ends are closed here, so the pipes
// reach EOF once every process of the probe is gone.
func startProbe(argv, env []string, cpus []int) (cmd *exec.Cmd, outR, errR *os.File, err error) {
	cmd = exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	// If ctxbench dies without cleaning up, the kernel kills the probe
	// (where the platform has a death signal: platform.DeathSignal).
	cmd.SysProcAttr = host.DieWithParent(&syscall.SysProcAttr{Setpgid: true})
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, nil, nil, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, nil, nil, err
	}
	cmd.Stdout, cmd.Stderr = outW, errW
	startErr := host.StartPinned(cmd, cpus)
	outW.Close()
	errW.Close()
	if startErr != nil {
		outR.Close()
		errR.Close()
		return nil, nil, nil, fmt.Errorf("starting %s: %w", argv[0], startErr)
	}
	return cmd, outR, errR, nil
}

// watchCPUs samples, every CPUSamplePeriod, the CPUs the threads of process group pgid
// run on, until the function it returns is called; that function returns their union
// (Rusage.CPUsSeen), a sampler beside the probe because only a running process's
// threads can be read.
func watchCPUs(pgid int) (stop func() uint64) {
	seen := make(chan uint64, 1)
	stopSeeing := make(chan struct{})
	go func() {
		var mask uint64
		tick := time.NewTicker(CPUSamplePeriod)
		defer tick.Stop()
		for {
			mask |= host.TaskCPUs(pgid)
			select {
			case <-stopSeeing:
				seen <- mask
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(stopSeeing)
		return <-seen
	}
}

// readProbeOutput copies the probe's stdout (up to maxProbeOutput) and stderr (up to
// 1 MiB) while it runs, and reads and drops the rest, so that a full pipe never blocks the
// probe. The WaitGroup it returns is done when both pipes reach EOF.
func readProbeOutput(outR, errR *os.File, stdout, stderr *bytes.Buffer) *sync.WaitGroup {
	var readers sync.WaitGroup
	readers.Add(2)
	go func() {
		defer readers.Done()
		// A read error ends the copy; what was read is checked by the caller.
		_, _ = io.Copy(stdout, io.LimitReader(outR, maxProbeOutput))
		_, _ = io.Copy(io.Discard, outR)
	}()
	go func() {
		defer readers.Done()
		_, _ = io.Copy(stderr, io.LimitReader(errR, 1<<20))
		_, _ = io.Copy(io.Discard, errR)
	}()
	return &readers
}

// closeProbeOutput waits for the readers of readProbeOutput, then closes the pipes. Every
// writer is dead by then, so the pipes reach EOF; the deadline only guards against a
// descendant that left the process group.
func closeProbeOutput(readers *sync.WaitGroup, outR, errR *os.File) {
	finished := make(chan struct{})
	go func() { readers.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		outR.Close()
		errR.Close()
		<-finished
	}
	outR.Close()
	errR.Close()
}

// probeWatchdog kills a probe's process group when its timeout passes or its context is
// cancelled, and remembers which of the two happened for the error.
type probeWatchdog struct {
	mu                  sync.Mutex
	timedOut, cancelled bool
	done                chan struct{}
}

// watchProbe starts the watchdog of process group pgid; stop ends it once the probe has
// exited.
func watchProbe(ctx context.Context, pgid int, timeout time.Duration) *probeWatchdog {
	w := &probeWatchdog{done: make(chan struct{})}
	go func() {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		select {
		case <-w.done:
			return
		case <-timer.C:
			w.mu.Lock()
			w.timedOut = true
			w.mu.Unlock()
		case <-ctx.Done():
			w.mu.Lock()
			w.cancelled = true
			w.mu.Unlock()
		}
		unix.Kill(-pgid, unix.SIGKILL)
	}()
	return w
}

func (w *probeWatchdog) stop() { close(w.done) }

// outcome says whether the watchdog killed the probe, and why.
func (w *probeWatchdog) outcome() (timedOut, cancelled bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.timedOut, w.cancelled
}

// rusageOf is the probe's resource usage as the kernel counted it at its exit (zero where
// the platform gives none), with the CPUs its threads were seen on.
func rusageOf(ps *os.ProcessState, cpusSeen uint64) Rusage {
	var ru Rusage
	if ps != nil {
		if r, ok := ps.SysUsage().(*syscall.Rusage); ok && r != nil {
			ru = Rusage{
				Voluntary: r.Nvcsw, Involuntary: r.Nivcsw,
				User: time.Duration(r.Utime.Nano()), System: time.Duration(r.Stime.Nano()),
				MaxRSSKiB: r.Maxrss,
			}
		}
	}
	ru.CPUsSeen = cpusSeen
	return ru
}

// probeErr is why a finished probe gives no output (killed at its timeout, cancelled,
// rejected its input with exit status 2, failed), with the tail of its stderr; nil when
// it exited cleanly.
func probeErr(ctx context.Context, timeout time.Duration, waitErr error, stderr *bytes.Buffer, timedOut, cancelled bool) error {
	switch {
	case timedOut:
		return fmt.Errorf("probe timed out after %v and was killed", timeout)
	case cancelled:
		return fmt.Errorf("probe cancelled: %w", ctx.Err())
	case waitErr != nil:
		var ee *exec.ExitError
		msg := tail(stderr.String(), 1500)
		if errors.As(waitErr, &ee) && ee.ExitCode() == 2 {
			return fmt.Errorf("probe rejected its input: %s", msg)
		}
		return fmt.Errorf("probe failed (%w): %s", waitErr, msg)
	}
	return nil
}
