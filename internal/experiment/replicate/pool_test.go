package replicate

import (
	"context"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// The published replay against a real, throwaway PostgreSQL: every variant
// and pool run Runs times through the scheduler's rounds, summarised, and
// nothing left behind.
func TestRunPublishedReplay(t *testing.T) {
	if _, err := pgserver.FindBinDir(); err != nil {
		testenv.Skip(t, testenv.Postgres, "PostgreSQL missing; install with: %s", pgserver.InstallHint)
	}
	if allowed, _ := procs.Allowed(); len(allowed) < 2 {
		testenv.Skip(t, testenv.CPUs2, "the replay pins the server and the client to two CPUs; this process may use only %v", allowed)
	}
	var mu sync.Mutex
	var started []int
	defer pool.SetTestHooks(func(pid int, _ string) {
		mu.Lock()
		started = append(started, pid)
		mu.Unlock()
	}, nil)()
	pc := pool.DefaultPublishedConfig()
	pc.Pools = []int{2, 4}
	pc.Workers = 20
	pc.Runs = 2
	pc.BlogWindow = 150 * time.Millisecond
	var windows []int
	res, err := runPublished(context.Background(), pc, progressFunc(func(i, n int) { windows = append(windows, i, n) }))
	for _, pid := range started {
		if left := procs.Group(pid); pid > 0 && len(left) != 0 {
			t.Errorf("server %d: processes %v remain", pid, left)
		}
	}
	if left := serverdir.Owned(); len(left) != 0 {
		t.Errorf("server directories remain: %v", left)
	}
	allowed, _ := procs.Allowed()
	if got, _ := procs.Affinity(os.Getpid()); !slices.Equal(got, allowed) {
		t.Errorf("client affinity not restored: %v", got)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2*2*2 || len(res.Points) != 4 || len(res.Comparisons) != 2 {
		t.Fatalf("runs %d points %d comparisons %d", len(res.Runs), len(res.Points), len(res.Comparisons))
	}
	if want := []int{1, 8, 2, 8}; !slices.Equal(windows[:4], want) || len(windows) != 16 {
		t.Errorf("progress told %v, want runs 1..8 of 8", windows)
	}
	var openedPublished int64
	for _, r := range res.Runs {
		if r.Millis <= 0 || r.Opened < 0 || r.Opened > int64(r.Pool) {
			t.Errorf("run %+v", r)
		}
		if r.Variant == pool.VariantPublished && r.Pool == 4 {
			openedPublished += r.Opened
		}
		if res.PerfUsable && (r.PerfTimed == nil || r.PerfBlog == nil) {
			t.Error("perf usable but no counts")
		}
	}
	// With the default MaxIdleConns of 2, the warm pool shrinks to 2 connections and
	// 20 concurrent queries must open more while the clock runs.
	if openedPublished == 0 {
		t.Error("published variant at pool 4 opened no connection while timed")
	}
}

type progressFunc func(i, n int)

func (progressFunc) Stage(string)                         {}
func (f progressFunc) Window(i, n int, _ pool.WindowSpec) { f(i, n) }
