package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

const (
	// SchemaVersion is the schema this binary writes: PRAGMA user_version of
	// a store it has migrated.
	SchemaVersion = 3

	// ApplicationID marks a SQLite file as a ctxbench store (PRAGMA
	// application_id; the bytes spell "ctxb"). A SQLite file without it
	// that holds anything belongs to another program.
	ApplicationID = 0x63747862

	// busyTimeout is how long a writer waits for another process's write
	// transaction to end, and a reader for the rare moments (WAL recovery)
	// a reader must wait at all. Sittings are written in milliseconds, so
	// a few seconds is ample and still fails promptly on a stuck lock.
	busyTimeout = 5 * time.Second
)

// ErrNewerSchema is wrapped by Open's error when the store was written by
// a newer ctxbench: it is left untouched, since this binary cannot know
// what the newer schema means and must not migrate it backwards.
var ErrNewerSchema = errors.New("store written by a newer ctxbench")

// DefaultPath is $XDG_DATA_HOME/ctxbench/history.db, else
// $HOME/.local/share/ctxbench/history.db. A relative XDG_DATA_HOME is
// ignored, as the XDG base directory specification asks.
func DefaultPath() (string, error) {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "ctxbench", "history.db"), nil
	}
	if h := os.Getenv("HOME"); h != "" && filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "share", "ctxbench", "history.db"), nil
	}
	return "", errors.New("store: no place for the history: neither XDG_DATA_HOME nor HOME is set to an absolute path")
}

// Open opens the store target names: a PostgreSQL database when target is
// a postgres:// or postgresql:// URL (see openPostgres), else a SQLite file
// at the path target. Another scheme ("mysql://...") is refused: see
// CheckTarget.
//
// A SQLite store is opened or created at the path (creating its
// directory, 0700), in WAL mode with a busy timeout, and its schema is
// migrated to SchemaVersion. A file at the path that is not a ctxbench
// store (not SQLite at all, damaged, truncated, or another program's
// SQLite database) is moved aside, with its -wal, -shm and -journal files,
// to path.corrupt-YYYYMMDD-HHMMSS or path.foreign-YYYYMMDD-HHMMSS (UTC;
// never overwriting an existing file), and a new store is created; each
// such move is one line of the returned notes. A store of a newer schema
// is not touched: the error wraps ErrNewerSchema. Any other failure (a
// directory that cannot be created or written, a file that cannot be
// read) is an error and moves nothing.
func Open(ctx context.Context, target string) (*Store, []string, error) {
	if err := CheckTarget(target); err != nil {
		return nil, nil, fmt.Errorf("store: open: %w", err)
	}
	if IsPostgres(target) {
		s, err := openPostgres(ctx, target)
		return s, nil, err
	}
	return openSQLite(ctx, target)
}

// ErrNoStore is wrapped by OpenExisting's error when nothing is at the
// path: no history has been recorded there. The error is also
// fs.ErrNotExist.
var ErrNoStore = errors.New("no history there")

// OpenExisting opens the store target names for a command that only reads
// the history: it never creates one (nor its directory) where there is
// none, and never moves aside a file it finds that is not a ctxbench store
// (only a command that records may start a new history). A store of an
// older schema is migrated as Open migrates it; a PostgreSQL URL is opened
// as Open opens it (Open creates no database).
func OpenExisting(ctx context.Context, target string) (*Store, []string, error) {
	if err := CheckTarget(target); err != nil {
		return nil, nil, fmt.Errorf("store: open: %w", err)
	}
	if IsPostgres(target) {
		return Open(ctx, target)
	}
	path, err := filepath.Abs(target)
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", target, err)
	}
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("store: %s: %w (%w)", path, ErrNoStore, err)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, nil, fmt.Errorf("store: %s is a directory, not a history file", path)
	}
	v, err := probe(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if v.kind != "" {
		return nil, nil, fmt.Errorf("store: %s %s: not a history to read (a run that records would move it aside)", path, strings.Join(strings.Fields(v.why), " "))
	}
	return openSQLite(ctx, path)
}

