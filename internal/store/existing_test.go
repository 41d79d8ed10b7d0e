package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Reading a history never creates one: no file, no directory, an error
// that says there is none (ErrNoStore, fs.ErrNotExist).
func TestOpenExistingCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "history.db")
	s, _, err := OpenExisting(context.Background(), path)
	if err == nil {
		s.Close()
		t.Fatal("opened a store that does not exist")
	}
	if !errors.Is(err, ErrNoStore) || !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), path) {
		t.Errorf("error %v: want ErrNoStore and fs.ErrNotExist, naming the path", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the store's directory was created: %v", err)
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 0 {
		t.Errorf("left %v in %s", left, dir)
	}
}

// A store that exists is read as Open reads it, with what was recorded.
func TestOpenExistingReadsAStore(t *testing.T) {
	ctx := context.Background()
	path := tempPath(t)
	s := mustOpen(t, path)
	if _, err := s.Record(ctx, sittingOf("fp", 0, 10, 10)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	r, notes, err := OpenExisting(ctx, path)
	if err != nil || len(notes) != 0 {
		t.Fatalf("OpenExisting: %v, notes %v", err, notes)
	}
	defer r.Close()
	if n, err := r.Sittings(ctx, "fp"); err != nil || n != 1 {
		t.Errorf("sittings %d, %v: want the one recorded", n, err)
	}
}

// A file that is not a store is refused, and left where it is: only a run
// that records may move it aside and start a new history.
func TestOpenExistingLeavesAForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.db")
	body := []byte("not a history\n")
	write(body)(t, path)
	s, _, err := OpenExisting(context.Background(), path)
	if err == nil {
		s.Close()
		t.Fatal("opened a text file as a store")
	}
	if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), path) {
		t.Errorf("error %q: want one line naming the file", err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != string(body) {
		t.Errorf("the file was moved or changed: %q, %v", b, err)
	}
	matches, _ := filepath.Glob(path + ".*")
	if len(matches) != 0 {
		t.Errorf("left %v beside it", matches)
	}
	// A directory is no history either.
	if s, _, err := OpenExisting(context.Background(), filepath.Dir(path)); err == nil {
		s.Close()
		t.Error("opened a directory as a store")
	}
}
