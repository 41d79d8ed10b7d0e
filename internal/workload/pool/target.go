package pool

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/redisserver"
)

// target is a server under test: embedded or existing, with access to its processes
// when they run on this machine.
type target struct {
	kind     string // Postgres or Redis
	version  string
	embedded bool
	// pid is the postmaster or redis-server pid; 0 when the server is not local.
	pid int
	// PostgreSQL
	dsn   string
	table string
	// Redis
	redisOpts *redis.Options
	keyPrefix string

	stop   func() error // tears down what Run made (server or table/keys)
	exited <-chan struct{}
	// aux holds the postmaster's children before any pool was opened: checkpointer,
	// background writer, walwriter, launchers.
	aux map[int]bool
}

func (t *target) isAux(pid int) bool { return t.aux[pid] }

// recordAux notes the server's own processes (call before any pool is open).
func (t *target) recordAux() {
	t.aux = map[int]bool{}
	for _, p := range t.children() {
		t.aux[p] = true
	}
}

func (t *target) hasProcs() bool { return t.pid > 0 }

// alive reports an error once an embedded server has exited.
func (t *target) alive() error {
	if t.exited == nil {
		return nil
	}
	select {
	case <-t.exited:
		return fmt.Errorf("%s exited unexpectedly", t.kind)
	default:
		return nil
	}
}

// processes lists the server's processes (PostgreSQL: postmaster and children).
func (t *target) processes() []int {
	if t.kind == Redis {
		return []int{t.pid}
	}
	return append([]int{t.pid}, procs.Children(t.pid)...)
}

// pin sets the affinity of every thread of every server process. Processes the
// postmaster forks later (the pool's backends) inherit it.
func (t *target) pin(cpus []int) error {
	if !t.hasProcs() {
		return fmt.Errorf("%s is not a local process: it cannot be pinned", t.kind)
	}
	for _, p := range t.processes() {
		if err := procs.PinProcess(p, cpus); err != nil {
			if p == t.pid {
				return err
			}
			// A child that just exited (a backend of the previous window) is fine.
		}
	}
	return nil
}

// counters reads the serving tasks (PostgreSQL: the pool's backends by pid; Redis: the
// event-loop thread) and the auxiliary ones (every other process or thread).
func (t *target) counters(backends []int64) (serving, aux procs.Counters, err error) {
	if t.kind == Redis {
		tasks, err := procs.Tasks(t.pid)
		if err != nil {
			return serving, aux, fmt.Errorf("redis-server: %w", procs.ErrGone)
		}
		for _, tid := range tasks {
			c, err := procs.Thread(t.pid, tid)
			if err != nil {
				continue
			}
			if tid == t.pid {
				serving = c
			} else {
				aux = aux.Add(c)
			}
		}
		if serving.Threads == 0 {
			return serving, aux, fmt.Errorf("redis-server main thread: %w", procs.ErrGone)
		}
		return serving, aux, nil
	}
	isBackend := make(map[int]bool, len(backends))
	for _, b := range backends {
		isBackend[int(b)] = true
		// PostgreSQL processes are single-threaded: the main thread is the process.
		c, err := procs.Thread(int(b), int(b))
		if err != nil {
			return serving, aux, fmt.Errorf("backend %d vanished during the window (a reconnect): %w", b, err)
		}
		serving = serving.Add(c)
	}
	// The auxiliary set was recorded before any pool was open (recordAux); reading it
	// from that list instead of scanning /proc keeps the read short under load.
	auxPids := []int{t.pid}
	if t.aux == nil {
		auxPids = t.processes()
	} else {
		for p := range t.aux {
			auxPids = append(auxPids, p)
		}
	}
	for _, p := range auxPids {
		if isBackend[p] {
			continue
		}
		if c, err := procs.Thread(p, p); err == nil {
			aux = aux.Add(c)
		}
	}
	return serving, aux, nil
}

// children lists the postmaster's live children (nil for Redis or a remote server).
func (t *target) children() []int {
	if t.kind != Postgres || !t.hasProcs() {
		return nil
	}
	return procs.Children(t.pid)
}

