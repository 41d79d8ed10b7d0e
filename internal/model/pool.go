package model

import "time"

// PoolConfig describes one connection-pool run: the command line builds
// it, internal/workload/pool validates and runs it (its Config;
// DefaultConfig is the full sweep), and the document records it
// (result.PoolConfig). It lives in the vocabulary so that the engine need
// not import the document to share it.
type PoolConfig struct {
	// Servers to measure, in order: "postgres", "redis".
	Servers []string `json:"servers"`
	// PGClients are the PostgreSQL client libraries: "pgxpool", "database/sql".
	PGClients []string `json:"pg_clients"`
	// PoolSizes are the connection pool sizes.
	PoolSizes []int `json:"pool_sizes"`
	// Workers are the numbers of concurrent workers (goroutines issuing queries);
	// 0 stands for "as many workers as connections" (no queue at the pool).
	Workers []int `json:"workers"`
	// Placements: "cross-cpu", "same-cpu", "unpinned".
	Placements []string `json:"placements"`
	// Warmup runs the load before each measured window (connections are open already).
	Warmup time.Duration `json:"warmup_ns"`
	// Duration is the length of each measured window.
	Duration time.Duration `json:"duration_ns"`
	// Baseline is the length of the idle baseline window per server and placement;
	// 0 means Duration.
	Baseline time.Duration `json:"baseline_ns"`
	// Repetitions of every point; each repetition visits all points in a new random order.
	Repetitions int `json:"repetitions"`
	// Seed drives the visiting order and the workers' random ids.
	Seed uint64 `json:"seed"`
	// ServerCPU and ClientCPU are used by the pinned placements; -1 picks the first and
	// the last CPU the run may use. same-cpu puts both on ClientCPU.
	ServerCPU int `json:"server_cpu"`
	ClientCPU int `json:"client_cpu"`
	// Rows is how many names the table (and keys Redis) holds.
	Rows int `json:"rows"`
	// NoIndex drops the primary key on the names table, as the published schema had it,
	// so every lookup scans the table.
	NoIndex bool `json:"no_index"`
	// PostgresDSN, when set, uses an existing server instead of a throwaway one; the
	// table ctxbench_names is created in it and dropped at the end.
	PostgresDSN string `json:"-"`
	// RedisURL, when set, uses an existing Redis; keys ctxbench:name:<id> are set in it
	// and deleted at the end.
	RedisURL string `json:"-"`
	// PostgresBinDir and RedisServer override where the server binaries are found.
	PostgresBinDir string `json:"-"`
	RedisServer    string `json:"-"`
	// Perf adds a `perf stat -e context-switches -C <server CPU>` count to each pinned
	// window as a cross-check of the /proc accounting (needs perf and permission).
	Perf bool `json:"perf"`
	// QuietWait, when > 0, waits up to this long before each window until other
	// processes use less than 10% of the window's CPUs (a shared machine); the wait and
	// the load measured during every window are reported either way.
	QuietWait time.Duration `json:"quiet_wait_ns"`
	// WindowTimeout bounds how long the workers may take to stop after a window ends
	// (a hung server); 0 means 30 s.
	WindowTimeout time.Duration `json:"-"`
}
