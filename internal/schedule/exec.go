package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
)

// Executor runs one block of a cell.
type Executor interface {
	Block(ctx context.Context, c Cell, req model.Request, timeout time.Duration) (model.Response, error)
}

// ProcessExecutor runs each block in a re-executed worker process: this
// binary started with WorkerArg, pinned to the cell's CPUs, in a process
// group of its own.
type ProcessExecutor struct {
	Exe string // "" means this binary
	// Cleanup removes what a killed or failed worker could not (cgroups
	// of a worker killed by the watchdog); it runs in this process.
	Cleanup func()
}

// ErrTimeout is returned when a block outlives its watchdog.
var ErrTimeout = errors.New("watchdog")

// Block starts a worker pinned to the cell's CPUs, sends it the request,
// and waits for its answer, the watchdog, or ctx.
func (e ProcessExecutor) Block(ctx context.Context, c Cell, req model.Request, timeout time.Duration) (model.Response, error) {
	exe := e.Exe
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return model.Response{}, err
		}
	}
	in, err := json.Marshal(req)
	if err != nil {
		return model.Response{}, err
	}
	cmd := exec.Command(exe, WorkerArg)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	cmd.Env = workerEnv(c.Bench)
	cmd.SysProcAttr = host.DieWithParent(&syscall.SysProcAttr{Setpgid: true})
	// Wait also waits for the worker's stdout and stderr to close; a
	// partner in a group of its own (a container) that inherited them must
	// not hold the block open after the worker is gone.
	cmd.WaitDelay = 5 * time.Second
	if err := host.StartPinned(cmd, c.Affinity); err != nil {
		return model.Response{}, err
	}
	pgid := cmd.Process.Pid
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()

	var werr error
	timedOut, cancelled, killed := false, false, false
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case werr = <-waited:
	case <-timer.C:
		timedOut = true
		killed, werr = stopWorker(cmd.Process, pgid, waited)
	case <-ctx.Done():
		cancelled = true
		killed, werr = stopWorker(cmd.Process, pgid, waited)
	}
	// Partners of the worker are in its process group; make sure none
	// outlives it, whatever happened.
	killGroup(pgid)
	reapGroup(pgid)
	if cancelled || timedOut || werr != nil {
		// Partners in a process group of their own (containers) die with
		// the worker (Pdeathsig) and are reparented to us: reap them, then
		// remove what the worker could not.
		ReapOrphans()
		if e.Cleanup != nil {
			e.Cleanup()
		}
	}

	if cancelled {
		return model.Response{}, ctx.Err()
	}
	if timedOut {
		how := "stopped, and it cleaned up after itself"
		if killed {
			how = fmt.Sprintf("killed (it did not stop within %v of being asked)", workerGrace)
		}
		return model.Response{}, fmt.Errorf("%w: no answer within %v (a partner died or hung); the block was %s", ErrTimeout, timeout.Round(time.Millisecond), how)
	}
	var resp model.Response
	if err := json.Unmarshal(stdout.Bytes(), &resp); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = fmt.Sprint(werr)
		}
		return model.Response{}, fmt.Errorf("worker failed: %s", lastLine(msg))
	}
	if resp.Error != "" {
		return resp, errors.New(resp.Error)
	}
	if werr != nil {
		return resp, fmt.Errorf("worker: %w", werr)
	}
	return resp, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func workerEnv(b *model.Benchmark) []string {
	drop := map[string]bool{"GOGC": true}
	for _, k := range b.Unset {
		drop[k] = true
	}
	for _, kv := range b.Env {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	// A block is short and allocates almost nothing: no collector cycle
	// should land inside a sample.
	env = append(env, "GOGC=off")
	return append(env, b.Env...)
}

// workerGrace is how long a stopped worker has to clean up after itself.
const workerGrace = 2 * time.Second

// stopWorker asks the worker to stop (SIGTERM: it runs
// its cleanup and exits) and kills its whole group if it has not
// within workerGrace; killed says it had to.
func stopWorker(p *os.Process, pgid int, waited <-chan error) (killed bool, err error) {
	_ = p.Signal(syscall.SIGTERM)
	select {
	case err := <-waited:
		return false, err
	case <-time.After(workerGrace):
		killGroup(pgid)
		return true, <-waited
	}
}

func killGroup(pgid int) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

// reapGroup waits for the processes of a killed worker's group. Partners
// orphaned by the worker's death are reparented to this process (the CLI
// makes it a child subreaper), so they can be reaped here; waiting on -pgid
// touches no other child.
func reapGroup(pgid int) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		var ws unix.WaitStatus
		pid, err := unix.Wait4(-pgid, &ws, unix.WNOHANG, nil)
		if err == unix.ECHILD {
			// None of them is our child; wait until none is alive at all.
			if syscall.Kill(-pgid, 0) == syscall.ESRCH {
				return
			}
		} else if err == nil && pid > 0 {
			continue
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ReapOrphans kills and reaps the children of this process that run this
// binary (orphaned partners reparented to us as child subreaper, where the
// platform has one). Blocks run one at a time, so no such child is
// legitimately alive when it runs.
func ReapOrphans() {
	for _, c := range host.ChildrenOfThisBinary() {
		_ = syscall.Kill(c.PID, syscall.SIGKILL)
		var ws unix.WaitStatus
		_, _ = unix.Wait4(c.PID, &ws, 0, nil)
	}
}
