// Package pgserver starts a throwaway PostgreSQL for one run: initdb into a private
// temporary directory as an unprivileged user, a postmaster started directly as a child
// (not daemonized by pg_ctl, so it can be killed and reaped), unix socket only, and a
// table of names to query. Stop removes every process and file it made.
package pgserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// ErrMissing means the PostgreSQL server binaries were not found.
var ErrMissing = errors.New("PostgreSQL server binaries (initdb, postgres) not found; install them with: " + InstallHint)

// Table is the name of the table the embedded server holds.
const Table = "names"

// Options configure Start.
type Options struct {
	// BinDir holds initdb and postgres; empty means look for them.
	BinDir string
	// MaxConnections is the server's max_connections (at least the largest pool + a few).
	MaxConnections int
	// CPUs, when not empty, pins the postmaster and everything it forks from the start.
	CPUs []int
	// Rows is how many names to load (ids 1..Rows).
	Rows int
	// NoIndex leaves the table without a primary key, as the published schema did, so
	// every lookup scans the table.
	NoIndex bool
}

// Server is a running throwaway PostgreSQL.
type Server struct {
	// DSN connects to the server (unix socket, trust authentication).
	DSN string
	// Version is the server's version string (server_version).
	Version string
	// BinDir is where the binaries were found.
	BinDir string

	proc *serverdir.Process
}

// FindBinDir returns the directory holding initdb and postgres: pg_config --bindir,
// then the newest of the platform's versioned directories (binDirs), then PATH.
func FindBinDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); has(d) {
			return d, nil
		}
	}
	dirs := binDirs()
	sort.Slice(dirs, func(i, j int) bool { return majorOf(dirs[i]) > majorOf(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if resolved, err := filepath.EvalSymlinks(p); err == nil && has(filepath.Dir(resolved)) {
			return filepath.Dir(resolved), nil
		}
		if has(filepath.Dir(p)) {
			return filepath.Dir(p), nil
		}
	}
	return "", ErrMissing
}

func majorOf(binDir string) float64 {
	base := filepath.Base(filepath.Dir(binDir)) // "16", or Homebrew's "postgresql@16"
	v, _ := strconv.ParseFloat(base[strings.LastIndexByte(base, '@')+1:], 64)
	return v
}

// runAs picks the user the server runs as: initdb and postgres refuse to run as root,
// so root hands them to the "postgres" user (or "nobody"); anyone else runs them as self.
func runAs() (cred *syscall.Credential, uid, gid int, err error) {
	if os.Geteuid() != 0 {
		return nil, -1, -1, nil
	}
	for _, name := range []string{"postgres", "nobody"} {
		u, err := user.Lookup(name)
		if err != nil {
			continue
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), NoSetGroups: true}, uid, gid, nil
	}
	return nil, 0, 0, errors.New("running as root and neither a 'postgres' nor a 'nobody' user exists to run PostgreSQL as")
}

