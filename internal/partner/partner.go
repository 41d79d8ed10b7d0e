// Package partner starts and runs the other side of a two-process
// measurement.
//
// A partner is this same binary re-executed with the hidden argument
// "__partner", never a fork() of the Go process: a Go process is
// multi-threaded, and after fork only async-signal-safe calls are allowed in
// the child. The parent passes the request as JSON on the child's stdin and
// the kernel's descriptors as fds 3, 4, ...; the child answers on stdout,
// which is a control channel: a line "ready" once it is pinned and about to
// enter its C loop, then one JSON line with what it counted.
//
// A partner dies with its parent (host.DieWithParent) and shares its process group,
// so killing the group of a worker kills its partners too.
package partner

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// Arg is the hidden argument that makes the binary run Main.
const Arg = "__partner"

// Request is what the parent sends on the child's stdin.
type Request struct {
	Kernel kernels.Kernel `json:"kernel"`
	Block  kernels.Block  `json:"block"`
	// Enter names a hook registered with RegisterEnter that the child runs
	// after start-up and before the kernel (e.g. entering a container's
	// seccomp filter); EnterArg is its argument.
	Enter    string          `json:"enter,omitempty"`
	EnterArg json.RawMessage `json:"enter_arg,omitempty"`
	// Hold makes the partner wait, after "ready", for Process.Go before it
	// enters its kernel, so the parent can inspect it (e.g. verify the
	// container it entered) before the first timed sample.
	Hold bool `json:"hold,omitempty"`
}

type reply struct {
	Output kernels.Output `json:"output"`
	Error  string         `json:"error,omitempty"`
}

// EnterFunc runs in the partner before its kernel; what it returns is sent
// back to the parent (e.g. what the child verified about itself).
type EnterFunc func(arg json.RawMessage) (json.RawMessage, error)

var (
	hooksMu sync.Mutex
	hooks   = map[string]EnterFunc{}
)

// RegisterEnter makes an enter hook available to partners by name.
func RegisterEnter(name string, f EnterFunc) {
	hooksMu.Lock()
	defer hooksMu.Unlock()
	hooks[name] = f
}

// Spec describes a partner to start.
type Spec struct {
	Request
	// Files become fds 3, 4, ... in the child, in order; Start fills
	// Request.Block.FD with those numbers.
	Files []*os.File
	// SysProcAttr adds namespaces, a cgroup, credentials. Start always sets
	// Pdeathsig, and never Setpgid (the partner stays in its parent's group).
	SysProcAttr *syscall.SysProcAttr
	Exe         string // the binary to re-execute; "" means this one
	Stderr      io.Writer
	// Start starts the command instead of cmd.Start, e.g. inside a
	// container's namespaces and cgroup. It may set its own process group
	// and SysProcAttr fields; it must start the command.
	Start func(*exec.Cmd) error
	// SingleThreaded names a side the binary runs in a C constructor
	// before its Go runtime starts ("pipe-a", "pipe-b", "futex-a",
	// "futex-b", "ring-head", "ring-member"; internal/kernels/st.c): the
	// partner is then a single-threaded process, its request is its
	// environment, and it waits for Process.Go after "ready" whatever
	// Hold says.
	SingleThreaded string
	// Confine is what a single-threaded side applies to itself before
	// "ready" (a container's capability drop and seccomp filter): no Go
	// code runs in it to do so.
	Confine *container.SelfApplied
	// Ring is a single-threaded ring head's parameters ("ring-head").
	Ring *RingHead
}

// RingHead is what a single-threaded ring head needs besides its block:
// the ring's size, what links it, and the sample length its rounds are
// calibrated to when Block.Iters is 0. Block.Arg is the working set.
type RingHead struct {
	Tasks       int
	MinSampleNS uint64
	IPC         kernels.RingIPC
	// Overhead: after the ring, measure the one-context overheads in the
	// head's own process (kernels.RingOverhead's figures).
	Overhead bool
}

