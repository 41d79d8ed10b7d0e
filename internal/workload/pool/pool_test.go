package pool

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/redisserver"
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
		// Begin refuses it before touching anything.
		if _, err := Begin(c, nil); !IsConfigError(err) {
			t.Errorf("%s: Begin err = %v, want a config error", tc.name, err)
		}
	}
	for _, c := range []Config{DefaultConfig(), QuickConfig()} {
		if err := Validate(&c); err != nil {
			t.Errorf("stock config invalid: %v", err)
		}
	}
	// The published replay refuses a bad configuration before starting anything.
	if _, err := BeginPublished(context.Background(), PublishedConfig{}, nil); !IsConfigError(err) {
		t.Errorf("empty published config: %v", err)
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

// --- real servers --------------------------------------------------------------------

func needServers(t *testing.T, kinds ...string) {
	t.Helper()
	for _, k := range kinds {
		switch k {
		case Postgres:
			if _, err := pgserver.FindBinDir(); err != nil {
				testenv.Skip(t, testenv.Postgres, "PostgreSQL missing; install with: %s", pgserver.InstallHint)
			}
		case Redis:
			if _, err := redisserver.FindBinary(); err != nil {
				testenv.Skip(t, testenv.Redis, "redis-server missing; install with: %s", redisserver.InstallHint)
			}
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
