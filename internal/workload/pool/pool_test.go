package pool

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

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/redisserver"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

func TestValidate(t *testing.T) {
	cases := []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"no server", func(c *Config) { c.Servers = nil }, "no server"},
		{"unknown server", func(c *Config) { c.Servers = []string{"mysql"} }, "unknown server"},
		{"twice", func(c *Config) { c.Servers = []string{Redis, Redis} }, "twice"},
		{"client", func(c *Config) { c.PGClients = []string{"lib/pq"} }, "unknown PostgreSQL client"},
		{"pool 0", func(c *Config) { c.PoolSizes = []int{0} }, "out of range"},
		{"pool huge", func(c *Config) { c.PoolSizes = []int{MaxPool + 1} }, "out of range"},
		{"pool dup", func(c *Config) { c.PoolSizes = []int{4, 4} }, "twice"},
		{"no pools", func(c *Config) { c.PoolSizes = nil }, "no pool size"},
		{"workers", func(c *Config) { c.Workers = []int{-1} }, "worker count"},
		{"placement", func(c *Config) { c.Placements = []string{"numa"} }, "unknown placement"},
		{"duration", func(c *Config) { c.Duration = time.Millisecond }, "too short"},
		{"warmup", func(c *Config) { c.Warmup = -time.Second }, "warm-up"},
		{"reps", func(c *Config) { c.Repetitions = 0 }, "repetitions"},
		{"rows", func(c *Config) { c.Rows = 0 }, "rows"},
		{"same cpus", func(c *Config) { c.ServerCPU, c.ClientCPU = 1, 1 }, "two different CPUs"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mod(&c)
		err := Validate(&c)
		if err == nil || !IsConfigError(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want a config error containing %q", tc.name, err, tc.want)
		}
		// Run refuses it before touching anything.
		if _, err := Run(context.Background(), c, nil); !IsConfigError(err) {
			t.Errorf("%s: Run err = %v, want a config error", tc.name, err)
		}
	}
	for _, c := range []Config{DefaultConfig(), QuickConfig()} {
		if err := Validate(&c); err != nil {
			t.Errorf("stock config invalid: %v", err)
		}
	}
}

func TestCPUs(t *testing.T) {
	c := DefaultConfig()
	s, cl, err := configCPUs(&c, []int{0, 1})
	if err != nil || s != 0 || cl != 1 {
		t.Errorf("auto on [0 1]: %d %d %v", s, cl, err)
	}
	if _, _, err := configCPUs(&c, []int{3}); !IsConfigError(err) {
		t.Errorf("cross-cpu on one CPU: %v", err)
	}
	if s, cl, err := configCPUs(&c, []int{0, 2, 5}); err != nil || s != 0 || cl != 5 {
		t.Errorf("auto on [0 2 5]: %d %d %v, want the first and the last", s, cl, err)
	}
	c.Placements = []string{SameCPU, Unpinned}
	if _, cl, err := configCPUs(&c, []int{3}); err != nil || cl != 3 {
		t.Errorf("same-cpu on [3]: client %d %v", cl, err)
	}
	c = DefaultConfig()
	c.ClientCPU = 7
	if _, _, err := configCPUs(&c, []int{0, 1}); !IsConfigError(err) {
		t.Errorf("server CPU outside the allowed set: %v", err)
	}
}

func TestPlanVisitsEveryPointOncePerRepetition(t *testing.T) {
	c := DefaultConfig()
	c.Repetitions = 4
	r := &runner{cfg: &c}
	plan := r.plan(Postgres, 0)
	per := len(c.PGClients) * len(c.Placements) * len(c.Workers) * len(c.PoolSizes)
	if len(plan) != per*c.Repetitions {
		t.Fatalf("plan has %d windows, want %d", len(plan), per*c.Repetitions)
	}
	count := map[WindowSpec]int{}
	for i, w := range plan {
		if w.Rep != i/per+1 {
			t.Fatalf("window %d belongs to rep %d, want %d (repetitions are blocks)", i, w.Rep, i/per+1)
		}
		w.Rep = 0
		count[w]++
	}
	for w, n := range count {
		if n != c.Repetitions {
			t.Errorf("%+v visited %d times", w, n)
		}
	}
	if slices.Equal(plan[:per], plan[per:2*per]) {
		t.Error("two repetitions in the same order: not interleaved")
	}
	if again := r.plan(Postgres, 0); !slices.Equal(plan, again) {
		t.Error("plan not reproducible from the seed")
	}
	if len(r.plan(Redis, 1)) != len(c.Placements)*len(c.Workers)*len(c.PoolSizes)*c.Repetitions {
		t.Error("redis plan size")
	}
}