// Start makes a fresh cluster, starts it and loads the table. On any error everything
// made so far is removed.
func Start(ctx context.Context, o Options) (s *Server, err error) {
	if o.MaxConnections <= 0 {
		o.MaxConnections = 300
	}
	if o.Rows <= 0 {
		o.Rows = 10000
	}
	bin := o.BinDir
	if bin == "" {
		if bin, err = FindBinDir(); err != nil {
			return nil, err
		}
	}
	cred, uid, gid, err := runAs()
	if err != nil {
		return nil, err
	}
	proc, err := serverdir.NewProcess("pg", "postgres", uid, gid)
	if err != nil {
		return nil, err
	}
	s = &Server{proc: proc, BinDir: bin}
	made := s // the named result is nil on error returns; tear down what was made
	defer func() {
		if err != nil {
			_ = made.Stop() // the error that brought us here is the one to report
		}
	}()

	dir := proc.Dir
	env := []string{"PATH=" + os.Getenv("PATH"), "LC_ALL=C", "HOME=" + dir.Path}
	data := dir.File("data")
	initdb := exec.CommandContext(ctx, filepath.Join(bin, "initdb"),
		"-D", data, "-A", "trust", "-U", "bench", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.Dir = dir.Path
	initdb.Env = env
	initdb.SysProcAttr = host.DieWithParent(&syscall.SysProcAttr{Credential: cred, Setpgid: true})
	// On cancellation kill initdb's whole group: it runs postgres in bootstrap mode as a child.
	initdb.Cancel = func() error { return syscall.Kill(-initdb.Process.Pid, syscall.SIGKILL) }
	if out, err := initdb.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("initdb: %w: %s", err, serverdir.Tail(string(out), 400))
	}

	// The postmaster runs in the foreground as our child, in a process group of its own
	// (proc.Start).
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data,
		"-c", "listen_addresses=",
		"-c", "unix_socket_directories="+dir.Path,
		"-c", "port=5432",
		"-c", "max_connections="+strconv.Itoa(o.MaxConnections),
		"-c", "fsync=off",
		"-c", "synchronous_commit=off",
		"-c", "full_page_writes=off",
		"-c", "autovacuum=off", // the table is loaded once and vacuumed; no background workers during windows
		"-c", "logging_collector=off",
		"-c", "shared_buffers=128MB",
	)
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if err := proc.Start(cmd, o.CPUs, "postgres.log", 0o644); err != nil {
		return nil, err
	}

	s.DSN = fmt.Sprintf("host=%s port=5432 user=bench dbname=postgres sslmode=disable", dir.Path)
	var conn *pgx.Conn
	err = proc.WaitReady(ctx, 60*time.Second, 2*time.Second, 50*time.Millisecond, func(ctx context.Context) (err error) {
		conn, err = pgx.Connect(ctx, s.DSN)
		return err
	})
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(ctx, "SHOW server_version").Scan(&s.Version); err != nil {
		return nil, fmt.Errorf("postgres version: %w", err)
	}
	if err := Load(ctx, conn, Table, o.Rows, o.NoIndex); err != nil {
		return nil, err
	}
	return s, nil
}

// Load creates table (dropping an older one of that name) with rows 1..rows of names
// and vacuums it.
func Load(ctx context.Context, conn *pgx.Conn, table string, rows int, noIndex bool) error {
	ident := pgx.Identifier{table}.Sanitize()
	key := ", PRIMARY KEY (id)"
	if noIndex {
		key = ""
	}
	stmts := []string{
		"DROP TABLE IF EXISTS " + ident,
		fmt.Sprintf("CREATE TABLE %s (id integer NOT NULL, name character varying(255) NOT NULL%s)", ident, key),
		// Names are pronounceable strings derived from md5 so every row differs.
		fmt.Sprintf(`INSERT INTO %s SELECT i, initcap(translate(substr(md5(i::text), 1, 5 + i %% 6), '0123456789', 'aeiouybrkl'))
			FROM generate_series(1, %d) AS i`, ident, rows),
		"VACUUM ANALYZE " + ident,
	}
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("load %s: %w", table, err)
		}
	}
	return nil
}

// Pid is the postmaster's pid.
func (s *Server) Pid() int { return s.proc.Pid() }

// Dir is the server's private directory (data, socket, log).
func (s *Server) Dir() string { return s.proc.Dir.Path }

// Exited is closed when the postmaster has exited.
func (s *Server) Exited() <-chan struct{} { return s.proc.Exited() }

// Processes lists the postmaster and its live children.
func (s *Server) Processes() []int {
	return append([]int{s.Pid()}, procs.Children(s.Pid())...)
}

// Stop shuts the server down (fast shutdown, then SIGKILL to its process group after
// 10 s), waits for every process of the group to be gone and removes the directory.
// It is safe to call more than once.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	// SIGINT is postgres's "fast" shutdown: roll back, disconnect, exit.
	return s.proc.Stop(syscall.SIGINT)
}
