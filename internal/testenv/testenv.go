// Package testenv is how a test says what it needs of the machine, and how
// a test run says what the machine gives, so that no test passes by
// skipping on a machine that should have run it.
//
// The test command (scripts/test.sh) declares the capabilities of the kind
// of machine it runs on in CTXBENCH_TEST_CAPS (root, btf, kvm=pvm,
// postgres, ...; see Capability), checks each is really there before any
// test runs (this package's TestDeclaredCapabilities), and names a file in
// CTXBENCH_TEST_SKIPS. A test that lacks something calls Skip with the
// capability it lacks: where the run declared that capability the test
// fails instead, saying so; elsewhere it is skipped, and the skip is
// appended to the file, which the test command sums up in its last line.
// Outside the test command nothing is declared: a test skips as it always
// did. No test skips any other way: TestSkipsGoThroughTestenv reads every
// test file of the module.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Capability is something of the machine a test may need.
type Capability string

// The capabilities. A declaration names each, optionally with a value
// (kvm=pvm: a usable /dev/kvm whose backend is PVM).
const (
	Root      Capability = "root"       // running as root (namespaces, cgroups, mounts, BPF)
	CPUs2     Capability = "cpus2"      // at least two CPUs this process may use
	Cgo       Capability = "cgo"        // the C kernels compiled in (CGO_ENABLED, a C compiler)
	BTF       Capability = "btf"        // BPF tracing: the bpf() syscall, the kernel's BTF, raw tracepoints (with root)
	KVM       Capability = "kvm"        // a usable /dev/kvm; its value is the backend (pvm, vmx, svm)
	CgroupCPU Capability = "cgroup-cpu" // a cpu cgroup controller (v1 or v2) root can use
	UserNS    Capability = "userns"     // user namespaces (the full container preset)
	Perf      Capability = "perf"       // perf events, software ones at least
	UtilLinux Capability = "util-linux" // setpriv and taskset
	Go        Capability = "go"         // the go command on PATH
	AMD64     Capability = "amd64"      // an x86-64 CPU (TSC, CPUID)
	ARM64     Capability = "arm64"      // an arm64 CPU (CNTVCT_EL0 at CNTFRQ_EL0's rate)
	Native    Capability = "native"     // running on its own architecture, not under a user-mode emulator (qemu-user)
	Pinning   Capability = "pinning"    // threads run on the CPUs asked for (Linux; macOS cannot pin)
	Postgres  Capability = "postgres"   // PostgreSQL's server binaries
	Redis     Capability = "redis"      // redis-server
	Chromium  Capability = "chromium"   // a Chromium to load the HTML report in
	Erlang    Capability = "erlang"     // the runtime probes' toolchains, one each
	Rust      Capability = "rust"
	Java      Capability = "java"
	Node      Capability = "node"
	Python    Capability = "python"
	Cpp       Capability = "cpp"
	// Short is no capability: `go test -short` asked for the quick tests
	// only. Never declared; the test command does not pass -short.
	Short Capability = "short"
)

// All lists every capability a declaration may name, Short aside.
func All() []Capability {
	return []Capability{Root, CPUs2, Cgo, BTF, KVM, CgroupCPU, UserNS, Perf, UtilLinux, Go, AMD64, ARM64, Native, Pinning,
		Postgres, Redis, Chromium, Erlang, Rust, Java, Node, Python, Cpp}
}

// The environment the test command sets.
const (
	EnvCaps  = "CTXBENCH_TEST_CAPS"  // the declared capabilities, separated by spaces or commas
	EnvSkips = "CTXBENCH_TEST_SKIPS" // a file every skip appends one line to
)

// Declarations is what CTXBENCH_TEST_CAPS declares: capability → value
// ("" where none is given).
func Declarations() map[Capability]string {
	out := map[Capability]string{}
	for _, f := range strings.FieldsFunc(os.Getenv(EnvCaps), func(r rune) bool { return r == ' ' || r == ',' || r == '\n' || r == '\t' }) {
		name, value, _ := strings.Cut(f, "=")
		out[Capability(name)] = value
	}
	return out
}

// Declared says whether the test run declared c.
func Declared(c Capability) bool {
	_, ok := Declarations()[c]
	return ok
}

// Value is the value c was declared with ("" without one, or undeclared).
func Value(c Capability) string { return Declarations()[c] }

// Skip skips t, which cannot run without c, saying why; where the test run
// declared c, it fails t instead: the machine claims to give c, so the
// test must run.
func Skip(t testing.TB, c Capability, format string, args ...any) {
	t.Helper()
	SkipFor(t, fmt.Sprintf(format, args...), c)
}

// SkipFor skips t, which lacks what one of caps gives, saying why. It
// fails t instead when every one of caps is declared (what the test lacks
// should have been there); where one is not, the skip is that one's.
func SkipFor(t testing.TB, why string, caps ...Capability) {
	t.Helper()
	var missing []Capability
	for _, c := range caps {
		if !Declared(c) {
			missing = append(missing, c)
		}
	}
	if len(caps) > 0 && len(missing) == 0 {
		t.Fatalf("declared capability %s, yet this test would skip: %s", join(caps), why)
		return
	}
	record(t, join(missing), why)
	t.Skip(why)
}

// SkipShort skips t under -short, saying why: the quick tests only were
// asked for.
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		record(t, string(Short), why)
		t.Skip(why)
	}
}

func join(caps []Capability) string {
	s := make([]string, len(caps))
	for i, c := range caps {
		s[i] = string(c)
	}
	slices.Sort(s)
	return strings.Join(s, "+")
}

// record appends the skip to the test command's file of skips, one line:
// package, test, capability, why.
func record(t testing.TB, capability, why string) {
	path := os.Getenv(EnvSkips)
	if path == "" {
		return
	}
	pkg := strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
	line := fmt.Sprintf("%s %s (%s: %s)\n", pkg, t.Name(), capability, strings.Join(strings.Fields(why), " "))
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("recording a skip in %s: %v", path, err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil { // one write: O_APPEND keeps concurrent lines whole
		t.Errorf("recording a skip in %s: %v", path, err)
	}
}
