package store

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
)

// childEnv makes the test binary a child process instead of running tests:
// the crash and concurrency tests need a second process that holds the
// store, and re-executing this binary is the one that is always at hand.
// Its value is "MODE TARGET COUNT" (a path or a postgres:// URL): MODE write records COUNT sittings and
// exits; MODE forever records until it is killed. Either prints
// "ID SEQ" on stdout after each commit.
const childEnv = "CTXBENCH_STORE_TEST_CHILD"

func TestMain(m *testing.M) {
	if v := os.Getenv(childEnv); v != "" {
		if err := child(v); err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(2)
		}
		os.Exit(0)
	}
	code := m.Run()
	if pg.srv != nil {
		if err := pg.srv.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the test PostgreSQL:", err)
		}
	}
	os.Exit(code)
}

func child(spec string) error {
	f := strings.Fields(spec)
	if len(f) != 3 {
		return fmt.Errorf("bad spec %q", spec)
	}
	n, err := strconv.Atoi(f[2])
	if err != nil {
		return err
	}
	ctx := context.Background()
	s, _, err := Open(ctx, f[1])
	if err != nil {
		return err
	}
	defer s.Close()
	for k := 0; f[0] == "forever" || k < n; k++ {
		id, err := s.Record(ctx, sittingOf(childFingerprint, k, childCells, childBlocks))
		if err != nil {
			return err
		}
		// os.Stdout is unbuffered: the line is out before the next write
		// starts, so every line the parent reads names a commit.
		fmt.Printf("%d %d\n", id, k)
	}
	return nil
}

const (
	childFingerprint = "child"
	childCells       = 24
	childBlocks      = 16
)

// startChild runs this test binary as a child writer on path.
func startChild(t *testing.T, mode, path string, n int) (*exec.Cmd, *bufio.Scanner) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s %s %d", childEnv, mode, path, n))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, bufio.NewScanner(out)
}

// epoch is when test sitting 0 started; sitting k started k seconds later,
// so a Past's start time tells which sitting it is.
var epoch = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// sittingOf is test sitting k of a fingerprint: every figure follows from
// (k, cell, block), so a reader can tell a whole sitting from a torn one.
func sittingOf(fp string, k, cells, blocks int) Sitting {
	st := Sitting{
		Fingerprint: fp,
		Description: fmt.Sprintf(`{"fingerprint":%q,"cpus":2}`, fp),
		Started:     epoch.Add(time.Duration(k) * time.Second),
		Command:     fmt.Sprintf("ctxbench run #%d", k),
	}
	for c := 0; c < cells; c++ {
		st.Cells = append(st.Cells, cellOf(k, c, blocks))
	}
	return st
}

func cellOf(k, c, blocks int) Cell {
	base := float64(100*c+1) + float64(k)/1000
	cell := Cell{
		CellKey:    CellKey{Name: fmt.Sprintf("kernel-%d", c), Placement: []string{"same-cpu", "cross-cpu"}[c%2], CPUs: strconv.Itoa(c % 3)},
		Median:     base,
		CILow:      base - 0.5,
		CIHigh:     base + 0.75,
		Confidence: 0.95,
		Iterations: uint64(1000 + k),
		Contended:  (k+c)%5 == 0,
	}
	for b := 0; b < blocks; b++ {
		// Not monotone, so a reordering of blocks would show.
		cell.BlockMedians = append(cell.BlockMedians, base+float64((b*7)%blocks)/10)
	}
	return cell
}

// seqOf is the k of a test sitting from its start time.
func seqOf(p Past) int { return int(p.Started.Sub(epoch) / time.Second) }

// checkWhole fails unless h holds, for every sitting in it, exactly the
// cells sittingOf gave it, and returns the sittings found by id with their k.
func checkWhole(t *testing.T, h map[CellKey][]Past, cells, blocks int) map[int64]int {
	t.Helper()
	count := map[int64]int{}
	seq := map[int64]int{}
	for key, ps := range h {
		for _, p := range ps {
			k := seqOf(p)
			c, err := strconv.Atoi(strings.TrimPrefix(key.Name, "kernel-"))
			if want := cellOf(k, c, blocks); err != nil || c >= cells || !reflect.DeepEqual(p.Cell, want) {
				t.Errorf("sitting %d (k=%d) cell %v: got %+v, want %+v", p.SittingID, k, key, p.Cell, want)
			}
			count[p.SittingID]++
			seq[p.SittingID] = k
		}
	}
	for id, n := range count {
		if n != cells {
			t.Errorf("sitting %d has %d cells, want %d", id, n, cells)
		}
	}
	return seq
}

func tempPath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "ctxbench", "history.db")
}

func mustOpen(t *testing.T, path string) *Store {
	t.Helper()
	s, notes, err := Open(context.Background(), path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if len(notes) != 0 {
		t.Fatalf("Open notes: %q", notes)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// raw opens path with the driver alone: no probe, no migration, no pragmas,
// as another program (or a hand) would.
func raw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func integrity(t *testing.T, path string) {
	t.Helper()
	db := raw(t, path)
	var res string
	if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&res); err != nil {
		t.Fatal(err)
	}
	if res != "ok" {
		t.Fatalf("integrity_check: %s", res)
	}
	db.Close()
}

func same(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }

// backend is where a test's store is: a new SQLite file, or a new database
// of the test run's PostgreSQL.
type backend struct {
	name   string
	target func(t *testing.T) string
}

var allBackends = []backend{{"sqlite", tempPath}, {"postgres", pgTarget}}

// backends runs test, as a subtest, on a new store of each backend.
func backends(t *testing.T, test func(t *testing.T, target string)) {
	for _, b := range allBackends {
		t.Run(b.name, func(t *testing.T) { test(t, b.target(t)) })
	}
}

// pg is the test run's PostgreSQL: started when a test first needs it,
// stopped by TestMain. Each test gets a database of its own in it.
var pg struct {
	once sync.Once
	srv  *pgserver.Server
	err  error
	dbs  atomic.Int64
}

// needPostgres skips the test where the PostgreSQL server binaries are
// missing, as the workload pool's tests do.
func needPostgres(t *testing.T) {
	t.Helper()
	if _, err := pgserver.FindBinDir(); err != nil {
		testenv.Skip(t, testenv.Postgres, "PostgreSQL missing; install with: %s", pgserver.InstallHint)
	}
}

// pgTarget is the URL of a new, empty database of the test run's
// PostgreSQL.
func pgTarget(t *testing.T) string {
	t.Helper()
	needPostgres(t)
	pg.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		pg.srv, pg.err = pgserver.Start(ctx, pgserver.Options{Rows: 1, MaxConnections: 100})
	})
	if pg.err != nil {
		t.Fatalf("start PostgreSQL: %v", pg.err)
	}
	name := fmt.Sprintf("store_test_%d", pg.dbs.Add(1))
	pgExec(t, pgURL(pg.srv.Dir(), "postgres"), "CREATE DATABASE "+name)
	return pgURL(pg.srv.Dir(), name)
}

// pgURL names database db of the server listening in socketDir, as user
// bench (pgserver's; trust authentication).
func pgURL(socketDir, db string) string {
	return "postgres:///" + db + "?host=" + socketDir + "&user=bench&sslmode=disable"
}

// pgExec runs statements on target with the driver alone: no schema, no
// migration, as another program (or a hand) would.
func pgExec(t *testing.T, target string, qs ...string) {
	t.Helper()
	db := pgRaw(t, target)
	defer db.Close()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// pgRaw opens target with the driver alone.
func pgRaw(t *testing.T, target string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
