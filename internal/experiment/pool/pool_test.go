package pool_test

// Tests of the pool experiment against real, throwaway servers: the sweep,
// its cleanup when cancelled, when a server dies or hangs, and a failed
// window that costs its point, not the sweep.

import (
	"context"
	"errors"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	exppool "github.com/ctxbench/ctxbench/internal/experiment/pool"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/redisserver"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// run is the experiment as the command line runs it; the pools section is
// its result.
func run(ctx context.Context, cfg result.PoolConfig, prog pool.Progress) (*result.Pools, error) {
	part, err := exppool.Run(ctx, experiment.Env{}, cfg, prog)
	return part.Pools, err
}

func needServers(t *testing.T, kinds ...string) {
	t.Helper()
	// The sweeps run cross-cpu: the server on one CPU, the client on another.
	if allowed, _ := procs.Allowed(); len(allowed) < 2 {
		testenv.Skip(t, testenv.CPUs2, "cross-cpu needs two CPUs; this process may use only %v", allowed)
	}
	for _, k := range kinds {
		switch k {
		case pool.Postgres:
			if _, err := pgserver.FindBinDir(); err != nil {
				testenv.Skip(t, testenv.Postgres, "PostgreSQL missing; install with: %s", pgserver.InstallHint)
			}
		case pool.Redis:
			if _, err := redisserver.FindBinary(); err != nil {
				testenv.Skip(t, testenv.Redis, "redis-server missing; install with: %s", redisserver.InstallHint)
			}
		}
	}
}

// watch records every server the run starts, and checks afterwards that
// nothing is left.
func watch(t *testing.T) func() { return watchVictim(t, nil) }

// watchVictim is watch that also tells the last server's process group
// leader.
func watchVictim(t *testing.T, victim *int) func() {
	var mu sync.Mutex
	var started []int
	remove := pool.SetTestHooks(func(pid int, _ string) {
		mu.Lock()
		started = append(started, pid)
		if victim != nil {
			*victim = pid
		}
		mu.Unlock()
	}, nil)
	return func() {
		t.Helper()
		remove()
		mu.Lock()
		defer mu.Unlock()
		for _, pid := range started {
			if left := procs.Group(pid); pid > 0 && len(left) != 0 {
				t.Errorf("server %d: processes %v remain", pid, left)
			}
		}
		if left := serverdir.Owned(); len(left) != 0 {
			t.Errorf("server directories (data, sockets, logs) remain: %v", left)
		}
		allowed, _ := procs.Allowed()
		if got, _ := procs.Affinity(os.Getpid()); !slices.Equal(got, allowed) {
			t.Errorf("client affinity not restored: %v", got)
		}
	}
}

func TestRunQuickBothServers(t *testing.T) {
	needServers(t, pool.Postgres, pool.Redis)
	check := watch(t)
	cfg := pool.QuickConfig()
	cfg.PoolSizes = []int{1, 2, 4, 10, 90}
	cfg.Workers = []int{1, 0}
	cfg.Perf = true
	var windows int
	res, err := run(context.Background(), cfg, progressFunc(func(i, n int, w pool.WindowSpec) { windows = n }))
	check()
	if err != nil {
		t.Fatal(err)
	}
	if want := 2 * len(cfg.PoolSizes) * len(cfg.Workers); windows != want {
		t.Errorf("progress told %d windows, want %d", windows, want)
	}
	if len(res.Servers) != 2 || len(res.Verdicts) != 2 {
		t.Fatalf("servers %d verdicts %d", len(res.Servers), len(res.Verdicts))
	}
	for _, sr := range res.Servers {
		if !sr.Embedded || !sr.ProcessCounters || len(sr.Series) != 2 || len(sr.Baselines) != 1 {
			t.Fatalf("%s: %+v", sr.Server, sr)
		}
		if len(sr.Published) != 2 {
			t.Errorf("%s: %d published comparisons, want one per series", sr.Server, len(sr.Published))
		}
		for _, s := range sr.Series {
			if len(s.Points) != len(cfg.PoolSizes) || s.Knee == nil || s.USL == nil || s.GOMAXPROCS != 1 {
				t.Fatalf("%s %s: %d points, knee %v, usl %v, gomaxprocs %d", sr.Server, s.Client, len(s.Points), s.Knee, s.USL, s.GOMAXPROCS)
			}
			for _, p := range s.Points {
				w := p.Windows[0]
				if !w.Conns.Stable || w.Conns.Opened != p.Pool {
					t.Errorf("%s pool %d: connections %+v", sr.Server, p.Pool, w.Conns)
				}
				wantWorkers := s.Workers
				if wantWorkers == 0 {
					wantWorkers = p.Pool
				}
				if p.Workers != wantWorkers || w.Queries == 0 || w.QPS <= 0 {
					t.Errorf("%s pool %d: workers %d queries %d", sr.Server, p.Pool, p.Workers, w.Queries)
				}
				// The per-query split adds back up to the raw counters.
				q := float64(w.Queries)
				// Server counters cover the span between the reads' midpoints.
				sq := w.QPS * w.ServerSeconds
				if got := *w.PerQuery.ServerInvoluntary * sq; math.Abs(got-float64(w.Serving.Involuntary)) > 1e-6*sq {
					t.Errorf("server involuntary %v·%v ≠ %d", *w.PerQuery.ServerInvoluntary, sq, w.Serving.Involuntary)
				}
				if w.ServerSeconds < w.Seconds*0.9 || w.ServerSeconds > w.Seconds+2 {
					t.Errorf("server span %v s for a %v s window", w.ServerSeconds, w.Seconds)
				}
				if got := w.PerQuery.ClientInvoluntary * q; math.Abs(got-float64(w.Client.Involuntary)) > 1e-6*q {
					t.Errorf("client involuntary %v·%v ≠ %d", w.PerQuery.ClientInvoluntary, q, w.Client.Involuntary)
				}
				if w.PerQuery.ClientVoluntary*q > float64(w.Client.Voluntary)+1e-6 {
					t.Error("baseline-subtracted client switches exceed the raw count")
				}
				if sr.Server == pool.Postgres && w.Serving.Threads != p.Pool {
					t.Errorf("pool %d read %d backends", p.Pool, w.Serving.Threads)
				}
				if w.Latency.P50 > w.Latency.P99 || w.Latency.P99 > w.Latency.Max*1.04 {
					t.Errorf("latency quantiles out of order: %+v", w.Latency)
				}
				if w.ClientUtil <= 0 || w.ServerUtil <= 0 {
					t.Errorf("utilisation client %v server %v", w.ClientUtil, w.ServerUtil)
				}
				if res.Environment.PerfUsable && w.PerfSwitch == nil {
					t.Error("perf usable but no per-CPU count")
				}
			}
			// Pool 1 with one worker: the serving task blocks once per query.
			if s.Workers == 1 {
				p := s.Points[0]
				if v := *p.PerQuery.ServerVoluntary + *p.PerQuery.ServerInvoluntary; v < 0.7 || v > 1.5 {
					t.Errorf("%s pool 1, 1 worker: %.2f server switches per query, want ≈1", sr.Server, v)
				}
			}
		}
	}
	if res.Method.ServerSwitches == "" || res.Environment.GoVersion == "" {
		t.Error("method or versions missing")
	}
}

type progressFunc func(i, n int, w pool.WindowSpec)

func (progressFunc) Stage(string)                         {}
func (f progressFunc) Window(i, n int, w pool.WindowSpec) { f(i, n, w) }

func TestRunCancelledLeavesNothing(t *testing.T) {
	needServers(t, pool.Postgres)
	check := watch(t)
	cfg := pool.QuickConfig()
	cfg.Servers = []string{pool.Postgres}
	cfg.Duration = 30 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := run(ctx, cfg, progressFunc(func(i, n int, w pool.WindowSpec) {
		time.AfterFunc(300*time.Millisecond, cancel) // mid-window, pool open
	}))
	check()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRunServerDiesLeavesNothing(t *testing.T) {
	needServers(t, pool.Postgres, pool.Redis)
	for _, kind := range []string{pool.Postgres, pool.Redis} {
		cfg := pool.QuickConfig()
		cfg.Servers = []string{kind}
		cfg.Duration = 30 * time.Second
		var victim int
		check := watchVictim(t, &victim)
		start := time.Now()
		_, err := run(context.Background(), cfg, progressFunc(func(i, n int, w pool.WindowSpec) {
			pid := victim
			time.AfterFunc(300*time.Millisecond, func() { syscall.Kill(pid, syscall.SIGKILL) })
		}))
		check()
		if err == nil || !strings.Contains(err.Error(), "exited") {
			t.Errorf("%s killed mid-window: err = %v, want it to say the server exited", kind, err)
		}
		if time.Since(start) > 20*time.Second {
			t.Errorf("%s: a dead server took %v to notice", kind, time.Since(start))
		}
		if victim != 0 && procs.Alive(victim, 0) {
			t.Errorf("%s pid %d alive", kind, victim)
		}
	}
}

func TestRunBadBinaryFailsClean(t *testing.T) {
	check := watch(t)
	cfg := pool.QuickConfig()
	cfg.Servers = []string{pool.Redis}
	cfg.RedisServer = "/nonexistent/redis-server"
	if _, err := run(context.Background(), cfg, nil); err == nil {
		t.Error("run with a missing redis-server succeeded")
	}
	cfg.Servers = []string{pool.Postgres}
	cfg.PostgresBinDir = "/nonexistent"
	if _, err := run(context.Background(), cfg, nil); err == nil {
		t.Error("run with a missing PostgreSQL succeeded")
	}
	check()
}

// A server that stops answering (SIGSTOP) fails the window within the window timeout,
// and the teardown still removes it.
func TestRunHungServerFailsAndCleansUp(t *testing.T) {
	needServers(t, pool.Redis)
	var check func()
	cfg := pool.QuickConfig()
	cfg.Servers = []string{pool.Redis}
	cfg.PoolSizes = []int{4}
	cfg.Duration = 2 * time.Second
	cfg.WindowTimeout = time.Second
	var victim int
	check = watchVictim(t, &victim)
	start := time.Now()
	_, err := run(context.Background(), cfg, progressFunc(func(i, n int, w pool.WindowSpec) {
		pid := victim
		time.AfterFunc(500*time.Millisecond, func() { syscall.Kill(pid, syscall.SIGSTOP) })
	}))
	check()
	if err == nil || !strings.Contains(err.Error(), "hung") {
		t.Errorf("stopped server: err = %v, want a hung-server error", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

// A window that fails twice on a live, answering server costs its own point,
// not the sweep: the other points are summarised and the failure is listed.
func TestRunKeepsTheSweepPastAFailedWindow(t *testing.T) {
	needServers(t, pool.Redis)
	check := watch(t)
	cfg := pool.QuickConfig()
	cfg.Servers = []string{pool.Redis}
	cfg.PoolSizes = []int{1, 2}
	cfg.Repetitions = 2
	defer pool.SetTestHooks(nil, func(s pool.WindowSpec) error {
		if s.Pool == 2 {
			return errors.New("injected failure")
		}
		return nil
	})()
	res, err := run(context.Background(), cfg, pool.NoProgress{})
	check()
	if err != nil {
		t.Fatalf("one failing point lost the sweep: %v", err)
	}
	sr := res.Servers[0]
	if len(sr.FailedWindows) != cfg.Repetitions || !strings.Contains(sr.FailedWindows[0], "injected failure") {
		t.Fatalf("failed windows %q, want one per repetition of pool 2", sr.FailedWindows)
	}
	if len(sr.Series) != 1 || len(sr.Series[0].Points) != 1 || sr.Series[0].Points[0].Pool != 1 ||
		len(sr.Series[0].Points[0].Windows) != cfg.Repetitions {
		t.Fatalf("series %+v, want pool 1 alone with every repetition", sr.Series)
	}
	retried := 0
	for _, w := range res.Warnings {
		if strings.Contains(w, "retried after: injected failure") {
			retried++
		}
	}
	if retried != cfg.Repetitions {
		t.Errorf("%d retries in the warnings, want %d", retried, cfg.Repetitions)
	}
}