// stEnv is a single-threaded side's request, as st.c reads it.
func stEnv(s Spec) []string {
	b := s.Block
	perf := 0
	if b.Perf {
		perf = 1
	}
	env := []string{"CTXBENCH_ST=" + s.SingleThreaded,
		fmt.Sprintf("CTXBENCH_ST_ITERS=%d", b.Iters), fmt.Sprintf("CTXBENCH_ST_SAMPLES=%d", b.Samples),
		fmt.Sprintf("CTXBENCH_ST_WARMUP=%d", b.Warmup), fmt.Sprintf("CTXBENCH_ST_CPU_A=%d", b.CPUA),
		fmt.Sprintf("CTXBENCH_ST_CPU_B=%d", b.CPUB), fmt.Sprintf("CTXBENCH_ST_PERF=%d", perf),
		fmt.Sprintf("CTXBENCH_ST_ARG=%d", b.Arg)}
	if r := s.Ring; r != nil {
		env = append(env, fmt.Sprintf("CTXBENCH_ST_RING_N=%d", r.Tasks),
			fmt.Sprintf("CTXBENCH_ST_RING_MIN_NS=%d", r.MinSampleNS), fmt.Sprintf("CTXBENCH_ST_RING_IPC=%d", int(r.IPC)))
		if r.Overhead {
			env = append(env, "CTXBENCH_ST_RING_OVERHEAD=1")
		}
	}
	if c := s.Confine; c != nil {
		if c.DropCaps {
			env = append(env, fmt.Sprintf("CTXBENCH_ST_CAPS=%x:%d", c.KeepCaps, c.LastCap))
		}
		if len(c.Seccomp) > 0 {
			// struct sock_filter as the kernel lays it out (little endian):
			// code u16, jt u8, jf u8, k u32.
			raw := make([]byte, 0, 8*len(c.Seccomp))
			for _, f := range c.Seccomp {
				raw = binary.LittleEndian.AppendUint16(raw, f.Code)
				raw = append(raw, f.Jt, f.Jf)
				raw = binary.LittleEndian.AppendUint32(raw, f.K)
			}
			env = append(env, "CTXBENCH_ST_SECCOMP="+hex.EncodeToString(raw))
		}
	}
	return env
}

// Process is a started partner.
type Process struct {
	cmd     *exec.Cmd
	ctl     *bufio.Reader
	ctlFile *os.File
	stdin   io.WriteCloser
	exited  chan struct{}
	waitErr error
	st      bool               // a single-threaded side (Spec.SingleThreaded)
	report  kernels.RingOutput // a single-threaded side's whole report (the ring's parts for a ring head)
	Entered json.RawMessage    // what the enter hook reported
}

type hooksKey struct{}

// Hooks are told of a partner's life by Start: Started with its pid as
// soon as the process exists, before it is sent its request; Ready when
// it has reported ready, just before Start returns it. A tracer tracks a
// partner from its first instruction of work and starts its recording
// window when the last partner is ready, so their start-up is not traced.
type Hooks struct {
	Started func(pid int)
	Ready   func()
}

// WithHooks returns a context under which Start calls h.
func WithHooks(ctx context.Context, h Hooks) context.Context {
	return context.WithValue(ctx, hooksKey{}, h)
}

// Start starts the partner and waits until it reports ready.
func Start(ctx context.Context, s Spec) (*Process, error) {
	cmd, stdin, in, err := command(s)
	if err != nil {
		return nil, err
	}
	out, err := startWithControl(cmd, s)
	if err != nil {
		return nil, err
	}
	hooks, _ := ctx.Value(hooksKey{}).(Hooks)
	if hooks.Started != nil {
		hooks.Started(cmd.Process.Pid)
	}
	p := &Process{cmd: cmd, ctl: bufio.NewReader(out), ctlFile: out, stdin: stdin, exited: make(chan struct{}), st: s.SingleThreaded != ""}
	// Reaped from the start, so that Kill (which waits for exited) can end it
	// from here on.
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	if !p.st { // a single-threaded side reads its request from its environment
		if _, err := stdin.Write(append(in, '\n')); err != nil {
			p.Kill()
			return nil, fmt.Errorf("sending the partner its request: %w", err)
		}
	}
	ready := p.readReady()
	select {
	case err := <-ready:
		if err == nil && p.st {
			err = p.singleThreaded()
		}
		if err != nil {
			p.Kill()
			return nil, err
		}
		if hooks.Ready != nil {
			hooks.Ready()
		}
		return p, nil
	case <-ctx.Done():
		p.Kill()
		return nil, ctx.Err()
	}
}

// command is the partner's command, not started: this binary (or s.Exe)
// re-executed with Arg, s.Files as fds 3, 4, ..., dying with its parent and
// in its group. It returns the command's stdin and the request to send on
// it (a single-threaded side has its request in its environment instead).
func command(s Spec) (cmd *exec.Cmd, stdin io.WriteCloser, in []byte, err error) {
	exe := s.Exe
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return nil, nil, nil, err
		}
	}
	req := s.Request
	for i := range s.Files {
		if i < len(req.Block.FD) {
			req.Block.FD[i] = 3 + i
		}
	}
	if in, err = json.Marshal(req); err != nil {
		return nil, nil, nil, err
	}
	cmd = exec.Command(exe, Arg)
	if s.SingleThreaded != "" {
		cmd.Env = append(os.Environ(), stEnv(s)...)
	}
	// The request is one line on stdin; a held partner then waits for one
	// more byte (Go) on the same pipe.
	if stdin, err = cmd.StdinPipe(); err != nil {
		return nil, nil, nil, err
	}
	cmd.Stderr = s.Stderr
	cmd.ExtraFiles = s.Files
	attr := &syscall.SysProcAttr{}
	if s.SysProcAttr != nil {
		a := *s.SysProcAttr
		attr = &a
	}
	attr = host.DieWithParent(attr)
	attr.Setpgid = false
	cmd.SysProcAttr = attr
	return cmd, stdin, in, nil
}

