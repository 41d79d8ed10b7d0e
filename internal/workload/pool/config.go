// Package pool is the connection-pool engine: it starts real PostgreSQL and Redis
// servers (or connects to given ones), pins them and the client per placement, and
// runs fixed-duration windows of a pool of n connections under load, measuring
// throughput, latency, time waiting for a connection versus time holding one, context
// switches per query (server voluntary / involuntary, server auxiliary, client) and
// CPU time per query; and it replays the published run's own procedure
// (published.go). The experiment (internal/experiment/pool, and replicate for the
// published run) plans the windows on the scheduler's rounds, finds each curve's knee,
// fits the Universal Scalability Law and writes the document. docs/pool.md gives the
// method.
package pool

import (
	"errors"
	"fmt"
	"github.com/ctxbench/ctxbench/internal/model"
	"slices"
	"time"
)

// Server names.
const (
	Postgres = "postgres"
	Redis    = "redis"
)

// Client library names.
const (
	ClientPgxpool     = "pgxpool"      // github.com/jackc/pgx/v5/pgxpool
	ClientDatabaseSQL = "database/sql" // database/sql over github.com/jackc/pgx/v5/stdlib: the published set-up
	ClientGoRedis     = "go-redis"     // github.com/redis/go-redis/v9
)

// Placement names (the vocabulary of docs/methodology.md).
const (
	CrossCPU = "cross-cpu" // server on one CPU, client on another: the published set-up
	SameCPU  = "same-cpu"  // server and client share one CPU
	Unpinned = "unpinned"  // both may run on every CPU the run was given
)

// MaxPool is the largest pool size accepted (the embedded PostgreSQL gets
// max_connections = largest pool + 20).
const MaxPool = 4096

// MaxWorkers is the largest worker count accepted.
const MaxWorkers = 100000

// DefaultPoolSizes is 1..256 in powers of two plus the published 10 and 90.
var DefaultPoolSizes = []int{1, 2, 4, 8, 10, 16, 32, 64, 90, 128, 256}

// Config is one run's configuration: the vocabulary's model.PoolConfig,
// which the document records as result.PoolConfig.
type Config = model.PoolConfig

// DefaultConfig is the full sweep: both servers, every placement, 1000 workers and
// workers = pool size, both PostgreSQL clients, 5 repetitions of 0.5 s warm-up + 1 s
// windows (5 windows a point give the pool 10 vs 90 comparison a 95% interval), the
// perf cross-check where usable. About 30 minutes on a 2-CPU machine.
func DefaultConfig() Config {
	return Config{
		Servers:     []string{Postgres, Redis},
		PGClients:   []string{ClientPgxpool, ClientDatabaseSQL},
		PoolSizes:   slices.Clone(DefaultPoolSizes),
		Workers:     []int{1000, 0},
		Placements:  []string{CrossCPU, SameCPU, Unpinned},
		Warmup:      500 * time.Millisecond,
		Duration:    time.Second,
		Repetitions: 5,
		Seed:        1,
		ServerCPU:   -1,
		ClientCPU:   -1,
		Rows:        10000,
		Perf:        true,
	}
}

// QuickConfig is a small run for tests and smoke checks (a few seconds per server).
func QuickConfig() Config {
	c := DefaultConfig()
	c.PGClients = []string{ClientPgxpool}
	c.PoolSizes = []int{1, 4}
	c.Workers = []int{16}
	c.Placements = []string{CrossCPU}
	c.Warmup = 100 * time.Millisecond
	c.Duration = 300 * time.Millisecond
	c.Baseline = 200 * time.Millisecond
	c.Repetitions = 1
	c.Perf = false
	return c
}

// ConfigError is a problem with the configuration (the CLI exits with status 2).
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

func bad(format string, a ...any) error { return &ConfigError{Msg: fmt.Sprintf(format, a...)} }

