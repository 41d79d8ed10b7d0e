package serverdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/workload/procs"
)

func TestNewAndRemove(t *testing.T) {
	d, err := New("t", -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Dir(d.Path) != Base || len(d.Path) > 60 {
		t.Errorf("path %q: want a short path in %s", d.Path, Base)
	}
	if _, err := os.Stat(d.File("owner")); err != nil {
		t.Error("no owner file")
	}
	// A live owner (this process) protects the directory from a sweep.
	if _, err := Sweep(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path); err != nil {
		t.Fatal("sweep removed a live run's directory")
	}
	if err := d.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(d.Path); !os.IsNotExist(err) {
		t.Error("directory remains after Remove")
	}
}

// A directory whose owner died is swept, and its recorded server (with its process
// group) is killed.
func TestSweepStale(t *testing.T) {
	// A private base: other packages' tests sweep the shared one in
	// parallel, and this test's directory is stale on purpose.
	old := Base
	Base = t.TempDir()
	defer func() { Base = old }()
	d, err := New("t", -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	// The "owner" is a process that has exited.
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := writeID(d.File("owner"), gone.Process.Pid, 1); err != nil {
		t.Fatal(err)
	}
	// The "server": a shell leading its own group with a child, and a child
	// in a session of its own (as a PostgreSQL backend, which calls setsid).
	pidFile := filepath.Join(t.TempDir(), "setsid.pid")
	srv := exec.Command("sh", "-c", "sleep 60 & setsid sleep 60 & echo $! >"+pidFile+"; sleep 60")
	srv.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { srv.Wait(); close(waited) }()
	time.Sleep(100 * time.Millisecond)
	if err := d.RecordServer(srv.Process.Pid); err != nil {
		t.Fatal(err)
	}
	if n := len(procs.Group(srv.Process.Pid)); n < 2 {
		t.Fatalf("server group has %d processes, want 2", n)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	loner, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	lst, err := procs.ReadStat(loner)
	if err != nil || lst.Pgrp == srv.Process.Pid {
		t.Fatalf("the setsid child %d should have left the server's group: %+v %v", loner, lst, err)
	}
	removed, err := Sweep()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(removed, d.Path) {
		t.Errorf("stale %s not swept (removed %v)", d.Path, removed)
	}
	<-waited
	if left := procs.Group(srv.Process.Pid); len(left) != 0 {
		t.Errorf("server group members %v survive the sweep", left)
	}
	if procs.Alive(loner, lst.StartTicks) {
		t.Errorf("the server's setsid child %d survives the sweep", loner)
		syscall.Kill(loner, syscall.SIGKILL)
	}
	if _, err := os.Stat(d.Path); !os.IsNotExist(err) {
		t.Error("stale directory remains")
	}
}
