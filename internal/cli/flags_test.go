package cli

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/workload/serverdir"
)

// Every flag of every command refuses zero, negative, malformed and
// out-of-range values with exit status 2 and one line on stderr — a value
// given is used as given or refused, never replaced by a default. Each row
// is a flag and a bad value; the accepted rows below say what a value means
// where zero or a word has a meaning.
func TestEveryFlagRefusesBadValues(t *testing.T) {
	// A CPU this process may use: an empty element beside it is the only
	// thing wrong with the list.
	allowed, err := resolveCPUs("")
	if err != nil || len(allowed) == 0 {
		t.Fatalf("no allowed CPU: %v", err)
	}
	cpu := strconv.Itoa(allowed[0])
	// Every list flag refuses an empty element (a doubled, leading or
	// trailing comma) rather than skipping it: "--tasks 2,,8" is a typo,
	// not the list 2,8. Rows of commands that would measure once their
	// flags pass end in "--lock-timeout 0s", which stops them before the
	// lock, and are checked to be refused for the list itself.
	stop := []string{"--lock-timeout", "0s"}
	stopped := func(c []string) bool { return len(c) > len(stop) && slices.Equal(c[len(c)-len(stop):], stop) }
	bad := map[string][][]string{
		// The ladder and run (the same measure flags; ring takes them too).
		"measure": {
			{"--runs", "0"}, {"--runs", "-1"}, {"--runs", "x"}, {"--runs", "100001"},
			{"--warmup", "-1"}, {"--warmup", "1001"}, {"--warmup", "1.5"},
			{"--samples-per-block", "0"}, {"--samples-per-block", "-2"}, {"--samples-per-block", "10001"},
			{"--min-time", "0s"}, {"--min-time", "-1ms"}, {"--min-time", "1ns"}, {"--min-time", "11s"}, {"--min-time", "2"},
			{"--iterations", "0"}, {"--iterations", "-5"}, {"--iterations", "1e3"}, {"--iterations", "2000000000000"},
			{"--timeout", "0s"}, {"--timeout", "-1s"}, {"--timeout", "10ms"}, {"--timeout", "forever"},
			{"--seed", "x"}, {"--seed", "1.5"},
			{"--placement", "sideways"}, {"--placement", ""},
			{"--cpus", "x"}, {"--cpus", "9999"}, {"--cpus", "-1"}, {"--cpus", "3-1"},
			{"--lock-timeout", "0s"}, {"--lock-timeout", "-1m"},
			{"--span", "-1s"}, {"--span", "25h"}, {"--span", "x"},
			{"--target-ci", "0"}, {"--target-ci", "-3"}, {"--target-ci", "100"}, {"--target-ci", "x"},
			{"--target-ci", "3", "--target-budget", "0s"}, {"--target-ci", "3", "--target-budget", "25h"}, {"--target-budget", "1m"},
			{"--export-json", "/no/such/dir/x.json"}, {"--export-csv", "/"}, {"--export-markdown", "/no/dir/x"}, {"--export-gobench", "/no/dir/x"},
			{"--quick", "--thorough"},
			{"--placement", "same-cpu,,cross-cpu"}, {"--placement", "same-cpu,"},
			append([]string{"--cpus", cpu + ",," + cpu}, stop...), append([]string{"--cpus", cpu + ","}, stop...),
			{"--color", "sometimes"}, {"--color", ""}, {"--color", "ALWAYS"}, {"--color=yes"},
		},
		"ring": {
			{"--kind", "vm"}, {"--kind", ""},
			{"--tasks", "1"}, {"--tasks", "0"}, {"--tasks", "-4"}, {"--tasks", "x"}, {"--tasks", "8-2"},
			{"--working-set", "-4KiB"}, {"--working-set", "3"}, {"--working-set", "1TiBx"}, {"--working-set", "2TiB"},
			{"--stack", "1KiB"}, {"--stack", "0"}, {"--stack", "x"},
			{"--ipc", "carrier-pigeon"}, {"--container", "nope"},
			{"--kind", "thread,,process"}, {"--kind", "thread,"},
			{"--tasks", "2,,8"}, {"--tasks", "2,"}, {"--tasks", ",2"}, {"--tasks", ""}, {"--tasks", "2, ,8"},
			{"--working-set", "0,,4KiB"}, {"--working-set", "4KiB,"}, {"--working-set", ""},
			{"--placement", "same-cpu,,cross-cpu"}, {"--placement", ",same-cpu"},
			{"--cpus", cpu + ",," + cpu}, {"--cpus", cpu + ","},
		},
		"spawn": {
			{"--runs", "0"}, {"--runs", "-3"}, {"--runs", "x"}, {"--runs", "100001"}, {"-r", "0"},
			{"--cpus", "x"}, {"--lock-timeout", "0s"}, {"--export-json", "/no/such/dir/x.json"}, {"no-such-kind"},
			{"--export-csv", "/"}, {"--export-csv", "/no/such/dir/x.csv"}, {"--export-markdown", "/no/dir/x.md"},
			{"--export-csv", "-", "--export-markdown", "-"}, {"--export-json", "-", "--export-csv", "-"},
			{"--color", "maybe"},
			append([]string{"--cpus", cpu + ",," + cpu}, stop...),
		},
		"memory": {
			{"--contexts", "goroutine=0"}, {"--contexts", "goroutine=-1"}, {"--contexts", "goroutine=1e12"}, {"--contexts", "goroutine=1.5"},
			{"--contexts", "goroutine=20000000"}, {"--contexts", "goroutine"}, {"--contexts", "nosuch=10"}, {"--contexts", "thread=5,thread=6"},
			{"--cpus", "x"}, {"--lock-timeout", "-1s"}, {"--export-json", "/no/such/dir/x.json"}, {"no-such-kind"},
			{"--contexts", "goroutine=5,,thread=6"}, {"--contexts", "goroutine=5,"},
			{"--export-csv", "/"}, {"--export-markdown", "/no/such/dir/x.md"}, {"--export-markdown", "-", "--export-json", "-"},
			append([]string{"--cpus", cpu + ",," + cpu}, stop...),
		},
		"pool": {
			{"--server", "mysql"}, {"--clients", "lib/pq"},
			{"--pool-sizes", "0"}, {"--pool-sizes", "-1"}, {"--pool-sizes", "x"}, {"--pool-sizes", "4,4"},
			{"--workers", "-1"}, {"--workers", "x"},
			{"--placement", "numa"}, {"--cpus", "x"},
			{"--duration", "0s"}, {"--duration", "1ms"}, {"--warmup-time", "-1s"}, {"--warmup-time", "x"}, {"--warmup-time", "5"},
			{"--runs", "0"}, {"--runs", "-2"}, {"--runs", "x"}, {"--runs", "100001"}, {"-r", "0"},
			{"--wait-quiet", "-1s"}, {"--seed", "-1"}, {"--seed", "x"}, {"--lock-timeout", "0s"}, {"--export-json", "/no/such/dir/x.json"},
			{"--server", "redis,"}, {"--clients", "pgxpool,,database/sql"}, {"--pool-sizes", "1,,4"}, {"--pool-sizes", "4,"},
			{"--workers", "1000,,pool"}, {"--placement", "cross-cpu,"},
			append([]string{"--cpus", cpu + ",," + cpu, "-p", "same-cpu"}, stop...),
		},
		"replicate": {{"no-such-experiment"}, {"--cpus", "x"}, {"--lock-timeout", "0s"}, {"--export-json", "/no/such/dir/x.json"},
			append([]string{"--cpus", cpu + ",," + cpu}, stop...)},
		"explain": {{"--placement", "sideways"}, {"--probes", "heavy"}, {"--export-csv", "x.csv"}, {"--runs", "0"}, {"--span", "-1s"}, {"no/such"},
			{"--cpus", cpu + ",," + cpu}, {"--cpus", "," + cpu},
			{"--capture-above", "-1us"}, {"--capture-above", "abc"}, {"--capture-above", "0"}, {"--capture-above", ""}, {"--capture-above", "2m"},
			{"--capture-above", "p100"}, {"--capture-above", "p0"}, {"--capture-above", "p49"}, {"--capture-above", "p99.999"}, {"--capture-above", "px"}},
		"load": {{"--capture-above", "-1us"}, {"--capture-above", "abc"}, {"--capture-above", "0"}, {"--capture-above", "p100"}, {"--capture-above", "p120"}},
		"aa": {{"--sittings", "1"}, {"--sittings", "101"}, {"--sittings", "x"}, {"--export-csv", "x.csv"}, {"--runs", "0"}, {"no/such"},
			append([]string{"--cpus", cpu + ",," + cpu}, stop...)},
		"report":  {{"--alpha", "0"}, {"--alpha", "1"}, {"--alpha", "x"}, {"-o", "/"}, {"-o", "/no/such/dir/r.html"}, {"-o", ""}},
		"compare": {{"--alpha", "0"}, {"--alpha", "-0.1"}, {"--fail-on-regression", "-5"}, {"--fail-on-regression", "x"}, {"--format", "xml"}},
		"list":    {{"--json=maybe"}, {"extra"}, {"--color", "auto,never"}},
		"env":     {{"--json=maybe"}, {"extra"}, {"--color", "on"}},
		"attach": {{"--pid", "x"}, {"--pid", "0"}, {"--pid", "-3"}, {"--pid", "999999999"}, {"--cgroup", "ctxbench-no-such-cgroup"},
			{"--duration", "0s", "--all"}, {"--duration", "-1s", "--all"}, {"--duration", "x", "--all"}, {"--window", "0s", "--all"},
			{"--probes", "heavy", "--all"}, {"--rate-limit", "-1", "--all"}, {"--pool", "/no/such/pools.json", "--all"},
			{"--check-rate", "0", "--check"}, {"--check-rounds", "1", "--check"}, {"--check-rate", "5000", "--all"},
			{"--export-json", "/no/such/dir/x.json", "--all"}, {"--all", "--pid", "1"}, {"--check", "--all"},
			{"--lock-timeout", "0s", "--all"}},
	}
	base := map[string][]string{
		"measure": {"run", "thread/pipe", "--dry-run"},
		"ring":    {"ring", "--dry-run", "--quick"},
		"spawn":   {"spawn", "goroutine"},
		"memory":  {"memory", "goroutine"},
		// An accepted value must fail fast, never start a sweep: the base
		// points at a Redis nothing listens on.
		"pool":      {"pool", "--server", "redis", "--redis-url", "redis://127.0.0.1:1", "--quick"},
		"replicate": {"replicate", "go-test-bench"},
		"aa":        {"aa", "--dry-run"},
		"explain":   {"explain", "thread/pipe", "--dry-run"},
		"load":      {"load", "--dry-run", "--quick"},
		"report":    {"report", "testdata-none.json", "-o", "-"},
		"compare":   {"compare", "a.json", "b.json"},
		"list":      {"list"},
		"env":       {"env"},
		"attach":    {"attach"},
	}
	for cmd, cases := range bad {
		for _, c := range cases {
			args := append(append([]string{}, base[cmd]...), c...)
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				code, _, stderr := run(t, args...)
				if code != ExitUsage {
					t.Fatalf("exit status %d, want %d (stderr %q)", code, ExitUsage, stderr)
				}
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				if len(lines) != 1 || !strings.HasPrefix(lines[0], "ctxbench: ") {
					t.Fatalf("stderr should be one 'ctxbench: ...' line, got %q", stderr)
				}
				if stopped(c) && !strings.Contains(stderr, c[0]) {
					t.Fatalf("refused for something other than %s: %q", c[0], stderr)
				}
			})
		}
	}
}

