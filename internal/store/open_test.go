package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/testenv"
)

// A store left at schema version 1 by an older ctxbench, with a sitting in
// it, is migrated on Open and the sitting survives.
func TestMigrateFromV1(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	db := raw(t, path)
	// What version 1 of Open did, by hand: the first migration, stamped.
	for _, q := range []string{
		`PRAGMA journal_mode = WAL`,
		`BEGIN`,
		migrations[0].sql,
		fmt.Sprintf(fSetApplicationID, ApplicationID),
		`PRAGMA user_version = 1`,
		`COMMIT`,
		`INSERT INTO fingerprints (id, fingerprint, description, first_ns) VALUES (1, 'old', '{"v":1}', 0)`,
		`INSERT INTO sittings (id, fingerprint_id, started_ns, command) VALUES (5, 1, 1000000000, 'ctxbench run')`,
		`INSERT INTO cells (id, sitting_id, name, placement, cpus, median, ci_low, ci_high, confidence, iterations, contended)
			VALUES (9, 5, 'k', 'same-cpu', '0', 1.5, 1.25, 1.75, 0.95, 100, 0)`,
		`INSERT INTO block_medians (cell_id, block, median) VALUES (9, 1, 1.6), (9, 0, 1.4)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	db.Close()

	s := mustOpen(t, path)
	var ver int
	if err := s.db.QueryRow(qUserVersion).Scan(&ver); err != nil || ver != SchemaVersion {
		t.Fatalf("user_version %d (%v), want %d", ver, err, SchemaVersion)
	}
	var idx int
	if err := s.db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'sittings_by_fingerprint'`).Scan(&idx); err != nil || idx != 1 {
		t.Errorf("migration 2 not applied: %d, %v", idx, err)
	}
	h, err := s.History(ctx, "old")
	if err != nil {
		t.Fatal(err)
	}
	ps := h[CellKey{"k", "same-cpu", "0"}]
	if len(ps) != 1 || ps[0].SittingID != 5 || ps[0].Median != 1.5 || ps[0].Started.Unix() != 1 ||
		len(ps[0].BlockMedians) != 2 || ps[0].BlockMedians[0] != 1.4 || ps[0].BlockMedians[1] != 1.6 {
		t.Fatalf("old sitting after migration: %+v", ps)
	}
	// And the migrated store takes new sittings.
	if _, err := s.Record(ctx, sittingOf("old", 1, 2, 2)); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.Sittings(ctx, "old"); n != 2 {
		t.Errorf("%d sittings", n)
	}
}

// A store of a newer schema is refused and left byte for byte as it was.
func TestNewerSchemaRefused(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t)
	s := mustOpen(t, path)
	if _, err := s.Record(ctx, sittingOf("fp", 0, 2, 3)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	db := raw(t, path)
	if _, err := db.Exec(fmt.Sprintf(fSetUserVersion, SchemaVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := files(t, filepath.Dir(path))

	_, notes, err := Open(ctx, path)
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("Open: %v, want ErrNewerSchema", err)
	}
	if !strings.Contains(err.Error(), "newer") {
		t.Errorf("error does not say newer: %v", err)
	}
	if len(notes) != 0 {
		t.Errorf("notes: %q", notes)
	}
	after := files(t, filepath.Dir(path))
	if !bytes.Equal(before[path], after[path]) {
		t.Error("the newer store's bytes changed")
	}
	for name := range after {
		if _, ok := before[name]; !ok && !strings.HasSuffix(name, "-shm") && !strings.HasSuffix(name, "-wal") {
			t.Errorf("new file %s", name)
		}
	}
}

// files maps every file in dir to its bytes.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for _, e := range es {
		p := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		m[p] = b
	}
	return m
}

