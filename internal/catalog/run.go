package catalog

import (
	"context"
	"errors"

	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/partner"
)

// needsCgo is the availability check of every C kernel.
func needsCgo() (bool, string) {
	if !kernels.Built {
		return false, "built without cgo: the C kernels are missing (rebuild with CGO_ENABLED=1 and a C compiler)"
	}
	return true, ""
}

// emulation is the emulator this process runs under ("" natively), read
// once: host.Emulation.
var emulation = sync.OnceValue(func() string { name, _ := host.Emulation(""); return name })

// needsSingleThreaded is the availability of the rows whose sides are
// single-threaded processes (process/pipe, process/futex): under qemu-user
// every process holds a thread of the emulator's own, so no side can be.
func needsSingleThreaded() (bool, string) {
	if ok, why := needsCgo(); !ok {
		return ok, why
	}
	if emu := emulation(); emu != "" {
		return false, "emulated by " + emu + ", which runs a thread of its own in every process: no side can be single-threaded"
	}
	return true, ""
}

// needsSwap is the availability of the hand-written register swap
// (floor.c on x86-64, floor_arm64.c on arm64).
func needsSwap() (bool, string) {
	if ok, why := needsCgo(); !ok {
		return ok, why
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64" {
		return false, "the hand-written register swap exists for x86-64 and arm64 only (this is " + runtime.GOARCH + ")"
	}
	return true, ""
}

// block is the kernel block of a request.
func block(r model.Request) kernels.Block {
	return kernels.Block{Iters: r.Iters, Samples: r.Samples, Warmup: r.Warmup, CPUA: r.CPUA, CPUB: r.CPUB, Arg: r.Arg, Perf: r.Perf}
}

func response(out kernels.Output) model.Response {
	return model.Response{NS: out.NS, TSC: out.TSC, A: out.A, B: out.B, Process: out.Process}
}

// inProcess runs a C kernel whose sides both live in the worker.
func inProcess(k kernels.Kernel) func(context.Context, model.Request) (model.Response, error) {
	return func(_ context.Context, req model.Request) (model.Response, error) {
		out, err := kernels.Run(k, block(req))
		return response(out), err
	}
}

// goroutines runs a goroutine kernel and notes the GOMAXPROCS it ran with.
func goroutines(k kernels.Kernel) func(context.Context, model.Request) (model.Response, error) {
	return func(_ context.Context, req model.Request) (model.Response, error) {
		out, err := kernels.RunGo(k, block(req))
		r := response(out)
		r.GOMAXPROCS = runtime.GOMAXPROCS(0)
		return r, err
	}
}

// TwoProcess runs side A of a kernel here and side B in a partner process.
// files are handed to the partner as fds 3, 4, ...; fdsA are the worker's
// own descriptors for side A. After the partner has started, the worker
// closes closeAfterStart (its copies of the partner's ends), so that a dead
// partner shows up as end-of-file rather than a hang.
type TwoProcess struct {
	A, B            kernels.Kernel
	Files           []*os.File
	CloseAfterStart []*os.File
	FilesA          []*os.File // side A's own descriptors, when side A is a partner too
	FDsA            []int
	Spec            partner.Spec // SysProcAttr, Enter hook; model.Request and Files are filled in
	// RunA runs side A; nil means kernels.Run(A, ...).
	RunA func(kernels.Block) (kernels.Output, error)
}

// Run starts the partner, runs side A, and collects both sides' counts. A
// partner that dies during the block ends it at once with an error.
func (t TwoProcess) Run(ctx context.Context, req model.Request) (model.Response, error) {
	spec := t.Spec
	spec.Kernel = t.B
	spec.Block = block(req)
	spec.Files = t.Files
	if spec.Stderr == nil {
		spec.Stderr = os.Stderr
	}
	p, err := partner.Start(ctx, spec)
	for _, f := range t.CloseAfterStart {
		f.Close()
	}
	if err != nil {
		return model.Response{}, err
	}
	blk := block(req)
	copy(blk.FD[:], t.FDsA)
	type ret struct {
		out kernels.Output
		err error
	}
	done := make(chan ret, 1)
	go func() {
		var out kernels.Output
		var err error
		if t.RunA != nil {
			out, err = t.RunA(blk)
		} else {
			out, err = kernels.Run(t.A, blk)
		}
		done <- ret{out, err}
	}()
	var r ret
	select {
	case r = <-done:
	case <-p.Exited():
		if e := p.ExitError(); e != nil {
			return model.Response{}, fmt.Errorf("%w during the measurement", e)
		}
		r = <-done
	case <-ctx.Done():
		p.Kill()
		return model.Response{}, ctx.Err()
	}
	if r.err != nil {
		p.Kill()
		if e := p.ExitError(); e != nil {
			return model.Response{}, fmt.Errorf("%w (side A: %w)", e, r.err)
		}
		return model.Response{}, r.err
	}
	b, err := p.Result()
	if err != nil {
		return model.Response{}, err
	}
	resp := response(r.out)
	resp.B = b
	if len(p.Entered) > 0 {
		resp.Evidence = map[string]string{"partner_entered": string(p.Entered)}
	}
	return resp, nil
}