// startWithControl starts cmd (through s.Start when set) with its stdout
// on a pipe of ours, the control channel, and returns that pipe's read end.
func startWithControl(cmd *exec.Cmd, s Spec) (*os.File, error) {
	start := cmd.Start
	if s.Start != nil {
		start = func() error { return s.Start(cmd) }
	}
	// Our own pipe rather than cmd.StdoutPipe: Wait (which runs as soon as
	// the child exits, to notice a death) would close StdoutPipe's read end
	// under a reader that has not yet read the child's last line.
	out, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = w
	err = start()
	w.Close()
	if err != nil {
		out.Close()
		return nil, fmt.Errorf("starting the partner process: %w", err)
	}
	return out, nil
}

// readReady reads the partner's first control line in the background, so
// that Start can stop waiting for it when its context ends; the channel
// gets nil once the partner is ready (Entered set to what the enter hook
// reported), or why it is not.
func (p *Process) readReady() <-chan error {
	ready := make(chan error, 1)
	go func() {
		line, err := p.ctl.ReadString('\n')
		switch {
		case err != nil:
			ready <- fmt.Errorf("the partner exited before it was ready")
		case strings.HasPrefix(line, "error "):
			ready <- errors.New("partner: " + strings.TrimSpace(strings.TrimPrefix(line, "error ")))
		case strings.HasPrefix(line, "ready"):
			p.Entered = json.RawMessage(strings.TrimSpace(strings.TrimPrefix(line, "ready")))
			if len(p.Entered) == 0 {
				p.Entered = nil
			}
			ready <- nil
		default:
			ready <- fmt.Errorf("partner: unexpected control line %q", strings.TrimSpace(line))
		}
	}()
	return ready
}

// singleThreaded checks from outside that a single-threaded side has one
// thread: what its label claims.
func (p *Process) singleThreaded() error {
	n, err := host.ThreadCount(p.Pid())
	if err != nil {
		return fmt.Errorf("counting the single-threaded side's threads: %w", err)
	}
	if n != 1 {
		return fmt.Errorf("the single-threaded side has %d threads", n)
	}
	return nil
}

// Go releases a partner started with Hold into its kernel.
func (p *Process) Go() error {
	_, err := p.stdin.Write([]byte{'\n'})
	return err
}

// Pid is the partner's process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Exited is closed when the partner process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// ExitError describes how the partner ended, for error messages.
func (p *Process) ExitError() error {
	select {
	case <-p.exited:
		if p.waitErr != nil {
			return fmt.Errorf("the partner process died (%w)", p.waitErr)
		}
		return nil
	default:
		return nil
	}
}

// Result reads the partner's counts (side B's) and waits for it to exit.
func (p *Process) Result() (kernels.Counts, error) {
	out, err := p.Output()
	return out.B, err
}

// Output reads everything the partner's kernel measured (its side's counts
// in Output.A or Output.B, and the samples if it was the timing side) and
// waits for the partner to exit.
func (p *Process) Output() (kernels.Output, error) {
	line, err := p.ctl.ReadString('\n')
	<-p.exited
	p.ctlFile.Close()
	if err != nil && line == "" {
		if e := p.ExitError(); e != nil {
			return kernels.Output{}, e
		}
		return kernels.Output{}, errors.New("the partner exited without reporting its counts")
	}
	if p.st {
		out, err := parseSide(line)
		p.report = out
		return out.Output, err
	}
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		return kernels.Output{}, fmt.Errorf("partner: unreadable reply: %w", err)
	}
	if r.Error != "" {
		return kernels.Output{}, errors.New("partner: " + r.Error)
	}
	return r.Output, nil
}

// RingOutput is Output for a single-threaded ring head: its samples, its
// own counts in A, the ring's rounds and token, and the overheads if
// RingHead.Overhead asked for them.
func (p *Process) RingOutput() (kernels.RingOutput, error) {
	_, err := p.Output()
	return p.report, err
}

// Kill ends the partner at once and reaps it.
func (p *Process) Kill() {
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
	}
	<-p.exited
	p.ctlFile.Close()
}