func startTarget(ctx context.Context, cfg *Config, kind string, cpus []int, prog Progress) (*target, error) {
	switch kind {
	case Postgres:
		if cfg.PostgresDSN != "" {
			return externalPG(ctx, cfg, prog)
		}
		prog.Stage("starting a throwaway PostgreSQL")
		maxPool := slices.Max(cfg.PoolSizes)
		s, err := pgserver.Start(ctx, pgserver.Options{
			BinDir:         cfg.PostgresBinDir,
			MaxConnections: max(300, maxPool+20),
			Rows:           cfg.Rows,
			NoIndex:        cfg.NoIndex,
			CPUs:           cpus,
		})
		if err != nil {
			return nil, err
		}
		return &target{
			kind: Postgres, version: "PostgreSQL " + s.Version, embedded: true, pid: s.Pid(),
			dsn: s.DSN, table: pgserver.Table, stop: s.Stop, exited: s.Exited(),
		}, nil
	case Redis:
		if cfg.RedisURL != "" {
			return externalRedis(ctx, cfg, prog)
		}
		prog.Stage("starting a throwaway Redis")
		s, err := redisserver.Start(ctx, redisserver.Options{Binary: cfg.RedisServer, Keys: cfg.Rows, CPUs: cpus})
		if err != nil {
			return nil, err
		}
		return &target{
			kind: Redis, version: "Redis " + s.Version, embedded: true, pid: s.Pid(),
			redisOpts: redisserver.ClientOptions(s.Socket, 1), keyPrefix: redisserver.KeyPrefix,
			stop: s.Stop, exited: s.Exited(),
		}, nil
	}
	return nil, fmt.Errorf("unknown server %q", kind)
}

const externalTable = "ctxbench_names"
const externalKeyPrefix = "ctxbench:name:"

func externalPG(ctx context.Context, cfg *Config, prog Progress) (*target, error) {
	prog.Stage("connecting to the given PostgreSQL")
	conn, err := pgx.Connect(ctx, cfg.PostgresDSN)
	if err != nil {
		return nil, fmt.Errorf("postgres-dsn: %w", err)
	}
	defer conn.Close(context.Background())
	t := &target{kind: Postgres, dsn: cfg.PostgresDSN, table: externalTable}
	var ver string
	var maxConns, backend int
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('max_connections')::int, pg_backend_pid()").Scan(&ver, &maxConns, &backend); err != nil {
		return nil, fmt.Errorf("postgres-dsn: %w", err)
	}
	t.version = "PostgreSQL " + ver
	if need := slices.Max(cfg.PoolSizes) + 3; maxConns < need {
		return nil, bad("pool: the given PostgreSQL allows %d connections, the largest pool needs %d", maxConns, need)
	}
	// The server is local when our backend's pid is a postgres process here; its parent
	// is then the postmaster.
	if st, err := procs.ReadStat(backend); err == nil && strings.HasPrefix(st.Comm, "postgres") {
		if pst, err := procs.ReadStat(st.PPid); err == nil && strings.HasPrefix(pst.Comm, "postgres") {
			t.pid = st.PPid
		}
	}
	prog.Stage("loading " + externalTable)
	if err := pgserver.Load(ctx, conn, externalTable, cfg.Rows, cfg.NoIndex); err != nil {
		return nil, err
	}
	dsn := cfg.PostgresDSN
	t.stop = func() error {
		cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c, err := pgx.Connect(cctx, dsn)
		if err != nil {
			return err
		}
		defer c.Close(cctx)
		_, err = c.Exec(cctx, "DROP TABLE IF EXISTS "+externalTable)
		return err
	}
	return t, nil
}

func externalRedis(ctx context.Context, cfg *Config, prog Progress) (*target, error) {
	prog.Stage("connecting to the given Redis")
	opts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		if u, uerr := url.Parse(cfg.RedisURL); uerr == nil && u.Scheme == "unix" {
			opts, err = &redis.Options{Network: "unix", Addr: u.Path}, nil
		}
	}
	if err != nil {
		return nil, bad("pool: redis-url: %v", err)
	}
	base := redisserver.ClientOptions(opts.Addr, 1)
	base.Network, base.Username, base.Password, base.DB, base.TLSConfig = opts.Network, opts.Username, opts.Password, opts.DB, opts.TLSConfig
	c := redis.NewClient(base)
	defer c.Close()
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return nil, fmt.Errorf("redis-url: %w", err)
	}
	t := &target{kind: Redis, version: "Redis " + redisserver.InfoField(info, "redis_version"), redisOpts: base, keyPrefix: externalKeyPrefix}
	if pid, err := strconv.Atoi(redisserver.InfoField(info, "process_id")); err == nil {
		if st, err := procs.ReadStat(pid); err == nil && strings.HasPrefix(st.Comm, "redis") {
			t.pid = pid
		}
	}
	prog.Stage("loading " + externalKeyPrefix + "* keys")
	if err := redisserver.Load(ctx, c, externalKeyPrefix, cfg.Rows); err != nil {
		return nil, err
	}
	rows := cfg.Rows
	t.stop = func() error {
		cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c := redis.NewClient(base)
		defer c.Close()
		for lo := 1; lo <= rows; lo += 1000 {
			var keys []string
			for i := lo; i < lo+1000 && i <= rows; i++ {
				keys = append(keys, externalKeyPrefix+strconv.Itoa(i))
			}
			if err := c.Del(cctx, keys...).Err(); err != nil {
				return err
			}
		}
		return nil
	}
	return t, nil
}
