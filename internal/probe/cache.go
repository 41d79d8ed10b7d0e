package probe

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/sys/unix"
)

// Cache is a directory of built probes, one subdirectory per language and build key:
// <Dir>/<language>-<key>. An entry is complete when its marker file exists; entries are
// built in a temporary sibling and renamed into place, so a failed or interrupted build
// leaves no entry behind. A per-entry lock file serialises builds across processes.
type Cache struct {
	Dir string
}

// completeMarker is written last into a finished entry.
const completeMarker = ".ctxbench-build-complete"

// DefaultCache is $CTXBENCH_CACHE_DIR if set, else <user cache dir>/ctxbench/probes
// ($XDG_CACHE_HOME/ctxbench/probes or ~/.cache/ctxbench/probes).
func DefaultCache() (Cache, error) {
	if d := os.Getenv("CTXBENCH_CACHE_DIR"); d != "" {
		return Cache{Dir: d}, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return Cache{}, fmt.Errorf("no cache directory for probe builds (set CTXBENCH_CACHE_DIR): %w", err)
	}
	return Cache{Dir: filepath.Join(base, "ctxbench", "probes")}, nil
}

// buildKey hashes everything a build depends on: the sources, the toolchain version and
// the build recipe. Any change gives a new key, hence a rebuild.
func buildKey(lang Language, sources fs.FS, toolchain, recipe string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "ctxbench-probe-build/1\x00%s\x00%s\x00%s\x00", lang, toolchain, recipe)
	var files []string
	err := fs.WalkDir(sources, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	for _, f := range files {
		b, err := fs.ReadFile(sources, f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// entry returns the directory of the complete entry name, building it with build (which
// fills a fresh empty directory) when it is missing. cached reports a reuse.
func (c Cache) entry(ctx context.Context, name string, build func(ctx context.Context, dir string) error) (dir string, cached bool, err error) {
	final := filepath.Join(c.Dir, name)
	if complete(final) {
		return final, true, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", false, fmt.Errorf("probe cache: %w", err)
	}
	unlock, err := lockFile(ctx, final+".lock")
	if err != nil {
		return "", false, err
	}
	defer unlock()
	if complete(final) { // another process built it while we waited for the lock
		return final, true, nil
	}
	// Holding the lock, no one else builds this entry: leftovers are from killed builds.
	stale, _ := filepath.Glob(filepath.Join(c.Dir, ".tmp-"+name+"-*"))
	for _, s := range stale {
		os.RemoveAll(s)
	}
	os.RemoveAll(final) // an entry without its marker is not trusted
	stage, err := os.MkdirTemp(c.Dir, ".tmp-"+name+"-")
	if err != nil {
		return "", false, fmt.Errorf("probe cache: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(stage)
		}
	}()
	if err := build(ctx, stage); err != nil {
		return "", false, err
	}
	stamp := []byte(time.Now().UTC().Format(time.RFC3339) + "\n")
	if err := os.WriteFile(filepath.Join(stage, completeMarker), stamp, 0o644); err != nil {
		return "", false, fmt.Errorf("probe cache: %w", err)
	}
	if err := os.Rename(stage, final); err != nil {
		return "", false, fmt.Errorf("probe cache: %w", err)
	}
	ok = true
	return final, false, nil
}

func complete(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, completeMarker))
	return err == nil
}

// lockFile takes an exclusive flock on path, polling so that ctx can cancel the wait.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("probe cache lock: %w", err)
	}
	for {
		err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				_ = unix.Flock(int(f.Fd()), unix.LOCK_UN) // closing the file releases it anyway
				f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			f.Close()
			return nil, fmt.Errorf("probe cache lock %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