func TestRatioCI(t *testing.T) {
	a := []float64{1000, 1010, 990, 1005, 995}
	b := []float64{800, 812, 790, 805, 798}
	r, p := ratioCI(a, b, 0.95)
	if math.Abs(r.Estimate-0.8) > 0.01 || r.Low == nil || *r.Low > 0.8 || *r.High < 0.8 || *r.High >= 1 {
		t.Errorf("ratio %+v, want ≈0.8 inside the interval, below 1", r)
	}
	if math.Abs(r.Confidence-(1-2*4.0/252)) > 1e-9 {
		t.Errorf("confidence %v, want 1-2·P(U<=2) = %v for 5+5", r.Confidence, 1-2*4.0/252)
	}
	if p > 0.01 {
		t.Errorf("p = %v for fully separated samples of 5", p)
	}
	r3, _ := ratioCI(a[:3], b[:3], 0.95)
	if math.Abs(r3.Confidence-0.9) > 1e-9 || r3.Low == nil {
		t.Errorf("3+3 windows: %+v, want the widest interval at 90%%", r3)
	}
	same, p := ratioCI(a, a, 0.95)
	if same.Estimate != 1 || p < 0.5 {
		t.Errorf("identical samples: %+v p=%v", same, p)
	}
	for _, nm := range [][2]int{{1, 1}, {3, 4}, {5, 5}, {7, 2}} {
		cdf := uCDF(nm[0], nm[1])
		if math.Abs(cdf[len(cdf)-1]-1) > 1e-12 {
			t.Errorf("U cdf for %v does not reach 1", nm)
		}
		for u := range cdf { // symmetric: P(U <= u) = P(U >= nm - u)
			if v := 1 - cdfAt(cdf, len(cdf)-2-u); math.Abs(cdf[u]-v) > 1e-12 {
				t.Fatalf("U cdf for %v not symmetric at %d", nm, u)
			}
		}
	}
	e := estimate([]float64{3, 1, 2})
	if e.Median != 2 || e.CILow == nil || *e.CILow != 1 || *e.CIHigh != 3 || e.Confidence != 0.75 || e.N != 3 {
		t.Errorf("estimate of 3 values: %+v, want [min, max] at 75%% (no 95%% interval exists)", e)
	}
	if e := estimate([]float64{7}); e.CILow != nil || e.Median != 7 {
		t.Errorf("estimate of one value: %+v", e)
	}
	e = estimate([]float64{5, 1, 2, 4, 3, 6, 7, 8})
	if e.CILow == nil || *e.CILow > e.Median || *e.CIHigh < e.Median {
		t.Errorf("estimate of 8 values: %+v", e)
	}
}

// --- real servers --------------------------------------------------------------------

func needServers(t *testing.T, kinds ...string) {
	t.Helper()
	for _, k := range kinds {
		switch k {
		case Postgres:
			if _, err := pgserver.FindBinDir(); err != nil {
				t.Skip("PostgreSQL missing; install with: " + pgserver.InstallHint)
			}
		case Redis:
			if _, err := redisserver.FindBinary(); err != nil {
				t.Skip("redis-server missing; install with: " + redisserver.InstallHint)
			}
		}
	}
}

