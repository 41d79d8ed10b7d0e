package redisserver

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

func TestStartQueryStop(t *testing.T) {
	if _, err := FindBinary(); errors.Is(err, ErrMissing) {
		testenv.Skip(t, testenv.Redis, "redis-server missing; install with: %s", InstallHint)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s, err := Start(ctx, Options{Keys: 300})
	if err != nil {
		t.Fatal(err)
	}
	pid, dir := s.Pid(), s.Dir()
	defer s.Stop()
	c := redis.NewClient(ClientOptions(s.Socket, 2))
	n, err := c.DBSize(ctx).Result()
	if err != nil || n != 300 {
		t.Errorf("dbsize %d %v", n, err)
	}
	if v, err := c.Get(ctx, "name:7").Result(); err != nil || v != Name(7) {
		t.Errorf("name:7 = %q %v", v, err)
	}
	cfg, _ := c.ConfigGet(ctx, "port").Result()
	save, _ := c.ConfigGet(ctx, "save").Result()
	c.Close()
	if cfg["port"] != "0" || save["save"] != "" {
		t.Errorf("port %q save %q: want a unix-socket-only server without persistence", cfg["port"], save["save"])
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if procs.Alive(pid, 0) {
		t.Error("redis-server still alive")
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Error("directory remains")
	}
}

func TestFailedStartCleansUp(t *testing.T) {
	_, err := Start(context.Background(), Options{Binary: "/bin/false"})
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("start with /bin/false: %v", err)
	}
	if left := serverdir.Owned(); len(left) != 0 {
		t.Errorf("directories %v remain after a failed start", left)
	}
}

func TestNames(t *testing.T) {
	seen := map[string]bool{}
	for i := 1; i <= 10000; i++ {
		n := Name(i)
		if seen[n] || n[0] < 'A' || n[0] > 'Z' {
			t.Fatalf("name %d = %q (duplicate or not capitalised)", i, n)
		}
		seen[n] = true
	}
	if InfoField("# Server\r\nredis_version:7.0.15\r\nx:y\r\n", "redis_version") != "7.0.15" {
		t.Error("InfoField")
	}
}