// openSQLite is Open of a file path.
func openSQLite(ctx context.Context, path string) (*Store, []string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	path = abs
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	// SQLite needs to create its -wal and -shm files beside the store, and
	// says only "unable to open database file" when it cannot.
	if err := unix.Access(dir, unix.W_OK); err != nil {
		return nil, nil, fmt.Errorf("store: open %s: directory %s is not writable: %w", path, dir, err)
	}
	// Opening is judging the file (probe), perhaps moving it aside, and
	// migrating it: a second process doing the same at once could judge a
	// store the first is still creating (tables made, not yet stamped) as
	// another program's and move it aside. So opens take turns, under a
	// lock on the store's directory (flock: released when the process
	// ends, however it ends; no lock file is left behind). Reading and
	// recording need no such turn: SQLite's own locks cover them.
	deadline := time.Now().Add(busyTimeout)
	lock, err := os.Open(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	defer lock.Close()
	for unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB) != nil {
		if time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("store: open %s: another process kept the store's directory locked for %v", path, busyTimeout)
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("store: open %s: %w", path, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	// Switching a new store to WAL can still meet a reader's lock, which
	// SQLite answers with SQLITE_BUSY at once rather than through the busy
	// timeout: try again, within the same timeout.
	for {
		st, notes, err := openOnce(ctx, path)
		if c := code(err); (c != sqlite3.SQLITE_BUSY && c != sqlite3.SQLITE_LOCKED) || time.Now().After(deadline) {
			return st, notes, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, fmt.Errorf("store: open %s: %w", path, ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// openOnce is one attempt of Open, after its directory checks.
func openOnce(ctx context.Context, path string) (*Store, []string, error) {
	var notes []string
	v, err := probe(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if v.kind != "" {
		aside, err := moveAside(path, v.kind, v.file)
		if err != nil {
			return nil, nil, fmt.Errorf("store: open %s: it %s, and moving it aside failed: %w", path, v.why, err)
		}
		// One line each, as promised: SQLite's messages can span several.
		why := strings.Join(strings.Fields(v.why), " ")
		notes = append(notes, fmt.Sprintf("history store %s %s: moved it to %s and started a new one", path, why, aside))
	}
	db, err := sql.Open("sqlite", dsn(path, false))
	if err != nil {
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err = migrate(ctx, db, &sqliteDialect); err == nil {
		err = checkWAL(ctx, db)
	}
	if err != nil {
		db.Close()
		return nil, nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	return &Store{db: db, path: path, d: &sqliteDialect}, notes, nil
}

// dsn is the driver's name for the file. The path goes in as a file: URI
// (escaped, so a '?' or '#' in a directory name stays part of the path).
// The probe opens read-only and sets nothing that could write; the store
// itself takes the write lock at BEGIN (_txlock=immediate, see record),
// fsyncs every commit (a sitting recorded is a sitting kept, even across
// a power cut), and enforces the schema's foreign keys.
func dsn(path string, probe bool) string {
	q := url.Values{}
	q.Set("_busy_timeout", fmt.Sprint(busyTimeout.Milliseconds()))
	if probe {
		q.Set("mode", "ro")
	} else {
		q.Set("_txlock", "immediate")
		q.Set("_journal_mode", "WAL")
		q.Set("_synchronous", "FULL")
		q.Set("_foreign_keys", "1")
	}
	u := url.URL{Scheme: "file", Path: path, RawQuery: q.Encode()}
	// url.URL writes file:///abs; SQLite takes an empty authority as the
	// local host.
	return u.String()
}

// verdict is what the probe found at a path. kind is "" for a file to open
// as it is (absent, empty, or a ctxbench store of this or an older
// schema), else "corrupt" or "foreign", with why saying what was found.
type verdict struct {
	kind, why string
	file      os.FileInfo // what was probed, so the move can check it is the same file
}

var sqliteHeader = []byte("SQLite format 3\x00")

// probe looks at path without writing to it: a read-only connection, no
// journal-mode change, no checkpoint on close.
func probe(ctx context.Context, path string) (verdict, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return verdict{}, nil
	}
	if err != nil {
		return verdict{}, err
	}
	if !fi.Mode().IsRegular() {
		return verdict{}, fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	if fi.Size() == 0 {
		// SQLite's own new files start empty: this is a store to be.
		return verdict{}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return verdict{}, err
	}
	head := make([]byte, 100) // the SQLite database header
	_, err = io.ReadFull(f, head)
	f.Close()
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return verdict{"corrupt", fmt.Sprintf("is %d bytes, too short for a SQLite database", fi.Size()), fi}, nil
	case err != nil:
		return verdict{}, err
	case !bytes.HasPrefix(head, sqliteHeader):
		return verdict{"corrupt", "is not a SQLite database", fi}, nil
	}

	db, err := sql.Open("sqlite", dsn(path, true))
	if err != nil {
		return verdict{}, err
	}
	defer db.Close()
	damaged := func(err error) (verdict, error) {
		switch code(err) {
		case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			// The content is bad: moving it aside is right. Any other error
			// is about reaching the file (permissions, locks, I/O), where
			// moving it could lose a good store.
			return verdict{"corrupt", "is damaged (" + err.Error() + ")", fi}, nil
		case sqlite3.SQLITE_READONLY:
			// Only a writer can read on: a rollback journal is hot (a
			// transaction was cut short) or a WAL needs recovery. Judge by
			// the header's stamp (big-endian at offsets 68 and 60) instead.
			return unfinished(fi, binary.BigEndian.Uint32(head[68:]), binary.BigEndian.Uint32(head[60:]))
		}
		return verdict{}, err
	}
	var app, ver, objects int64
	if err := db.QueryRowContext(ctx, qApplicationID).Scan(&app); err != nil {
		return damaged(err)
	}
	if err := db.QueryRowContext(ctx, qUserVersion).Scan(&ver); err != nil {
		return damaged(err)
	}
	if err := db.QueryRowContext(ctx, qSchemaObjects).Scan(&objects); err != nil {
		return damaged(err)
	}
	switch {
	case app == 0 && ver == 0 && objects == 0:
		// An empty database: nothing of anyone's to keep.
		return verdict{}, nil
	case app != ApplicationID:
		return verdict{"foreign", fmt.Sprintf("is another program's SQLite database (application_id %#x, user_version %d)", app, ver), fi}, nil
	case ver > SchemaVersion:
		return verdict{}, fmt.Errorf("%w: schema version %d, this binary knows up to %d; left untouched (use a newer ctxbench, or another path)", ErrNewerSchema, ver, SchemaVersion)
	}
	var check string
	if err := db.QueryRowContext(ctx, qQuickCheck).Scan(&check); err != nil {
		return damaged(err)
	}
	if check != "ok" {
		return verdict{"corrupt", "is damaged (quick_check: " + check + ")", fi}, nil
	}
	return verdict{}, nil
}

// unfinished judges a database that a read-only connection cannot read
// because a transaction was cut short. Ours is opened as it is: SQLite's
// first writer finishes the recovery, as it would have anyway. Anything
// else is moved aside untouched, its journal with it, for its own program
// to recover.
func unfinished(fi os.FileInfo, app, ver uint32) (verdict, error) {
	switch {
	case app != ApplicationID:
		return verdict{"foreign", fmt.Sprintf("is another program's SQLite database, with a transaction cut short (application_id %#x)", app), fi}, nil
	case ver > SchemaVersion:
		return verdict{}, fmt.Errorf("%w: schema version %d, this binary knows up to %d; left untouched (use a newer ctxbench, or another path)", ErrNewerSchema, ver, SchemaVersion)
	}
	return verdict{}, nil
}

// code is the primary SQLite result code of err (under an extended one), or
// -1 if err is not SQLite's.
func code(err error) int {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return -1
	}
	return se.Code() & 0xff
}

// sideFiles are SQLite's companions of a database file: they belong to it
// and hold part of its content (a WAL replayed into a new store would
// graft the old pages onto it).
var sideFiles = []string{"-wal", "-shm", "-journal"}

// moveAside renames path and its side files to a free name
// path.KIND-YYYYMMDD-HHMMSS[-N] and returns it. Side files go first: if
// this stops half way, the main file is still at path to be found and
// moved again, whereas a WAL left behind would meet the new store.
func moveAside(path, kind string, probed os.FileInfo) (string, error) {
	base := path + "." + kind + "-" + time.Now().UTC().Format("20060102-150405")
	aside := base
	for i := 2; taken(aside); i++ {
		aside = fmt.Sprintf("%s-%d", base, i)
	}
	for _, s := range sideFiles {
		if err := rename(path+s, aside+s); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	if err := rename(path, aside); err != nil {
		return "", err
	}
	// The probe and the move are not one step: check that what was moved is
	// what was judged (another process may have put a new store there in
	// between), and put it back if not.
	if fi, err := os.Stat(aside); err != nil || !os.SameFile(fi, probed) {
		if err := rename(aside, path); err != nil {
			return "", fmt.Errorf("%s changed while it was being moved aside; it is now at %s: %w", path, aside, err)
		}
		return "", fmt.Errorf("%s changed while it was being moved aside; left in place", path)
	}
	return aside, nil
}

// taken reports whether any file of a would-be aside name exists.
func taken(aside string) bool {
	for _, s := range append([]string{""}, sideFiles...) {
		if _, err := os.Lstat(aside + s); !errors.Is(err, fs.ErrNotExist) {
			return true
		}
	}
	return false
}

// rename moves from to to without ever replacing an existing to: a hard
// link fails when to exists, where rename(2) would overwrite it. Where the
// file system has no hard links, it falls back to a checked rename.
func rename(from, to string) error {
	err := os.Link(from, to)
	switch {
	case err == nil:
		return os.Remove(from)
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrExist):
		return err
	}
	if _, err := os.Lstat(to); !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s exists", to)
	}
	return os.Rename(from, to)
}

// migrate brings the store to SchemaVersion, one step per write
// transaction. Each step re-reads the version under the write lock (SQLite's,
// or PostgreSQL's advisory lock), so two processes opening one old store
// apply each step once. Even an up-to-date SQLite store gets one (empty)
// write transaction: it is how Open finds out, before any sitting is at
// stake, that the file cannot be written.
func migrate(ctx context.Context, db *sql.DB, d *dialect) error {
	for {
		done, err := migrateStep(ctx, db, d)
		if err != nil {
			return err
		}
		if done {
			return nil
		}
	}
}

// checkWAL fails unless the SQLite store is in WAL mode: without it a
// reader would fail while another process writes.
func checkWAL(ctx context.Context, db *sql.DB) error {
	var mode string
	if err := db.QueryRowContext(ctx, qJournalMode).Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, not wal (a file system without shared memory?)", mode)
	}
	return nil
}

func migrateStep(ctx context.Context, db *sql.DB, d *dialect) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil || done {
			// Nothing to keep: done wrote nothing, and on failure the
			// error that brought us here is the one to report.
			_ = tx.Rollback()
		}
	}()
	for _, q := range d.lock {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return false, fmt.Errorf("wait for other opens: %w", err)
		}
	}
	st, err := d.readStamp(ctx, tx)
	if err != nil {
		return false, err
	}
	switch {
	case st.ver > SchemaVersion:
		return false, fmt.Errorf("%w: schema version %d, this binary knows up to %d; left untouched", ErrNewerSchema, st.ver, SchemaVersion)
	case st.ver == 0 && (st.app != 0 || st.objects != 0):
		return false, fmt.Errorf("not an empty database (application_id %#x, %d schema objects)", st.app, st.objects)
	case st.ver > 0 && st.app != ApplicationID:
		return false, fmt.Errorf("not a ctxbench store (application_id %#x)", st.app)
	case st.ver == SchemaVersion:
		return true, nil
	}
	m := d.migrations[st.ver]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("migrate to schema version %d: %w", m.to, err)
	}
	if st.ver == 0 {
		// Stamped in the same transaction as the first tables: a store is
		// never seen with tables but without its mark.
		if _, err := tx.ExecContext(ctx, fmt.Sprintf(d.setApplicationID, ApplicationID)); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(d.setSchemaVersion, m.to)); err != nil {
		return false, err
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("migrate to schema version %d: %w", m.to, err)
	}
	return false, nil
}