// pipePair returns the descriptors of a two-pipe ping-pong across
// processes: the partner gets (read from A, write to A), A keeps (read from
// B, write to B).
func pipePair() (TwoProcess, func(), error) {
	aToBr, aToBw, err := os.Pipe()
	if err != nil {
		return TwoProcess{}, nil, err
	}
	bToAr, bToAw, err := os.Pipe()
	if err != nil {
		aToBr.Close()
		aToBw.Close()
		return TwoProcess{}, nil, err
	}
	t := TwoProcess{
		A: kernels.ProcPipeA, B: kernels.ProcPipeB,
		Files:           []*os.File{aToBr, bToAw},
		CloseAfterStart: []*os.File{aToBr, bToAw},
		FilesA:          []*os.File{bToAr, aToBw},
		FDsA:            []int{int(bToAr.Fd()), int(aToBw.Fd())},
	}
	cleanup := func() {
		for _, f := range []*os.File{aToBr, aToBw, bToAr, bToAw} {
			f.Close()
		}
	}
	return t, cleanup, nil
}

// sharedPage returns a one-page shared file (host.SharedMemory: a memfd
// on Linux) both sides map for a futex ping-pong.
func sharedPage() (TwoProcess, func(), error) {
	return sharedPageFor(kernels.ProcFutexA, kernels.ProcFutexB, "ctxbench-futex")
}

// sharedPageFor is a shared page for the two sides a and b of a
// wait-on-address ping-pong.
func sharedPageFor(a, b kernels.Kernel, name string) (TwoProcess, func(), error) {
	f, err := host.SharedMemory(name, 4096)
	if err != nil {
		return TwoProcess{}, nil, err
	}
	t := TwoProcess{A: a, B: b, Files: []*os.File{f}, FilesA: []*os.File{f}, FDsA: []int{int(f.Fd())}}
	return t, func() { f.Close() }, nil
}

// PipeProcesses measures the two-process pipe ping-pong with spec's
// isolation applied to the partner.
func PipeProcesses(ctx context.Context, req model.Request, spec partner.Spec) (model.Response, error) {
	t, cleanup, err := pipePair()
	if err != nil {
		return model.Response{}, err
	}
	defer cleanup()
	t.Spec = spec
	return t.Run(ctx, req)
}

// FutexProcesses measures the two-process futex ping-pong over shared memory.
func FutexProcesses(ctx context.Context, req model.Request, spec partner.Spec) (model.Response, error) {
	t, cleanup, err := sharedPage()
	if err != nil {
		return model.Response{}, err
	}
	defer cleanup()
	t.Spec = spec
	return t.Run(ctx, req)
}

// singleThreaded runs both sides of a two-process kernel in single-threaded
// processes (partner.Spec.SingleThreaded: the binary's C constructor runs
// the side before the Go runtime starts a thread), so the process rung
// measures the plain case that perf bench and lmbench measure. The worker
// only starts them, releases them together and collects what they counted.
func singleThreaded(ctx context.Context, req model.Request, pair func() (TwoProcess, func(), error), roleA, roleB string) (model.Response, error) {
	t, cleanup, err := pair()
	if err != nil {
		return model.Response{}, err
	}
	defer cleanup()
	start := func(role string, files []*os.File) (*partner.Process, error) {
		return partner.Start(ctx, partner.Spec{Request: partner.Request{Block: block(req)}, Files: files, Stderr: os.Stderr, SingleThreaded: role})
	}
	pb, err := start(roleB, t.Files)
	if err != nil {
		return model.Response{}, fmt.Errorf("side B: %w", err)
	}
	pa, err := start(roleA, t.FilesA)
	if err != nil {
		pb.Kill()
		return model.Response{}, fmt.Errorf("side A: %w", err)
	}
	cleanup() // only the sides hold the pipes now: a dead side is end-of-file to the other
	if err := errors.Join(pb.Go(), pa.Go()); err != nil {
		pa.Kill()
		pb.Kill()
		return model.Response{}, err
	}
	return collectPair(ctx, pa, pb)
}

// collectPair waits for both released sides of a two-process kernel that
// each run in a partner process: side A's samples and counts, side B's
// counts. A side that fails or dies ends the block at once (the other is
// killed: a futex waiter would wait for its dead partner for ever), and so
// does a cancelled ctx.
func collectPair(ctx context.Context, pa, pb *partner.Process) (model.Response, error) {
	type ret struct {
		out kernels.Output
		err error
	}
	doneA, doneB := make(chan ret, 1), make(chan ret, 1)
	go func() { o, err := pa.Output(); doneA <- ret{o, err} }()
	go func() { o, err := pb.Output(); doneB <- ret{o, err} }()
	var ra, rb ret
	for range 2 {
		select {
		case ra = <-doneA:
			if ra.err != nil {
				pb.Kill()
				return model.Response{}, fmt.Errorf("side A: %w", ra.err)
			}
		case rb = <-doneB:
			if rb.err != nil {
				pa.Kill()
				return model.Response{}, fmt.Errorf("side B: %w", rb.err)
			}
		case <-ctx.Done():
			pa.Kill()
			pb.Kill()
			return model.Response{}, ctx.Err()
		}
	}
	resp := response(ra.out)
	resp.B = rb.out.B
	return resp, nil
}