// Validate checks a configuration before anything starts, without touching the
// system's CPUs or servers; Begin additionally checks the CPUs against the ones the
// process may use.
func Validate(c *Config) error {
	if len(c.Servers) == 0 {
		return bad("pool: no server given (want postgres and/or redis)")
	}
	if err := each(c.Servers, known("server", "postgres or redis", Postgres, Redis), "pool: server %q given twice"); err != nil {
		return err
	}
	// The clients are checked even when PostgreSQL is not run: a bad
	// --clients is a mistake either way.
	if err := each(c.PGClients, known("PostgreSQL client", "pgxpool or database/sql", ClientPgxpool, ClientDatabaseSQL), "pool: client %q given twice"); err != nil {
		return err
	}
	if slices.Contains(c.Servers, Postgres) && len(c.PGClients) == 0 {
		return bad("pool: no PostgreSQL client given (want pgxpool and/or database/sql)")
	}
	if len(c.PoolSizes) == 0 {
		return bad("pool: no pool size given")
	}
	if err := each(c.PoolSizes, within(1, MaxPool, "pool: pool size %d out of range 1..%d"), "pool: pool size %d given twice"); err != nil {
		return err
	}
	if len(c.Workers) == 0 {
		return bad("pool: no worker count given (0 means as many as connections)")
	}
	if err := each(c.Workers, within(0, MaxWorkers, "pool: worker count %d out of range 0..%d (0 = pool size)"), "pool: worker count %d given twice"); err != nil {
		return err
	}
	if len(c.Placements) == 0 {
		return bad("pool: no placement given")
	}
	if err := each(c.Placements, known("placement", "cross-cpu, same-cpu or unpinned", CrossCPU, SameCPU, Unpinned), "pool: placement %q given twice"); err != nil {
		return err
	}
	if c.Duration < 10*time.Millisecond {
		return bad("pool: duration %v too short (at least 10ms)", c.Duration)
	}
	if c.Warmup < 0 {
		return bad("pool: negative warm-up %v", c.Warmup)
	}
	if c.Baseline < 0 {
		return bad("pool: negative baseline %v", c.Baseline)
	}
	if c.Repetitions < 1 {
		return bad("pool: repetitions must be at least 1, got %d", c.Repetitions)
	}
	if c.Rows < 1 {
		return bad("pool: rows must be at least 1, got %d", c.Rows)
	}
	if c.ServerCPU < -1 || c.ClientCPU < -1 {
		return bad("pool: CPU numbers must be >= 0 (or -1 for automatic)")
	}
	if c.ServerCPU >= 0 && c.ServerCPU == c.ClientCPU && slices.Contains(c.Placements, CrossCPU) {
		return bad("pool: cross-cpu needs two different CPUs, got server CPU = client CPU = %d", c.ServerCPU)
	}
	if c.QuietWait < 0 {
		return bad("pool: negative quiet wait")
	}
	if c.WindowTimeout < 0 {
		return bad("pool: negative window timeout")
	}
	return nil
}

// each checks a list of the configuration: every value in order with
// valid, and that none is given twice (twice formats the message with the
// value). Each of Validate's lists is checked this one way.
func each[T comparable](vals []T, valid func(T) error, twice string) error {
	for i, v := range vals {
		if err := valid(v); err != nil {
			return err
		}
		if slices.Contains(vals[:i], v) {
			return bad(twice, v)
		}
	}
	return nil
}

// within accepts lo..hi; outside formats the message with the value and hi.
func within(lo, hi int, outside string) func(int) error {
	return func(v int) error {
		if v < lo || v > hi {
			return bad(outside, v, hi)
		}
		return nil
	}
}

// known accepts one of names; what and want name the value and the choice
// in the message.
func known(what, want string, names ...string) func(string) error {
	return func(s string) error {
		if !slices.Contains(names, s) {
			return bad("pool: unknown %s %q (want %s)", what, s, want)
		}
		return nil
	}
}

// IsConfigError reports whether err is a configuration problem.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}

// configCPUs resolves the server's and the client's CPU against the CPUs the process may
// use: by default the first and the last allowed CPU (the CLI's --cpus convention:
// cross-cpu uses the first and last, same-cpu the last).
func configCPUs(c *Config, allowed []int) (server, client int, err error) {
	if len(allowed) == 0 {
		return 0, 0, errors.New("pool: no CPU is allowed")
	}
	server, client = c.ServerCPU, c.ClientCPU
	if server < 0 {
		server = allowed[0]
		if client == server && len(allowed) > 1 {
			server = allowed[1]
		}
	}
	if client < 0 {
		client = allowed[len(allowed)-1]
		if client == server && len(allowed) > 1 {
			client = allowed[0]
		}
	}
	pinned := slices.Contains(c.Placements, CrossCPU) || slices.Contains(c.Placements, SameCPU)
	if pinned && !slices.Contains(allowed, client) {
		return 0, 0, bad("pool: client CPU %d is not one this process may use (%v)", client, allowed)
	}
	if slices.Contains(c.Placements, CrossCPU) {
		if client == server {
			return 0, 0, bad("pool: cross-cpu needs two CPUs, this process may use only %v", allowed)
		}
		if !slices.Contains(allowed, server) {
			return 0, 0, bad("pool: server CPU %d is not one this process may use (%v)", server, allowed)
		}
	}
	return server, client, nil
}
