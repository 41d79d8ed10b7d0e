// Package redisserver starts a throwaway Redis for one run: a redis-server child in a
// private temporary directory, unix socket only (port 0), no persistence, loaded with
// name:<id> keys. Stop removes every process and file it made.
package redisserver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/go-redis/v9/maintnotifications"

	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// ErrMissing means redis-server was not found.
var ErrMissing = errors.New("redis-server not found; install it with: " + InstallHint)

// KeyPrefix starts every key the embedded server holds.
const KeyPrefix = "name:"

// Options configure Start.
type Options struct {
	// Binary is the redis-server path; empty means look on PATH and in /usr/bin.
	Binary string
	// CPUs, when not empty, pins the server (all its threads) from the start.
	CPUs []int
	// Keys is how many keys to load (name:1 .. name:Keys).
	Keys int
}

// Server is a running throwaway Redis.
type Server struct {
	// Socket is the unix socket path.
	Socket string
	// Version is redis_version from INFO.
	Version string

	proc *serverdir.Process
}

// FindBinary returns the redis-server path.
func FindBinary() (string, error) {
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, nil
	}
	for _, p := range []string{"/usr/bin/redis-server", "/usr/local/bin/redis-server"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", ErrMissing
}

// ClientOptions returns go-redis options for a unix socket with a strict pool of size n
// opened eagerly, no retries (a retry would hide a failure), and no background
// maintenance features that would add traffic of their own.
func ClientOptions(socket string, n int) *redis.Options {
	return &redis.Options{
		Network:         "unix",
		Addr:            socket,
		PoolSize:        n,
		MaxActiveConns:  n,
		MinIdleConns:    n,
		MaxIdleConns:    n,
		ConnMaxIdleTime: -1,
		ConnMaxLifetime: 0,
		PoolTimeout:     time.Minute,
		ReadTimeout:     time.Minute,
		WriteTimeout:    time.Minute,
		DialTimeout:     10 * time.Second,
		MaxRetries:      -1,
		// Deadlines of the caller's context bound every read and write.
		ContextTimeoutEnabled: true,
		DisableIdentity:       true,
		PipelinePoolSize:      -1,
		MaintNotificationsConfig: &maintnotifications.Config{
			Mode: maintnotifications.ModeDisabled,
		},
	}
}

// Start starts redis-server and loads the keys. On any error everything made so far is
// removed.
func Start(ctx context.Context, o Options) (s *Server, err error) {
	if o.Keys <= 0 {
		o.Keys = 10000
	}
	bin := o.Binary
	if bin == "" {
		if bin, err = FindBinary(); err != nil {
			return nil, err
		}
	}
	proc, err := serverdir.NewProcess("redis", "redis-server", -1, -1)
	if err != nil {
		return nil, err
	}
	dir := proc.Dir
	s = &Server{proc: proc, Socket: dir.File("redis.sock")}
	made := s // the named result is nil on error returns; tear down what was made
	defer func() {
		if err != nil {
			_ = made.Stop() // the error that brought us here is the one to report
		}
	}()
	cmd := exec.Command(bin,
		"--port", "0",
		"--unixsocket", s.Socket,
		"--unixsocketperm", "700",
		"--save", "",
		"--appendonly", "no",
		"--daemonize", "no",
		"--dir", dir.Path,
		"--logfile", "",
		"--databases", "1",
		"--maxclients", "4096",
	)
	if err := proc.Start(cmd, o.CPUs, "redis.log", 0o600); err != nil {
		return nil, err
	}

	ro := ClientOptions(s.Socket, 1)
	ro.MinIdleConns = 0 // no background dial (and its log line) before the socket exists
	c := redis.NewClient(ro)
	defer c.Close()
	ping := func(ctx context.Context) error { return c.Ping(ctx).Err() }
	if err := proc.WaitReady(ctx, 30*time.Second, time.Second, 20*time.Millisecond, ping); err != nil {
		return nil, err
	}
	info, err := c.Info(ctx, "server").Result()
	if err != nil {
		return nil, fmt.Errorf("redis INFO: %w", err)
	}
	s.Version = InfoField(info, "redis_version")
	if err := Load(ctx, c, KeyPrefix, o.Keys); err != nil {
		return nil, err
	}
	return s, nil
}

// Load sets prefix<i> = a name for i in 1..n, in pipelined batches.
func Load(ctx context.Context, c *redis.Client, prefix string, n int) error {
	for lo := 1; lo <= n; lo += 1000 {
		pipe := c.Pipeline()
		for i := lo; i < lo+1000 && i <= n; i++ {
			pipe.Set(ctx, prefix+strconv.Itoa(i), Name(i), 0)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("load keys: %w", err)
		}
	}
	return nil
}

// Name is a pronounceable name for id i (deterministic, every id distinct in practice).
func Name(i int) string {
	const cons, vow = "bdfgklmnprstvz", "aeiou"
	x := uint64(i)*0x9E3779B97F4A7C15 + 0x632BE59BD9B4E019
	n := 4 + int(x%5)
	b := make([]byte, 0, n)
	for j := 0; j < n; j++ {
		x ^= x >> 29
		x *= 0xBF58476D1CE4E5B9
		if j%2 == 0 {
			b = append(b, cons[x%uint64(len(cons))])
		} else {
			b = append(b, vow[x%uint64(len(vow))])
		}
	}
	b[0] -= 'a' - 'A'
	return string(b) + "-" + strconv.Itoa(i)
}

// InfoField extracts "key:value" from an INFO reply.
func InfoField(info, key string) string {
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), key+":"); ok {
			return v
		}
	}
	return ""
}

// Pid is redis-server's pid.
func (s *Server) Pid() int { return s.proc.Pid() }

// Dir is the server's private directory.
func (s *Server) Dir() string { return s.proc.Dir.Path }

// Exited is closed when redis-server has exited.
func (s *Server) Exited() <-chan struct{} { return s.proc.Exited() }

// Stop terminates redis-server (SIGTERM, SIGKILL after 10 s), waits for it and removes
// the directory. It is safe to call more than once.
func (s *Server) Stop() error {
	if s == nil {
		return nil
	}
	return s.proc.Stop(syscall.SIGTERM)
}