// Whatever is at the path and is not a ctxbench store is moved aside whole
// (with its side files), a new store is made in its place, and one note
// says so.
func TestNotAStoreMovedAside(t *testing.T) {
	ctx := context.Background()
	// A real store, to truncate.
	good := tempPath(t)
	s := mustOpen(t, good)
	for k := 0; k < 20; k++ {
		if _, err := s.Record(ctx, sittingOf("fp", k, 10, 10)); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	store, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if len(store) < 8*4096 {
		t.Fatalf("real store is only %d bytes", len(store))
	}
	random := make([]byte, 8192)
	rand.Read(random)

	cases := []struct {
		name, kind string
		build      func(t *testing.T, path string)
	}{
		{"random bytes", "corrupt", write(random)},
		{"few bytes", "corrupt", write([]byte("SQLite"))},
		{"short text", "corrupt", write([]byte("# ctxbench history\nfp cell median\n"))},
		{"text", "corrupt", write([]byte(strings.Repeat("fp-a kernel-0 same-cpu 0 812.5\n", 40)))},
		{"truncated at a page", "corrupt", write(store[:len(store)/2/4096*4096])},
		{"truncated in page one", "corrupt", write(store[:1000])},
		{"damaged page", "corrupt", func(t *testing.T, path string) {
			b := bytes.Clone(store)
			copy(b[3*4096:], random[:4096]) // a b-tree page overwritten
			write(b)(t, path)
		}},
		{"random bytes with side files", "corrupt", func(t *testing.T, path string) {
			write(random)(t, path)
			write(random[:4000])(t, path+"-wal")
			write(random[:1000])(t, path+"-shm")
		}},
		{"foreign sqlite", "foreign", func(t *testing.T, path string) {
			db := raw(t, path)
			mustExec(t, db, `CREATE TABLE notes (body TEXT)`, `INSERT INTO notes VALUES ('not ctxbench')`)
			db.Close()
		}},
		{"foreign application id", "foreign", func(t *testing.T, path string) {
			db := raw(t, path)
			mustExec(t, db, `PRAGMA application_id = 1234`)
			db.Close()
		}},
		{"foreign sqlite with hot journal", "foreign", func(t *testing.T, path string) {
			// Another program's rollback-journal database as a crash
			// mid-transaction leaves it: changed pages in the file, the
			// originals in the -journal, which only a writer can put back.
			src := filepath.Join(t.TempDir(), "other.db")
			db := raw(t, src)
			db.SetMaxOpenConns(1)
			mustExec(t, db, `PRAGMA cache_size = 10`, `CREATE TABLE t (x BLOB)`, `BEGIN`)
			for i := 0; i < 100; i++ { // more than the cache: pages spill to the file
				mustExec(t, db, `INSERT INTO t VALUES (randomblob(4000))`)
			}
			for _, s := range []string{"", "-journal"} {
				b, err := os.ReadFile(src + s)
				if err != nil {
					t.Fatal(err)
				}
				write(b)(t, path+s)
			}
			mustExec(t, db, `ROLLBACK`)
			db.Close()
		}},
		{"foreign sqlite with live WAL", "foreign", func(t *testing.T, path string) {
			// Another program's WAL database as a crash leaves it: the
			// latest rows are in the -wal file only.
			src := filepath.Join(t.TempDir(), "other.db")
			db := raw(t, src)
			db.SetMaxOpenConns(1)
			mustExec(t, db, `PRAGMA journal_mode = WAL`, `PRAGMA wal_autocheckpoint = 0`,
				`CREATE TABLE notes (body TEXT)`, `INSERT INTO notes VALUES ('in the wal')`)
			for _, s := range []string{"", "-wal"} {
				b, err := os.ReadFile(src + s)
				if err != nil {
					t.Fatal(err)
				}
				write(b)(t, path+s)
			}
			db.Close()
		}},
	}
	asideName := regexp.MustCompile(`^history\.db\.(corrupt|foreign)-\d{8}-\d{6}$`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := tempPath(t)
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				t.Fatal(err)
			}
			c.build(t, path)
			before := files(t, filepath.Dir(path))

			s, notes, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer s.Close()
			if len(notes) != 1 || strings.Contains(notes[0], "\n") {
				t.Fatalf("notes: %q", notes)
			}
			t.Logf("note: %s", notes[0])
			asides, _ := filepath.Glob(path + ".*-*")
			var main string
			for _, a := range asides {
				if asideName.MatchString(filepath.Base(a)) {
					if main != "" {
						t.Fatalf("two aside files: %s, %s", main, a)
					}
					main = a
				}
			}
			if main == "" {
				t.Fatalf("no aside file among %q", asides)
			}
			if !strings.Contains(filepath.Base(main), "."+c.kind+"-") {
				t.Errorf("aside %s, want kind %s", main, c.kind)
			}
			if !strings.Contains(notes[0], main) {
				t.Errorf("note does not name %s: %s", main, notes[0])
			}
			// The original and each side file it had, byte for byte.
			for _, s := range sideFiles {
				if b, ok := before[path+s]; ok {
					got, err := os.ReadFile(main + s)
					if err != nil {
						t.Errorf("side file %s not moved: %v", s, err)
					} else if !bytes.Equal(got, b) {
						t.Errorf("side file %s changed", s)
					}
				}
			}
			got, err := os.ReadFile(main)
			if err != nil || !bytes.Equal(got, before[path]) {
				t.Fatalf("aside file differs from the original (%v)", err)
			}

			// A new store is in place and takes sittings.
			if _, err := s.Record(ctx, sittingOf("fp", 0, 2, 2)); err != nil {
				t.Fatal(err)
			}
			if n, err := s.Sittings(ctx, "fp"); err != nil || n != 1 {
				t.Fatalf("new store: %d sittings, %v", n, err)
			}
			s.Close()
			integrity(t, path)
			s2 := mustOpen(t, path) // no second move
			s2.Close()

			if c.name == "foreign sqlite with live WAL" {
				// Moved with its WAL, the other program's last row is still
				// there.
				db := raw(t, main)
				var body string
				if err := db.QueryRow(`SELECT body FROM notes`).Scan(&body); err != nil || body != "in the wal" {
					t.Errorf("other program's row: %q, %v", body, err)
				}
			}
		})
	}
}

