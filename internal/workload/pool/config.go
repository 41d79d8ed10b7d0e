// Package pool runs the connection-pool experiment against real PostgreSQL and Redis
// servers: for each pool size, worker count, client library and CPU placement it runs
// repeated, interleaved fixed-duration windows and measures throughput, latency, time
// waiting for a connection versus time holding one, context switches per query (server
// voluntary / involuntary, server auxiliary, client) and CPU time per query; then it
// finds the knee of each throughput curve, fits the Universal Scalability Law and
// compares the published pool 10 against pool 90. docs/pool.md gives the method.
package pool

import (
	"errors"
	"fmt"
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

// Validate checks the configuration without touching the system's CPUs or servers;
// Run additionally checks the CPUs against the ones the process may use.
// Validate checks a configuration before anything starts.
func Validate(c *Config) error {
	if len(c.Servers) == 0 {
		return bad("pool: no server given (want postgres and/or redis)")
	}
	for i, s := range c.Servers {
		if s != Postgres && s != Redis {
			return bad("pool: unknown server %q (want postgres or redis)", s)
		}
		if slices.Contains(c.Servers[:i], s) {
			return bad("pool: server %q given twice", s)
		}
	}
	// The clients are checked even when PostgreSQL is not run: a bad
	// --clients is a mistake either way.
	for i, cl := range c.PGClients {
		if cl != ClientPgxpool && cl != ClientDatabaseSQL {
			return bad("pool: unknown PostgreSQL client %q (want pgxpool or database/sql)", cl)
		}
		if slices.Contains(c.PGClients[:i], cl) {
			return bad("pool: client %q given twice", cl)
		}
	}
	if slices.Contains(c.Servers, Postgres) && len(c.PGClients) == 0 {
		return bad("pool: no PostgreSQL client given (want pgxpool and/or database/sql)")
	}
	if len(c.PoolSizes) == 0 {
		return bad("pool: no pool size given")
	}
	for i, p := range c.PoolSizes {
		if p < 1 || p > MaxPool {
			return bad("pool: pool size %d out of range 1..%d", p, MaxPool)
		}
		if slices.Contains(c.PoolSizes[:i], p) {
			return bad("pool: pool size %d given twice", p)
		}
	}
	if len(c.Workers) == 0 {
		return bad("pool: no worker count given (0 means as many as connections)")
	}
	for i, w := range c.Workers {
		if w < 0 || w > MaxWorkers {
			return bad("pool: worker count %d out of range 0..%d (0 = pool size)", w, MaxWorkers)
		}
		if slices.Contains(c.Workers[:i], w) {
			return bad("pool: worker count %d given twice", w)
		}
	}
	if len(c.Placements) == 0 {
		return bad("pool: no placement given")
	}
	for i, p := range c.Placements {
		if p != CrossCPU && p != SameCPU && p != Unpinned {
			return bad("pool: unknown placement %q (want cross-cpu, same-cpu or unpinned)", p)
		}
		if slices.Contains(c.Placements[:i], p) {
			return bad("pool: placement %q given twice", p)
		}
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

// IsConfigError reports whether err is a configuration problem.
func IsConfigError(err error) bool {
	var ce *ConfigError
	return errors.As(err, &ce)
}

// cpus resolves the server's and the client's CPU against the CPUs the process may
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
