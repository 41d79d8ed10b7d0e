package store

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/ctxbench/ctxbench/internal/testenv"
)

// One handle writes 100 sittings while another reads the history in a
// loop and a third writes too: nobody sees an error (readers do not wait
// for writers, writers wait for each other), and every read is of whole
// sittings only.
func TestConcurrentHandles(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		w1, r, w2 := mustOpen(t, target), mustOpen(t, target), mustOpen(t, target)
		const n, cells, blocks = 100, 6, 8
		var wg sync.WaitGroup
		done := make(chan struct{})
		errs := make(chan error, 3)
		writer := func(s *Store, fp string) {
			defer wg.Done()
			for k := 0; k < n; k++ {
				if _, err := s.Record(ctx, sittingOf(fp, k, cells, blocks)); err != nil {
					errs <- fmt.Errorf("writer %s: %w", fp, err)
					return
				}
			}
		}
		reads := 0
		readerDone, reading := make(chan struct{}), make(chan struct{})
		var once sync.Once
		// The writers start after the first read, so the reads overlap them.
		startWriters := func() { once.Do(func() { close(reading) }) }
		go func() {
			defer close(readerDone)
			defer startWriters()
			for {
				h, err := r.History(ctx, "fp")
				if err != nil {
					errs <- fmt.Errorf("reader: %w", err)
					return
				}
				checkWhole(t, h, cells, blocks)
				reads++
				startWriters()
				select {
				case <-done:
					return
				default:
				}
			}
		}()
		<-reading
		wg.Add(2)
		go writer(w1, "fp")
		go writer(w2, "fp2")
		wg.Wait()
		close(done)
		<-readerDone
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		t.Logf("%d reads during the writes", reads)
		for _, fp := range []string{"fp", "fp2"} {
			if c, err := r.Sittings(ctx, fp); err != nil || c != n {
				t.Errorf("%s: %d sittings, %v", fp, c, err)
			}
		}
	})
}

// The same across processes: three child processes open one new store at
// once (so they race to make its schema) and write 100 sittings each, all
// under one fingerprint (so they race to insert it), while this one reads.
// Every commit a child reports is in the store, whole, and the reads in
// between saw whole sittings only.
func TestConcurrentProcesses(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		const children, n = 3, 50
		reported := make(chan map[int64]int, children)
		var cmds []*exec.Cmd
		for c := 0; c < children; c++ {
			cmd, out := startChild(t, "write", target, n)
			cmds = append(cmds, cmd)
			go func() { reported <- readCommits(out) }()
		}
		s := mustOpen(t, target)
		// The children's output is read to its end before Wait (os/exec:
		// Wait closes the pipe, and a line not yet read would be lost).
		committed := map[int64]int{}
		reads := 0
		for left := children; left > 0; {
			select {
			case got := <-reported:
				if len(got) != n {
					t.Errorf("a child reported %d commits, want %d", len(got), n)
				}
				maps.Copy(committed, got)
				left--
			default:
			}
			h, err := s.History(ctx, childFingerprint)
			if err != nil {
				t.Fatalf("reader: %v", err)
			}
			checkWhole(t, h, childCells, childBlocks)
			reads++
		}
		for _, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("child: %v", err)
			}
		}
		h, err := s.History(ctx, childFingerprint)
		if err != nil {
			t.Fatal(err)
		}
		found := checkWhole(t, h, childCells, childBlocks)
		if len(committed) != children*n || len(found) != children*n {
			t.Errorf("%d distinct ids reported, %d sittings found; want %d", len(committed), len(found), children*n)
		}
		for id, k := range committed {
			if got, ok := found[id]; !ok || got != k {
				t.Errorf("committed sitting %d (k=%d) not found", id, k)
			}
		}
		t.Logf("%d reads during the children's writes", reads)
	})
}

// readCommits reads a child's "ID SEQ" lines to the end.
func readCommits(out *bufio.Scanner) map[int64]int {
	got := map[int64]int{}
	for out.Scan() {
		f := strings.Fields(out.Text())
		id, _ := strconv.ParseInt(f[0], 10, 64)
		k, _ := strconv.Atoi(f[1])
		got[id] = k
	}
	return got
}

