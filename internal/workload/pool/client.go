package pool

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"

	"github.com/ctxbench/ctxbench/internal/workload/redisserver"
)

// client is one client library's pool of exactly n connections.
type client interface {
	// ids holds all n connections at once and returns their server-side ids (backend
	// pid, Redis client id), sorted.
	ids(ctx context.Context) ([]int64, error)
	// query runs one lookup; waitNs is the time spent waiting for a connection, or -1
	// when the library does not let a single wait be timed.
	query(ctx context.Context, id int) (waitNs int64, err error)
	stats() clientStats
	close()
}

type clientStats struct {
	created int64 // connections the library opened so far
	closed  int64 // connections the library closed so far
	waitNs  int64 // total time waiting for a connection
}

func newClient(ctx context.Context, kind string, t *target, n int) (client, error) {
	var c client
	var err error
	switch kind {
	case ClientPgxpool:
		c, err = newPgxpool(ctx, t, n)
	case ClientDatabaseSQL:
		c, err = newSQL(ctx, t, n)
	case ClientGoRedis:
		c, err = newGoRedis(ctx, t, n)
	default:
		return nil, fmt.Errorf("unknown client %q", kind)
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// holdAll takes n connections one after another and holds every one until
// all are taken, so that they are n distinct connections (a pool would
// hand an idle one back again); use runs on each as it is taken. Every
// client opens its pool and reads its connections' ids this one way. All
// are given back before holdAll returns, so a caller may close the pool
// on its error: pgxpool's Close waits for every connection taken.
func holdAll[C any](n int, take func(i int) (C, error), give func(C), use func(i int, c C) error) error {
	held := make([]C, 0, n)
	defer func() {
		for _, h := range held {
			give(h)
		}
	}()
	for i := 0; i < n; i++ {
		c, err := take(i)
		if err != nil {
			return err
		}
		held = append(held, c)
		if err := use(i, c); err != nil {
			return err
		}
	}
	return nil
}

// openAll opens a pool's n connections by holding them all at once, and
// prepares the query on each (prepare runs it once), so that no timed
// query opens a connection or prepares a statement.
func openAll[C any](n int, take func() (C, error), give func(C), prepare func(C) error) error {
	return holdAll(n, func(i int) (C, error) {
		c, err := take()
		if err != nil {
			return c, fmt.Errorf("open connection %d of %d: %w", i+1, n, err)
		}
		return c, nil
	}, give, func(i int, c C) error {
		if err := prepare(c); err != nil {
			return fmt.Errorf("prepare on connection %d: %w", i+1, err)
		}
		return nil
	})
}

// sortedIDs holds all n connections and returns their server-side ids,
// sorted; id reads one connection's.
func sortedIDs[C any](n int, take func() (C, error), give func(C), id func(i int, c C) (int64, error)) ([]int64, error) {
	out := make([]int64, 0, n)
	err := holdAll(n, func(int) (C, error) { return take() }, give, func(i int, c C) error {
		v, err := id(i, c)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(out)
	return out, nil
}

func pgQuery(table string) string {
	return "SELECT name FROM " + pgx.Identifier{table}.Sanitize() + " WHERE id=$1"
}

// --- pgxpool -------------------------------------------------------------------------

type pgxClient struct {
	p *pgxpool.Pool
	n int
	q string
}

func newPgxpool(ctx context.Context, t *target, n int) (*pgxClient, error) {
	cfg, err := pgxpool.ParseConfig(t.dsn)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = int32(n)
	cfg.MinConns = 0 // opened explicitly below, not by the background health check
	cfg.MaxConnLifetime = 24 * time.Hour
	cfg.MaxConnLifetimeJitter = 0
	cfg.MaxConnIdleTime = 24 * time.Hour
	cfg.HealthCheckPeriod = 24 * time.Hour
	// No liveness ping on acquire: the default pings a connection idle for 1 s, an
	// extra round trip that is not the workload.
	cfg.ShouldPing = func(context.Context, pgxpool.ShouldPingParams) bool { return false }
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	c := &pgxClient{p: p, n: n, q: pgQuery(t.table)}
	// The default statement cache prepares the query on its first use.
	err = openAll(n, func() (*pgxpool.Conn, error) { return p.Acquire(ctx) }, (*pgxpool.Conn).Release,
		func(conn *pgxpool.Conn) error {
			var name string
			return conn.QueryRow(ctx, c.q, 1).Scan(&name)
		})
	if err != nil {
		p.Close()
		return nil, err
	}
	return c, nil
}

func (c *pgxClient) ids(ctx context.Context) ([]int64, error) {
	return sortedIDs(c.n, func() (*pgxpool.Conn, error) { return c.p.Acquire(ctx) }, (*pgxpool.Conn).Release,
		func(_ int, conn *pgxpool.Conn) (int64, error) { return int64(conn.Conn().PgConn().PID()), nil })
}

func (c *pgxClient) query(ctx context.Context, id int) (int64, error) {
	t0 := time.Now()
	conn, err := c.p.Acquire(ctx)
	wait := time.Since(t0)
	if err != nil {
		return int64(wait), err
	}
	var name string
	err = conn.QueryRow(ctx, c.q, id).Scan(&name)
	conn.Release()
	return int64(wait), err
}

func (c *pgxClient) stats() clientStats {
	s := c.p.Stat()
	return clientStats{
		created: s.NewConnsCount(),
		closed:  s.MaxLifetimeDestroyCount() + s.MaxIdleDestroyCount(),
		waitNs:  int64(s.EmptyAcquireWaitTime()),
	}
}

func (c *pgxClient) close() { c.p.Close() }

// --- database/sql over pgx/stdlib ----------------------------------------------------

type sqlClient struct {
	db *sql.DB
	n  int
	q  string
}

func newSQL(ctx context.Context, t *target, n int) (*sqlClient, error) {
	cc, err := pgx.ParseConfig(t.dsn)
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDB(*cc)
	db.SetMaxOpenConns(n)
	// MaxIdleConns defaults to 2: a released connection beyond two idle ones is closed
	// and reopened later (a fork per reconnect). Keep all n.
	db.SetMaxIdleConns(n)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	c := &sqlClient{db: db, n: n, q: pgQuery(t.table)}
	err = openAll(n, func() (*sql.Conn, error) { return db.Conn(ctx) }, giveSQL, func(conn *sql.Conn) error {
		var name string
		return conn.QueryRowContext(ctx, c.q, 1).Scan(&name)
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return c, nil
}

// giveSQL returns a connection to database/sql's pool (Conn.Close does
// not close the connection).
func giveSQL(conn *sql.Conn) { conn.Close() }

func (c *sqlClient) ids(ctx context.Context) ([]int64, error) {
	return sortedIDs(c.n, func() (*sql.Conn, error) { return c.db.Conn(ctx) }, giveSQL,
		func(_ int, conn *sql.Conn) (pid int64, err error) {
			err = conn.Raw(func(dc any) error {
				pid = int64(dc.(*stdlib.Conn).Conn().PgConn().PID())
				return nil
			})
			return pid, err
		})
}

// query is the published pattern: db.QueryRow(...).Scan; database/sql does not expose
// one call's wait, so the mean comes from DB.Stats().WaitDuration.
func (c *sqlClient) query(ctx context.Context, id int) (int64, error) {
	var name string
	return -1, c.db.QueryRowContext(ctx, c.q, id).Scan(&name)
}

func (c *sqlClient) stats() clientStats {
	s := c.db.Stats()
	return clientStats{
		created: int64(s.OpenConnections) + s.MaxIdleClosed + s.MaxIdleTimeClosed + s.MaxLifetimeClosed,
		closed:  s.MaxIdleClosed + s.MaxIdleTimeClosed + s.MaxLifetimeClosed,
		waitNs:  int64(s.WaitDuration),
	}
}

func (c *sqlClient) close() { c.db.Close() }

// --- go-redis ------------------------------------------------------------------------

type redisClient struct {
	c      *redis.Client
	n      int
	prefix string
	keys   []string
}

func newGoRedis(ctx context.Context, t *target, n int) (*redisClient, error) {
	o := *t.redisOpts
	o.PoolSize, o.MaxActiveConns, o.MinIdleConns, o.MaxIdleConns = n, n, n, n
	rc := &redisClient{c: redis.NewClient(&o), n: n, prefix: t.keyPrefix}
	if _, err := rc.ids(ctx); err != nil {
		rc.c.Close()
		return nil, err
	}
	return rc, nil
}

func (c *redisClient) ids(ctx context.Context) ([]int64, error) {
	// A go-redis Conn is a connection taken from the pool until Close gives it back.
	return sortedIDs(c.n, func() (*redis.Conn, error) { return c.c.Conn(), nil }, func(conn *redis.Conn) { conn.Close() },
		func(i int, conn *redis.Conn) (int64, error) {
			id, err := conn.ClientID(ctx).Result()
			if err != nil {
				return 0, fmt.Errorf("connection %d of %d: %w", i+1, c.n, err)
			}
			return id, nil
		})
}

func (c *redisClient) setKeys(rows int) {
	c.keys = make([]string, rows+1)
	for i := 1; i <= rows; i++ {
		c.keys[i] = c.prefix + strconv.Itoa(i)
	}
}

// query issues GET; the key strings are made before timing so the loop does not
// allocate them.
func (c *redisClient) query(ctx context.Context, id int) (int64, error) {
	return -1, c.c.Get(ctx, c.keys[id]).Err()
}

func (c *redisClient) stats() clientStats {
	s := c.c.PoolStats()
	return clientStats{created: int64(s.TotalConns) + int64(s.StaleConns), closed: int64(s.StaleConns), waitNs: s.WaitDurationNs}
}

func (c *redisClient) close() { c.c.Close() }

// connectionsReceived is the server's total_connections_received (INFO stats), read
// over one of the pool's own connections; -1 when unavailable.
func (c *redisClient) connectionsReceived(ctx context.Context) int64 {
	info, err := c.c.Info(ctx, "stats").Result()
	if err != nil {
		return -1
	}
	v, err := strconv.ParseInt(redisserver.InfoField(info, "total_connections_received"), 10, 64)
	if err != nil {
		return -1
	}
	return v
}
