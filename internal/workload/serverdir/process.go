package serverdir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

// Process is a throwaway server's life in its Dir, the part every such server
// shares: started as our child and the leader of its own process group,
// writing to a log in the directory, reaped in the background, recorded for
// a later Sweep, and stopped with everything it made.
type Process struct {
	// Dir is the server's private directory.
	Dir *Dir

	name    string // the server program, for errors ("postgres")
	log     string // the log's path, once started
	cmd     *exec.Cmd
	pid     int
	start   uint64
	done    chan struct{}
	stopped bool
}

// NewProcess makes the directory (see New) of a server run by program name;
// nothing runs until Start. Stop removes the directory.
func NewProcess(kind, name string, uid, gid int) (*Process, error) {
	dir, err := New(kind, uid, gid)
	if err != nil {
		return nil, err
	}
	p := &Process{Dir: dir, name: name, done: make(chan struct{})}
	close(p.done) // nothing to wait for until the server starts
	return p, nil
}

// Start starts cmd in the directory, pinned to cpus from the start (host.StartPinned),
// its output in the directory's file logName (made with perm), in a process group of
// its own so that a terminal's Ctrl-C reaches only ctxbench, which then stops it in
// order. cmd.SysProcAttr may carry a Credential.
func (p *Process) Start(cmd *exec.Cmd, cpus []int, logName string, perm os.FileMode) error {
	p.log = p.Dir.File(logName)
	logf, err := os.OpenFile(p.log, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	defer logf.Close()
	cmd.Dir = p.Dir.Path
	cmd.Stdout, cmd.Stderr = logf, logf
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr = host.DieWithParent(cmd.SysProcAttr)
	if err := host.StartPinned(cmd, cpus); err != nil {
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	p.cmd = cmd
	p.pid = cmd.Process.Pid
	p.done = make(chan struct{})
	go func() { _ = cmd.Wait(); close(p.done) }() // how it exited is in its log
	if st, err := procs.ReadStat(p.pid); err == nil {
		p.start = st.StartTicks
	}
	if err := p.Dir.RecordServer(p.pid); err != nil {
		// A server that dies at once can be gone before its pid is
		// recorded: say it exited, with its log, as WaitReady does.
		select {
		case <-p.done:
			return p.exited()
		case <-time.After(2 * time.Second):
		}
		return err
	}
	return nil
}

// WaitReady calls ready, each call given at most try, every pause until it succeeds;
// it gives up when the server exits, ctx ends or limit has passed, quoting the log.
func (p *Process) WaitReady(ctx context.Context, limit, try, pause time.Duration, ready func(context.Context) error) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-p.done:
			return p.exited()
		default:
		}
		tctx, cancel := context.WithTimeout(ctx, try)
		err := ready(tctx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %d s: %w: %s", p.name, int(limit/time.Second), err, p.logTail())
		}
		time.Sleep(pause)
	}
}

func (p *Process) exited() error {
	return fmt.Errorf("%s exited during start-up: %s", p.name, p.logTail())
}

func (p *Process) logTail() string {
	b, _ := os.ReadFile(p.log)
	return Tail(string(b), 600)
}

// Pid is the server's top process.
func (p *Process) Pid() int { return p.pid }

// Exited is closed when the server's top process has exited.
func (p *Process) Exited() <-chan struct{} { return p.done }

// Stop asks the server to exit with sig and stops it as Shutdown does, then removes
// the directory. It is safe to call more than once, and on a nil Process.
func (p *Process) Stop(sig syscall.Signal) error {
	if p == nil || p.stopped {
		return nil
	}
	p.stopped = true
	var errs []error
	if p.cmd != nil {
		if err := Shutdown(p.cmd.Process, p.pid, p.start, p.done, sig); err != nil {
			errs = append(errs, err)
		}
	}
	if err := p.Dir.Remove(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
