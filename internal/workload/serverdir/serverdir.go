// Package serverdir makes the private temporary directories throwaway servers live in
// (data, socket, log), records who owns each one, and sweeps the directories and
// servers left behind by runs that were killed before they could clean up. Process
// is the part of a throwaway server's life every such server shares: start, wait
// until ready, stop.
//
// Each directory holds "owner" (pid and start time of the ctxbench process) and, once
// the server runs, "server" (pid and start time of the server's top process, which
// leads its own process group). A directory is stale when its owner is no longer alive.
package serverdir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

// Prefix starts the name of every directory this package makes.
const Prefix = "ctxbench-srv-"

// Base is where the directories are made. It is /tmp rather than $TMPDIR because a
// unix socket path must fit in 108 bytes.
var Base = "/tmp"

// Dir is one server's private directory.
type Dir struct {
	Path string
}

// New makes a directory for a server of the given kind (a short word such as "pg"),
// owned by uid:gid when uid >= 0 (the server may run as an unprivileged user), mode 0700.
func New(kind string, uid, gid int) (*Dir, error) {
	path, err := os.MkdirTemp(Base, Prefix+kind+"-")
	if err != nil {
		return nil, fmt.Errorf("make server directory: %w", err)
	}
	d := &Dir{Path: path}
	self, err := procs.ReadStat(os.Getpid())
	if err != nil {
		_ = d.Remove() // the error above is the one to report
		return nil, fmt.Errorf("read own start time: %w", err)
	}
	if err := writeID(filepath.Join(path, "owner"), self.Pid, self.StartTicks); err != nil {
		_ = d.Remove() // the error above is the one to report
		return nil, err
	}
	if uid >= 0 {
		if err := os.Chown(path, uid, gid); err != nil {
			_ = d.Remove() // the error above is the one to report
			return nil, fmt.Errorf("chown server directory: %w", err)
		}
	}
	return d, nil
}

// RecordServer notes the server's top process so a later sweep can stop it.
func (d *Dir) RecordServer(pid int) error {
	st, err := procs.ReadStat(pid)
	if err != nil {
		return fmt.Errorf("record server pid %d: %w", pid, err)
	}
	return writeID(filepath.Join(d.Path, "server"), pid, st.StartTicks)
}

// File returns the path of name inside the directory.
func (d *Dir) File(name string) string { return filepath.Join(d.Path, name) }

// Remove deletes the directory and everything in it.
func (d *Dir) Remove() error {
	if d == nil || d.Path == "" {
		return nil
	}
	return os.RemoveAll(d.Path)
}

func writeID(path string, pid int, start uint64) error {
	if err := os.WriteFile(path, []byte(fmt.Sprintf("%d %d\n", pid, start)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

func readID(path string) (pid int, start uint64, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, err
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return 0, 0, fmt.Errorf("%s: malformed", path)
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	return pid, start, nil
}

// KillGroup sends SIGKILL to the process group led by pid, to pid itself
// and to its children, and waits up to timeout for every one to be gone.
// Children are taken by name because they may have left the group:
// PostgreSQL backends call setsid(), and outlive a SIGKILLed postmaster.
// It only signals when pid is still the process that started at
// startTicks, so a recycled pid is never hit; a child is recognised by its
// own start time after it has been reparented.
func KillGroup(pid int, startTicks uint64, timeout time.Duration) error {
	var kids []procs.Stat
	if procs.Alive(pid, startTicks) {
		kids = procs.ChildStats(pid) // before the parent dies and they are reparented
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	deadline := time.Now().Add(timeout)
	for {
		left := procs.Group(pid)
		for _, k := range kids {
			if procs.Alive(k.Pid, k.StartTicks) && !slices.Contains(left, k.Pid) {
				left = append(left, k.Pid)
			}
		}
		if len(left) == 0 {
			return nil
		}
		for _, p := range left {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("processes %v of group %d still alive", left, pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Sweep stops the servers and removes the directories of earlier runs whose owner is no
// longer alive. It returns the directories it removed.
func Sweep() ([]string, error) {
	matches, err := filepath.Glob(filepath.Join(Base, Prefix+"*"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, dir := range matches {
		opid, ostart, err := readID(filepath.Join(dir, "owner"))
		if err == nil && procs.Alive(opid, ostart) {
			continue // a live run owns it
		}
		if err != nil {
			// No owner file: either a directory being made right now (owner written
			// within microseconds) or debris. Leave young ones alone.
			if fi, serr := os.Stat(dir); serr != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		}
		if spid, sstart, err := readID(filepath.Join(dir, "server")); err == nil {
			if procs.Alive(spid, sstart) {
				if err := KillGroup(spid, sstart, 5*time.Second); err != nil {
					errs = append(errs, fmt.Errorf("sweep %s: %w", dir, err))
					continue
				}
			}
		}
		if err := os.RemoveAll(dir); err != nil {
			errs = append(errs, fmt.Errorf("sweep %s: %w", dir, err))
			continue
		}
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// Leftovers lists directories of this package that exist now (for tests and checks).
func Leftovers() []string {
	m, _ := filepath.Glob(filepath.Join(Base, Prefix+"*"))
	return m
}

// Owned lists the directories this process made that still exist.
func Owned() []string {
	var out []string
	for _, d := range Leftovers() {
		if pid, _, err := readID(filepath.Join(d, "owner")); err == nil && pid == os.Getpid() {
			out = append(out, d)
		}
	}
	return out
}

// Shutdown stops a server started as the leader of its own process group:
// sig asks it to exit (SIGCONT first, so a stopped server can), SIGKILL to
// the group after 10 s, then the group is reaped of stragglers (a
// postmaster's backends can outlive it for a moment). done is closed when
// the server's Wait returned.
func Shutdown(p *os.Process, pid int, startTicks uint64, done <-chan struct{}, sig syscall.Signal) error {
	select {
	case <-done:
	default:
		_ = p.Signal(sig)
		_ = syscall.Kill(-pid, syscall.SIGCONT)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-pid, syscall.SIGKILL)
			<-done
		}
	}
	return KillGroup(pid, startTicks, 5*time.Second)
}

// Tail is the last n bytes of a server's log, on one line, for an error.
func Tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}