// A writer killed with SIGKILL in the middle of its writes loses nothing it
// committed and leaves nothing half written.
func TestSIGKILLMidWrite(t *testing.T) {
	backends(t, func(t *testing.T, target string) {
		ctx := context.Background()
		committed := map[int64]int{} // sitting id -> k, as the children reported
		for round := 0; round < 3; round++ {
			cmd, out := startChild(t, "forever", target, 0)
			// Killed after a different number of commits each round; a commit
			// takes a few milliseconds and the next write starts at once, so
			// the kill lands inside a transaction nearly always.
			stopAt := 10 + 7*round
			seen := 0
			for out.Scan() {
				f := strings.Fields(out.Text())
				id, _ := strconv.ParseInt(f[0], 10, 64)
				k, _ := strconv.Atoi(f[1])
				committed[id] = k
				if seen++; seen == stopAt {
					if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
						t.Fatal(err)
					}
					break
				}
			}
			for out.Scan() { // what was printed before the kill landed
				f := strings.Fields(out.Text())
				id, _ := strconv.ParseInt(f[0], 10, 64)
				k, _ := strconv.Atoi(f[1])
				committed[id] = k
			}
			err := cmd.Wait()
			var ee interface{ Sys() any }
			if !errors.As(err, &ee) {
				t.Fatalf("child ended with %v, want killed", err)
			}
			if ws, ok := ee.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child ended with %v, want SIGKILL", err)
			}
		}

		if !IsPostgres(target) {
			integrity(t, target)
		}
		s := mustOpen(t, target)
		h, err := s.History(ctx, childFingerprint)
		if err != nil {
			t.Fatal(err)
		}
		found := checkWhole(t, h, childCells, childBlocks) // every sitting whole
		for id, k := range committed {
			if got, ok := found[id]; !ok || got != k {
				t.Errorf("committed sitting %d (k=%d) missing after the kill", id, k)
			}
		}
		t.Logf("%d sittings reported committed, %d in the store", len(committed), len(found))
	})
}

// A full disk, as SQLite's page limit on the writing connection: Record
// fails with an error, and what was recorded before is intact.
func TestFullDiskPageLimit(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t)
	s := mustOpen(t, path)
	for k := 0; k < 3; k++ {
		if _, err := s.Record(ctx, sittingOf("fp", k, 4, 4)); err != nil {
			t.Fatal(err)
		}
	}
	before, err := s.History(ctx, "fp")
	if err != nil {
		t.Fatal(err)
	}
	// One connection, so the limit is on the one Record uses.
	s.db.SetMaxOpenConns(1)
	var pages int
	if err := s.db.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	_, err = s.Record(ctx, sittingOf("fp", 3, 200, 50))
	if err == nil {
		t.Fatal("Record beyond the page limit succeeded")
	}
	var se *sqlite.Error
	if !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_FULL {
		t.Errorf("error %v, want SQLITE_FULL", err)
	}
	t.Logf("full: %v", err)
	after, err := s.History(ctx, "fp")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Error("history changed by the failed Record")
	}
	s.Close()
	integrity(t, path)
	s = mustOpen(t, path)
	if n, err := s.Sittings(ctx, "fp"); err != nil || n != 3 {
		t.Errorf("%d sittings after reopening, %v", n, err)
	}
	if _, err := s.Record(ctx, sittingOf("fp", 3, 200, 50)); err != nil {
		t.Errorf("Record after the limit is gone: %v", err)
	}
}

// A real full disk: a tiny tmpfs (root only, where mounting works).
func TestFullDiskTmpfs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if !mount(t, dir, "size=256k") {
		testenv.Skip(t, testenv.Root, "needs root and a tmpfs mount")
	}
	path := filepath.Join(dir, "history.db")
	s, _, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ok := 0
	var full error
	for k := 0; k < 10000; k++ {
		if _, err := s.Record(ctx, sittingOf("fp", k, 10, 10)); err != nil {
			full = err
			break
		}
		ok++
	}
	if full == nil || ok == 0 {
		t.Fatalf("%d sittings, then %v: the disk never filled, or nothing fit", ok, full)
	}
	t.Logf("%d sittings fit, then: %v", ok, full)
	h, err := s.History(ctx, "fp")
	if err != nil {
		t.Fatal(err)
	}
	if got := len(checkWhole(t, h, 10, 10)); got != ok {
		t.Errorf("%d sittings readable on the full disk, want %d", got, ok)
	}
	s.Close()
	// Room again: the store opens, is sound, and has every sitting.
	if out, err := execMount("-o", "remount,size=8m", dir); err != nil {
		t.Fatalf("remount: %v: %s", err, out)
	}
	integrity(t, path)
	s2 := mustOpen(t, path)
	if n, err := s2.Sittings(ctx, "fp"); err != nil || n != ok {
		t.Errorf("%d sittings after the disk had room again, want %d (%v)", n, ok, err)
	}
	if _, err := s2.Record(ctx, sittingOf("fp", ok, 10, 10)); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

// Several handles opening one new path at once: each gets the store, no one
// sees another's half-made file as foreign or corrupt, and the schema is
// made once.
func TestConcurrentOpen(t *testing.T) {
	for _, b := range allBackends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			for round := 0; round < 5; round++ {
				target := b.target(t)
				var wg sync.WaitGroup
				errs := make(chan error, 8)
				for i := 0; i < 8; i++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						s, notes, err := Open(ctx, target)
						if err != nil {
							errs <- err
							return
						}
						defer s.Close()
						if len(notes) != 0 {
							errs <- fmt.Errorf("notes: %q", notes)
							return
						}
						if _, err := s.Record(ctx, sittingOf(fmt.Sprint("fp", i), 0, 2, 2)); err != nil {
							errs <- err
						}
					}()
				}
				wg.Wait()
				close(errs)
				for err := range errs {
					t.Error(err)
				}
				if IsPostgres(target) {
					continue
				}
				asides, _ := filepath.Glob(target + ".*")
				if len(asides) != 0 {
					t.Errorf("moved aside: %q", asides)
				}
			}
		})
	}
}