// An empty file and an empty SQLite database are stores to be: no note.
func TestEmptyIsOurs(t *testing.T) {
	for name, build := range map[string]func(t *testing.T, path string){
		"empty file": write(nil),
		"empty sqlite": func(t *testing.T, path string) {
			db := raw(t, path)
			mustExec(t, db, `PRAGMA journal_mode = WAL`)
			db.Close()
		},
	} {
		t.Run(name, func(t *testing.T) {
			path := tempPath(t)
			os.MkdirAll(filepath.Dir(path), 0o700)
			build(t, path)
			s := mustOpen(t, path)
			if _, err := s.Record(context.Background(), sittingOf("fp", 0, 1, 1)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func write(b []byte) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func mustExec(t *testing.T, db *sql.DB, qs ...string) {
	t.Helper()
	for _, q := range qs {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// A directory that cannot be made or written is an error, not a panic, and
// a good store in a read-only directory is left where it is.
func TestUnwritableDirectory(t *testing.T) {
	ctx := context.Background()
	t.Run("under a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		write([]byte("x"))(t, file)
		if s, _, err := Open(ctx, filepath.Join(file, "ctxbench", "history.db")); err == nil {
			s.Close()
			t.Fatal("Open under a regular file succeeded")
		}
	})
	t.Run("read-only", func(t *testing.T) {
		dir := t.TempDir()
		readOnly := readOnlyDir(t, dir)
		path := filepath.Join(dir, "history.db")
		readOnly(true)
		if s, _, err := Open(ctx, path); err == nil {
			s.Close()
			t.Fatal("Open in a read-only directory succeeded")
		} else if !strings.Contains(err.Error(), "not writable") {
			t.Errorf("error does not say why: %v", err)
		}
		if s, _, err := Open(ctx, filepath.Join(dir, "missing", "history.db")); err == nil {
			s.Close()
			t.Fatal("Open under a read-only directory succeeded")
		}

		// A good store, then the directory made read-only.
		readOnly(false)
		s := mustOpen(t, path)
		if _, err := s.Record(ctx, sittingOf("fp", 0, 3, 3)); err != nil {
			t.Fatal(err)
		}
		s.Close()
		before := files(t, dir)
		readOnly(true)
		if s, notes, err := Open(ctx, path); err == nil {
			s.Close()
			t.Fatalf("Open of a store in a read-only directory succeeded (notes %q)", notes)
		} else if !strings.Contains(err.Error(), "not writable") {
			t.Errorf("error does not say why: %v", err)
		}
		after := files(t, dir)
		if len(after) != len(before) || !bytes.Equal(after[path], before[path]) {
			t.Fatalf("read-only directory changed: %d files before, %d after", len(before), len(after))
		}
		readOnly(false)
		s = mustOpen(t, path)
		if n, err := s.Sittings(ctx, "fp"); err != nil || n != 1 {
			t.Fatalf("store after the read-only spell: %d, %v", n, err)
		}
	})
}

// readOnlyDir returns a switch that makes dir read-only and writable again.
// Root writes through permission bits, so as root dir becomes a tmpfs
// remounted read-only (skipped where mounting is not allowed).
func readOnlyDir(t *testing.T, dir string) func(bool) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Cleanup(func() { os.Chmod(dir, 0o700) })
		return func(ro bool) {
			mode := os.FileMode(0o700)
			if ro {
				mode = 0o500
			}
			if err := os.Chmod(dir, mode); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !mount(t, dir, "size=4m") {
		testenv.Skip(t, testenv.Root, "root, and tmpfs cannot be mounted here")
	}
	return func(ro bool) {
		opt := "remount,rw"
		if ro {
			opt = "remount,ro"
		}
		if out, err := execMount("-o", opt, dir); err != nil {
			t.Fatalf("mount -o %s: %v: %s", opt, err, out)
		}
	}
}

func execMount(args ...string) ([]byte, error) {
	return exec.Command("mount", args...).CombinedOutput()
}

// mount mounts a tmpfs at dir, unmounted at cleanup; false if it cannot.
func mount(t *testing.T, dir, opts string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	if out, err := execMount("-t", "tmpfs", "-o", opts, "tmpfs", dir); err != nil {
		t.Logf("mount tmpfs: %v: %s", err, out)
		return false
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return true
}
