package testenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tb records what a test would have done: its failure, its skip.
type tb struct {
	testing.TB
	fatal, skip string
}

func (t *tb) Helper()                           {}
func (t *tb) Name() string                      { return "TestSomething" }
func (t *tb) Fatalf(format string, args ...any) { t.fatal = format }
func (t *tb) Errorf(format string, args ...any) { t.fatal = format }
func (t *tb) Skip(args ...any)                  { t.skip = args[0].(string) }

// A skip for a declared capability fails the test; for one not declared,
// it is a skip, recorded in the test command's file with its reason.
func TestSkipFailsWhereDeclared(t *testing.T) {
	skips := filepath.Join(t.TempDir(), "skips")
	t.Setenv(EnvSkips, skips)
	t.Setenv(EnvCaps, "root, kvm=pvm postgres")
	if !Declared(Root) || Value(KVM) != "pvm" || Declared(Redis) {
		t.Fatalf("declarations %v", Declarations())
	}
	var x tb
	Skip(&x, Postgres, "PostgreSQL missing: %s", "install it")
	if x.fatal == "" || x.skip != "" {
		t.Errorf("a declared capability's skip: fatal %q, skip %q; want a failure", x.fatal, x.skip)
	}
	x = tb{}
	Skip(&x, Redis, "redis-server missing")
	if x.fatal != "" || x.skip != "redis-server missing" {
		t.Errorf("an undeclared capability's skip: fatal %q, skip %q; want the skip", x.fatal, x.skip)
	}
	// Lacking one of several: a skip only where one of them is undeclared.
	x = tb{}
	SkipFor(&x, "needs root and postgres", Root, Postgres)
	if x.fatal == "" {
		t.Error("all declared, yet skipped")
	}
	x = tb{}
	SkipFor(&x, "needs root and a redis", Root, Redis)
	if x.fatal != "" || x.skip == "" {
		t.Errorf("redis undeclared: fatal %q, skip %q", x.fatal, x.skip)
	}
	b, err := os.ReadFile(skips)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "TestSomething (redis: redis-server missing)") || !strings.Contains(lines[1], "(redis: needs root and a redis)") {
		t.Errorf("recorded skips %q", lines)
	}
}

// Without a declaration nothing fails: a developer's plain go test skips
// as it always did.
func TestNothingDeclaredSkips(t *testing.T) {
	t.Setenv(EnvCaps, "")
	t.Setenv(EnvSkips, "")
	var x tb
	Skip(&x, BTF, "cannot trace here")
	if x.fatal != "" || x.skip == "" {
		t.Errorf("fatal %q, skip %q", x.fatal, x.skip)
	}
}