// Values whose meaning is documented are accepted: --warmup 0 (no warm-up),
// --seed 0 (the seed 0, not the clock), --workers pool (as many workers as
// connections).
func TestDocumentedValuesAreAccepted(t *testing.T) {
	for _, args := range [][]string{
		{"run", "thread/pipe", "--dry-run", "-q", "--warmup", "0"},
		{"run", "thread/pipe", "--dry-run", "-q", "--seed", "0", "--export-json", "-"},
		{"run", "thread/pipe", "--dry-run", "-q", "--iterations", "1"},
		{"run", "thread/pipe", "--dry-run", "-q", "--target-ci", "3%", "--target-budget", "10s"},
		{"run", "thread/pipe", "--dry-run", "-q", "--span", "0"},
	} {
		if code, _, stderr := run(t, args...); code != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	_, out, _ := run(t, "run", "thread/pipe", "--dry-run", "-q", "--seed", "0", "--export-json", "-")
	if !strings.Contains(out, `"seed": 0`) {
		t.Error("--seed 0 was replaced by another seed")
	}
}

// A run killed with SIGKILL cannot remove its throwaway servers'
// directories; the next command of any kind removes those whose owner is
// dead.
func TestEveryCommandSweepsStaleServerDirectories(t *testing.T) {
	d, err := serverdir.New("test", -1, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Remove()
	gone := exec.Command("true")
	if err := gone.Run(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d.File("owner"), fmt.Appendf(nil, "%d 1\n", gone.Process.Pid), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "list")
	if code != 0 {
		t.Fatalf("list: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(d.Path); !os.IsNotExist(err) {
		t.Fatalf("the stale directory %s survived a command (stderr %q)", d.Path, stderr)
	}
	if !strings.Contains(stderr, "removed 1 server directories left by killed runs") {
		t.Errorf("the sweep was silent: %q", stderr)
	}
}