// watch records every server Run starts, and checks afterwards that nothing is left.
func watch(t *testing.T) func() {
	var mu sync.Mutex
	var started []*target
	testHookStarted = func(tg *target) {
		mu.Lock()
		started = append(started, tg)
		mu.Unlock()
	}
	return func() {
		t.Helper()
		testHookStarted = nil
		mu.Lock()
		defer mu.Unlock()
		for _, tg := range started {
			if left := procs.Group(tg.pid); len(left) != 0 {
				t.Errorf("%s: processes %v remain", tg.kind, left)
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

// The switch accounting against a known workload: N sequential queries on one
// connection. A PostgreSQL backend blocks in recv once per query, and so does Redis's
// event loop in epoll_wait: about one voluntary switch per query each, on the serving
// task only.
func TestSwitchAccountingKnownWorkload(t *testing.T) {
	needServers(t, Postgres, Redis)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := QuickConfig()
	cfg.Rows = 1000
	const n = 2000
	for _, kind := range []string{Postgres, Redis} {
		tg, err := startTarget(ctx, &cfg, kind, nil, NoProgress{})
		if err != nil {
			t.Fatal(err)
		}
		tg.recordAux()
		var serving []int64
		var run func() error
		switch kind {
		case Postgres:
			conn, err := pgx.Connect(ctx, tg.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			serving = []int64{int64(conn.PgConn().PID())}
			run = func() error {
				var name string
				for i := 0; i < n; i++ {
					if err := conn.QueryRow(ctx, pgQuery(tg.table), i%1000+1).Scan(&name); err != nil {
						return err
					}
				}
				return nil
			}
		case Redis:
			o := *tg.redisOpts
			c := redis.NewClient(&o)
			defer c.Close()
			if err := c.Ping(ctx).Err(); err != nil {
				t.Fatal(err)
			}
			run = func() error {
				for i := 0; i < n; i++ {
					if err := c.Get(ctx, tg.keyPrefix+"1").Err(); err != nil {
						return err
					}
				}
				return nil
			}
		}
		run() // warm: prepare, caches
		s0, a0, err := tg.counters(serving)
		if err != nil {
			t.Fatal(err)
		}
		ru0 := procs.Self()
		if err := run(); err != nil {
			t.Fatal(err)
		}
		ru := procs.Self().Sub(ru0)
		s1, a1, err := tg.counters(serving)
		if err != nil {
			t.Fatal(err)
		}
		s, a := s1.Sub(s0), a1.Sub(a0)
		if s.Threads != 1 {
			t.Errorf("%s: serving tasks = %d, want 1", kind, s.Threads)
		}
		// About one switch-out per query: voluntary when it blocks for the next request,
		// involuntary instead when a neighbour preempted it first (then the next request
		// is already there); preemption in mid-query adds a few. Reading the wrong task
		// gives ~0, counting a task twice ~2N.
		if sw := s.Switches(); sw < n*7/10 || sw > n*19/10 {
			t.Errorf("%s: serving task switched %d times (%d voluntary) over %d queries, want ≈%d", kind, sw, s.Voluntary, n, n)
		}
		if s.Voluntary == 0 {
			t.Errorf("%s: no voluntary switch: a server waiting for requests blocks", kind)
		}
		if a.Switches() > n/10 {
			t.Errorf("%s: auxiliary tasks switched %d times: serving switches leak into aux", kind, a.Switches())
		}
		if cs := ru.Voluntary + ru.Involuntary; cs < n/4 || cs > 10*n {
			t.Errorf("%s: client switched %d times over %d blocking round trips", kind, cs, n)
		}
		if err := tg.stop(); err != nil {
			t.Fatal(err)
		}
		if left := procs.Group(tg.pid); len(left) != 0 {
			t.Errorf("%s left %v", kind, left)
		}
	}
}

func TestRunQuickBothServers(t *testing.T) {
	needServers(t, Postgres, Redis)
	check := watch(t)
	cfg := QuickConfig()
	cfg.PoolSizes = []int{1, 2, 4, 10, 90}
	cfg.Workers = []int{1, 0}
	cfg.Perf = true
	var windows int
	res, err := Run(context.Background(), cfg, progressFunc(func(i, n int, w WindowSpec) { windows = n }))
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
				if sr.Server == Postgres && w.Serving.Threads != p.Pool {
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

type progressFunc func(i, n int, w WindowSpec)

func (progressFunc) Stage(string)                    {}
func (f progressFunc) Window(i, n int, w WindowSpec) { f(i, n, w) }

func TestRunCancelledLeavesNothing(t *testing.T) {
	needServers(t, Postgres)
	check := watch(t)
	cfg := QuickConfig()
	cfg.Servers = []string{Postgres}
	cfg.Duration = 30 * time.Second
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err := Run(ctx, cfg, progressFunc(func(i, n int, w WindowSpec) {
		time.AfterFunc(300*time.Millisecond, cancel) // mid-window, pool open
	}))
	check()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRunServerDiesLeavesNothing(t *testing.T) {
	needServers(t, Postgres, Redis)
	for _, kind := range []string{Postgres, Redis} {
		check := watch(t)
		cfg := QuickConfig()
		cfg.Servers = []string{kind}
		cfg.Duration = 30 * time.Second
		var victim int
		hook := testHookStarted // watch's recorder
		testHookStarted = func(tg *target) { victim = tg.pid; hook(tg) }
		start := time.Now()
		_, err := Run(context.Background(), cfg, progressFunc(func(i, n int, w WindowSpec) {
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
	cfg := QuickConfig()
	cfg.Servers = []string{Redis}
	cfg.RedisServer = "/nonexistent/redis-server"
	if _, err := Run(context.Background(), cfg, nil); err == nil {
		t.Error("run with a missing redis-server succeeded")
	}
	cfg.Servers = []string{Postgres}
	cfg.PostgresBinDir = "/nonexistent"
	if _, err := Run(context.Background(), cfg, nil); err == nil {
		t.Error("run with a missing PostgreSQL succeeded")
	}
	check()
}

func TestRunPublishedReplay(t *testing.T) {
	needServers(t, Postgres)
	check := watch(t)
	pc := DefaultPublishedConfig()
	pc.Pools = []int{2, 4}
	pc.Workers = 20
	pc.Runs = 2
	pc.BlogWindow = 150 * time.Millisecond
	res, err := RunPublished(context.Background(), pc, nil)
	check()
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2*2*2 || len(res.Points) != 4 || len(res.Comparisons) != 2 {
		t.Fatalf("runs %d points %d comparisons %d", len(res.Runs), len(res.Points), len(res.Comparisons))
	}
	var openedPublished int64
	for _, r := range res.Runs {
		if r.Millis <= 0 || r.Opened < 0 || r.Opened > int64(r.Pool) {
			t.Errorf("run %+v", r)
		}
		if r.Variant == VariantPublished && r.Pool == 4 {
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
	if _, err := RunPublished(context.Background(), PublishedConfig{}, nil); !IsConfigError(err) {
		t.Errorf("empty config: %v", err)
	}
}

// A server that stops answering (SIGSTOP) fails the window within the window timeout,
// and the teardown still removes it.
func TestRunHungServerFailsAndCleansUp(t *testing.T) {
	needServers(t, Redis)
	check := watch(t)
	cfg := QuickConfig()
	cfg.Servers = []string{Redis}
	cfg.PoolSizes = []int{4}
	cfg.Duration = 2 * time.Second
	cfg.WindowTimeout = time.Second
	var victim int
	hook := testHookStarted
	testHookStarted = func(tg *target) { victim = tg.pid; hook(tg) }
	start := time.Now()
	_, err := Run(context.Background(), cfg, progressFunc(func(i, n int, w WindowSpec) {
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
	needServers(t, Redis)
	check := watch(t)
	cfg := QuickConfig()
	cfg.Servers = []string{Redis}
	cfg.PoolSizes = []int{1, 2}
	cfg.Repetitions = 2
	testHookWindow = func(s WindowSpec) error {
		if s.Pool == 2 {
			return errors.New("injected failure")
		}
		return nil
	}
	defer func() { testHookWindow = nil }()
	res, err := Run(context.Background(), cfg, NoProgress{})
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
