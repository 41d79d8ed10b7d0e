package pgserver

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

func need(t *testing.T) {
	t.Helper()
	if _, err := FindBinDir(); errors.Is(err, ErrMissing) {
		testenv.Skip(t, testenv.Postgres, "PostgreSQL binaries missing; install with: %s", InstallHint)
	}
}

// gone checks that nothing of a stopped server remains.
func gone(t *testing.T, pid int, dir string) {
	t.Helper()
	if left := procs.Group(pid); len(left) != 0 {
		t.Errorf("processes %v of the server's group remain", left)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("directory %s remains", dir)
	}
}

func TestStartQueryStop(t *testing.T) {
	need(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Rows: 500, MaxConnections: 310})
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := s.Pid(), s.Dir()
	defer s.Stop()
	conn, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	var rows, maxConns int
	var listen string
	if err := conn.QueryRow(ctx, "SELECT count(*), current_setting('max_connections')::int, current_setting('listen_addresses') FROM names").Scan(&rows, &maxConns, &listen); err != nil {
		t.Fatal(err)
	}
	var name string
	if err := conn.QueryRow(ctx, "SELECT name FROM names WHERE id=$1", 42).Scan(&name); err != nil || name == "" {
		t.Errorf("lookup: %q %v", name, err)
	}
	var backend int
	conn.QueryRow(ctx, "SELECT pg_backend_pid()").Scan(&backend)
	conn.Close(ctx)
	if rows != 500 || maxConns != 310 || listen != "" {
		t.Errorf("rows %d max_connections %d listen_addresses %q", rows, maxConns, listen)
	}
	if st, err := procs.ReadStat(backend); err == nil && st.PPid != pid {
		t.Errorf("backend %d's parent is %d, want the postmaster %d", backend, st.PPid, pid)
	}
	if len(s.Processes()) < 3 {
		t.Errorf("processes %v: want the postmaster and its auxiliary processes", s.Processes())
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	gone(t, pid, dir)
	if err := s.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// A server that cannot start leaves nothing behind.
func TestFailedStartCleansUp(t *testing.T) {
	need(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// max_connections beyond what PostgreSQL accepts makes the postmaster exit.
	_, err := Start(ctx, Options{MaxConnections: 1 << 30})
	if err == nil {
		t.Fatal("start with max_connections=2^30 succeeded")
	}
	if left := serverdir.Owned(); len(left) != 0 {
		t.Errorf("directories %v remain after a failed start", left)
	}
}

func TestMissingBinaries(t *testing.T) {
	_, err := Start(context.Background(), Options{BinDir: "/nonexistent"})
	if err == nil {
		t.Fatal("start with a missing bin dir succeeded")
	}
	if !errors.Is(ErrMissing, ErrMissing) || ErrMissing.Error() == "" {
		t.Fatal("no ErrMissing text")
	}
}
