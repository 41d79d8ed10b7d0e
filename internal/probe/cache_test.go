package probe

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/ctxbench/ctxbench/internal/testenv"
)

func TestBuildKeyFollowsSourcesToolchainRecipe(t *testing.T) {
	src := fstest.MapFS{"a.c": {Data: []byte("int main(){}")}, "sub/b.h": {Data: []byte("x")}}
	k1, err := buildKey(Cpp, src, "g++ 12", "recipe")
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := buildKey(Cpp, src, "g++ 12", "recipe")
	if k1 != k2 {
		t.Fatal("the key must be deterministic")
	}
	changed := fstest.MapFS{"a.c": {Data: []byte("int main(){return 1;}")}, "sub/b.h": {Data: []byte("x")}}
	renamed := fstest.MapFS{"a.c": {Data: []byte("int main(){}")}, "sub/c.h": {Data: []byte("x")}}
	others := map[string]func() (string, error){
		"source change": func() (string, error) { return buildKey(Cpp, changed, "g++ 12", "recipe") },
		"file rename":   func() (string, error) { return buildKey(Cpp, renamed, "g++ 12", "recipe") },
		"toolchain":     func() (string, error) { return buildKey(Cpp, src, "g++ 13", "recipe") },
		"recipe":        func() (string, error) { return buildKey(Cpp, src, "g++ 12", "recipe -O3") },
		"language":      func() (string, error) { return buildKey(Rust, src, "g++ 12", "recipe") },
	}
	for name, f := range others {
		k, err := f()
		if err != nil || k == k1 {
			t.Errorf("%s must change the key (%v)", name, err)
		}
	}
}

func TestCacheEntryMissHitRebuild(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	ctx := context.Background()
	var builds atomic.Int32
	build := func(_ context.Context, dir string) error {
		builds.Add(1)
		return os.WriteFile(filepath.Join(dir, "out"), []byte("built"), 0o644)
	}
	dir, cached, err := c.entry(ctx, "cpp-aaaa", build)
	if err != nil || cached || builds.Load() != 1 {
		t.Fatalf("first call must build: cached=%v builds=%d err=%v", cached, builds.Load(), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out")); err != nil || string(b) != "built" {
		t.Fatalf("build output missing: %v", err)
	}
	dir2, cached, err := c.entry(ctx, "cpp-aaaa", build)
	if err != nil || !cached || dir2 != dir || builds.Load() != 1 {
		t.Fatalf("second call must hit: cached=%v builds=%d err=%v", cached, builds.Load(), err)
	}
	// A source change gives another key, hence another entry and a rebuild.
	if _, cached, err := c.entry(ctx, "cpp-bbbb", build); err != nil || cached || builds.Load() != 2 {
		t.Fatalf("a new key must rebuild: cached=%v builds=%d err=%v", cached, builds.Load(), err)
	}
}

func TestCacheFailedBuildLeavesNothing(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	boom := errors.New("compiler exploded")
	_, _, err := c.entry(context.Background(), "rust-cccc", func(_ context.Context, dir string) error {
		os.WriteFile(filepath.Join(dir, "half"), []byte("x"), 0o644)
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("want the build error, got %v", err)
	}
	entries, _ := os.ReadDir(c.Dir)
	for _, e := range entries {
		if e.Name() != "rust-cccc.lock" {
			t.Errorf("a failed build left %s behind", e.Name())
		}
	}
	// A stale staging directory (from a killed build) and a marker-less entry are cleared.
	os.MkdirAll(filepath.Join(c.Dir, ".tmp-rust-cccc-123"), 0o755)
	os.MkdirAll(filepath.Join(c.Dir, "rust-cccc"), 0o755)
	dir, cached, err := c.entry(context.Background(), "rust-cccc", func(context.Context, string) error { return nil })
	if err != nil || cached || !complete(dir) {
		t.Fatalf("rebuild after failure: %v %v", cached, err)
	}
	if _, err := os.Stat(filepath.Join(c.Dir, ".tmp-rust-cccc-123")); !os.IsNotExist(err) {
		t.Error("stale staging directory not removed")
	}
}

func TestCacheConcurrentBuildsOnce(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	var builds atomic.Int32
	var wg sync.WaitGroup
	dirs := make([]string, 8)
	errs := make([]error, 8)
	for i := range dirs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			dirs[i], _, errs[i] = c.entry(context.Background(), "node-dddd", func(_ context.Context, dir string) error {
				builds.Add(1)
				return os.WriteFile(filepath.Join(dir, "x"), nil, 0o644)
			})
		}(i)
	}
	wg.Wait()
	for i := range dirs {
		if errs[i] != nil || dirs[i] != dirs[0] {
			t.Fatalf("caller %d: %q %v", i, dirs[i], errs[i])
		}
	}
	if n := builds.Load(); n != 1 {
		t.Fatalf("built %d times, want once", n)
	}
}

func TestCacheLockHonoursContext(t *testing.T) {
	c := Cache{Dir: t.TempDir()}
	unlock, err := lockFile(context.Background(), filepath.Join(c.Dir, "x.lock"))
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := c.entry(ctx, "x", func(context.Context, string) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Fatalf("a held lock and a cancelled context must give context.Canceled, got %v", err)
	}
}

// TestBuildRealProbeMissThenHit builds the C++ probe (the fastest real build) twice.
func TestBuildRealProbeMissThenHit(t *testing.T) {
	if _, err := Detect(Cpp); err != nil {
		testenv.Skip(t, testenv.Cpp, "%v", err)
	}
	c := Cache{Dir: t.TempDir()}
	b1, err := c.Build(context.Background(), Cpp)
	if err != nil {
		t.Fatal(err)
	}
	if b1.Cached || b1.BuildTime <= 0 {
		t.Fatalf("first build must be a miss: %+v", b1)
	}
	if _, err := os.Stat(filepath.Join(b1.Dir, "bin", "ctxbench-probe")); err != nil {
		t.Fatalf("no binary: %v", err)
	}
	if _, err := os.Stat(filepath.Join(b1.Dir, "src", "probe.cpp")); err != nil {
		t.Fatalf("sources not extracted: %v", err)
	}
	b2, err := c.Build(context.Background(), Cpp)
	if err != nil || !b2.Cached || b2.Dir != b1.Dir || b2.Key != b1.Key {
		t.Fatalf("second build must hit the same entry: %+v %v", b2, err)
	}
}