// Main is the partner side: it reads the request from stdin, runs the enter
// hook, reports ready on ctl, runs the kernel and reports its counts.
func Main(stdin io.Reader, ctl io.Writer) int {
	var req Request
	in := bufio.NewReader(stdin)
	line, err := in.ReadBytes('\n')
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	if err != nil {
		fmt.Fprintf(ctl, "error bad request: %v\n", err)
		return 2
	}
	var entered json.RawMessage
	if req.Enter != "" {
		hooksMu.Lock()
		f := hooks[req.Enter]
		hooksMu.Unlock()
		if f == nil {
			fmt.Fprintf(ctl, "error unknown enter hook %q\n", req.Enter)
			return 2
		}
		var err error
		if entered, err = f(req.EnterArg); err != nil {
			fmt.Fprintf(ctl, "error %s: %v\n", req.Enter, err)
			return 1
		}
	}
	fmt.Fprintf(ctl, "ready %s\n", entered)
	if req.Hold {
		if _, err := in.ReadByte(); err != nil {
			return 1 // the parent went away before releasing us
		}
	}
	var out kernels.Output
	if strings.HasPrefix(string(req.Kernel), "kvm-") {
		out, _, err = kernels.KVMRun(kernels.KVMKernel(req.Kernel), req.Block)
	} else {
		out, err = kernels.Run(req.Kernel, req.Block)
	}
	r := reply{Output: out}
	if err != nil {
		r.Error = err.Error()
	}
	b, _ := json.Marshal(r)
	fmt.Fprintf(ctl, "%s\n", b)
	if err != nil {
		return 1
	}
	return 0
}

// parseSide reads a single-threaded side's report: "ok" and its counts
// (voluntary, involuntary, perf switches, migrations, instructions, cycles,
// CPUs seen, ops), its number of samples and each sample's ns and TSC
// ticks; for a ring head then "ring" and its rounds per sample, rounds and
// token, and optionally "overhead" and per sample the overhead's ns and TSC
// and the hot-cache overhead's ns and TSC; or "error <why>". The counts go
// to both A and B: the caller takes the side it ran.
func parseSide(line string) (kernels.RingOutput, error) {
	f := strings.Fields(line)
	bad := func(what string) (kernels.RingOutput, error) {
		return kernels.RingOutput{}, fmt.Errorf("single-threaded side: %s %q", what, strings.TrimSpace(line))
	}
	if len(f) > 0 && f[0] == "error" {
		return kernels.RingOutput{}, errors.New("single-threaded side: " + strings.TrimSpace(strings.TrimPrefix(line, "error")))
	}
	if len(f) < 10 || f[0] != "ok" {
		return bad("unreadable report")
	}
	v := make([]int64, 9)
	for i := range v {
		x, err := strconv.ParseInt(f[1+i], 10, 64)
		if i == 6 || i == 7 { // unsigned: CPUs seen, ops
			u, uerr := strconv.ParseUint(f[1+i], 10, 64)
			x, err = int64(u), uerr
		}
		if err != nil {
			return bad("unreadable report")
		}
		v[i] = x
	}
	c := kernels.Counts{Voluntary: v[0], Involuntary: v[1], PerfSwitches: v[2], PerfMigrations: v[3],
		PerfInstructions: v[4], PerfCycles: v[5], CPUsSeen: uint64(v[6]), Ops: uint64(v[7])}
	n := int(v[8])
	if n < 0 || n > (len(f)-10)/2 {
		return bad(fmt.Sprintf("%d samples announced in", n))
	}
	// The numbers after each word: n pairs of samples, then the optional
	// ring and overhead tails.
	nums := func(at, k int) ([]uint64, bool) {
		if at+k > len(f) {
			return nil, false
		}
		out := make([]uint64, k)
		for i := range out {
			x, err := strconv.ParseUint(f[at+i], 10, 64)
			if err != nil {
				return nil, false
			}
			out[i] = x
		}
		return out, true
	}
	samples, ok := nums(10, 2*n)
	if !ok {
		return bad("unreadable sample in")
	}
	var out kernels.RingOutput
	out.A, out.B, out.NS, out.TSC = c, c, make([]uint64, n), make([]uint64, n)
	for i := range n {
		out.NS[i], out.TSC[i] = samples[2*i], samples[2*i+1]
	}
	at := 10 + 2*n
	if at < len(f) {
		r, ok := nums(at+1, 3)
		if f[at] != "ring" || !ok {
			return bad("unreadable ring counts in")
		}
		out.RoundsPerSample, out.Rounds, out.Token = r[0], r[1], r[2]
		at += 4
	}
	if at < len(f) {
		o, ok := nums(at+1, 4*n)
		if f[at] != "overhead" || !ok || at+1+4*n != len(f) {
			return bad("unreadable ring overheads in")
		}
		for i := range n {
			out.OverheadNS = append(out.OverheadNS, o[4*i])
			out.OverheadTSC = append(out.OverheadTSC, o[4*i+1])
			out.HotNS = append(out.HotNS, o[4*i+2])
			out.HotTSC = append(out.HotTSC, o[4*i+3])
		}
	}
	return out, nil
}
