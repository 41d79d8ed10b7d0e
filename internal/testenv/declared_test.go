package testenv_test

// declared_test.go: the test command's first check. Every capability it
// declares (CTXBENCH_TEST_CAPS) is probed here the way the tests that need
// it find it, so a machine that lacks one fails at once, naming it, rather
// than running a suite whose skips would then fail one by one. Nothing is
// declared outside the test command: the test passes having checked
// nothing, which is what was asked.

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/internal/bpf"
	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/kvm"
	"github.com/ctxbench/ctxbench/internal/probe"
	"github.com/ctxbench/ctxbench/internal/testenv"
	"github.com/ctxbench/ctxbench/internal/workload/pgserver"
	"github.com/ctxbench/ctxbench/internal/workload/procs"
	"github.com/ctxbench/ctxbench/internal/workload/redisserver"
)

// missing says why this machine lacks c (declared with value), "" when it
// has it.
func missing(c testenv.Capability, value string) string {
	switch c {
	case testenv.Root:
		if os.Geteuid() != 0 {
			return "not running as root"
		}
	case testenv.CPUs2:
		if cpus, err := host.Of(0); err != nil || len(cpus) < 2 {
			return fmt.Sprintf("fewer than two CPUs allowed (%d, %v)", len(cpus), err)
		}
	case testenv.Cgo:
		if !kernels.Built {
			return "the C kernels are not compiled in (CGO_ENABLED=0 or no C compiler)"
		}
	case testenv.BTF:
		if err := bpf.Check(); err != nil {
			return err.Error()
		}
	case testenv.KVM:
		d := kvm.Detect(kvm.Options{})
		if !d.Usable {
			return "no usable /dev/kvm: " + d.Reason
		}
		if value != "" && string(d.Backend) != value {
			return fmt.Sprintf("the KVM backend is %q, declared %q", d.Backend, value)
		}
	case testenv.CgroupCPU:
		h, err := container.CPUHierarchy()
		if err != nil {
			return err.Error()
		}
		if ok, why := h.Usable(); !ok {
			return why
		}
	case testenv.UserNS:
		if ok, why := container.UserNamespacesAvailable(); !ok {
			return why
		}
	case testenv.Perf:
		if ok, why := procs.PerfUsable(); !ok {
			return why
		}
	case testenv.UtilLinux:
		for _, c := range []string{"setpriv", "taskset"} {
			if _, err := exec.LookPath(c); err != nil {
				return c + " not found"
			}
		}
	case testenv.Go:
		if _, err := exec.LookPath("go"); err != nil {
			return "the go command is not on PATH"
		}
	case testenv.AMD64, testenv.ARM64:
		if runtime.GOARCH != string(c) {
			return "the CPU is " + runtime.GOARCH
		}
	case testenv.Pinning:
		if ok, why := platform.This.Gives(platform.Pinning); !ok {
			return why
		}
	case testenv.Native:
		if name, why := host.Emulation(""); name != "" {
			return "emulated by " + name + ": " + why
		}
	case testenv.Postgres:
		if _, err := pgserver.FindBinDir(); err != nil {
			return err.Error()
		}
	case testenv.Redis:
		if _, err := redisserver.FindBinary(); err != nil {
			return err.Error()
		}
	case testenv.Chromium:
		for _, name := range []string{os.Getenv("CTXBENCH_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"} {
			if _, err := exec.LookPath(name); name != "" && err == nil {
				return ""
			}
		}
		return "no Chromium on PATH (chromium, chromium-browser, google-chrome, or $CTXBENCH_CHROMIUM)"
	default:
		lang := probe.Language(c)
		if !slices.Contains(probe.Languages, lang) {
			return "not a capability ctxbench's tests know"
		}
		// Every probe of the language runs here: its toolchain, and what a
		// probe needs beyond it (a JRE 21 for virtual threads, greenlet).
		for _, b := range probe.All() {
			if b.Language != lang {
				continue
			}
			if ok, why := b.Available(); !ok {
				return b.Name + ": " + why
			}
		}
	}
	return ""
}

// Every capability the test run declares is here.
func TestDeclaredCapabilities(t *testing.T) {
	decl := testenv.Declarations()
	known := append(testenv.All(), testenv.Short)
	for _, c := range testenv.All() {
		v, ok := decl[c]
		if !ok {
			continue
		}
		if why := missing(c, v); why != "" {
			// One line per capability, with a prefix the test command finds.
			t.Errorf("ctxbench-test: this machine lacks the declared capability %s: %s", c, why)
		}
	}
	for c := range decl {
		if !slices.Contains(known, c) || c == testenv.Short {
			t.Errorf("ctxbench-test: %s declares %q, which is no capability (%v)", testenv.EnvCaps, c, testenv.All())
		}
	}
}

// The probes above know every capability, and refuse what is none.
func TestEveryCapabilityIsProbed(t *testing.T) {
	for _, c := range testenv.All() {
		if why := missing(c, ""); why == "not a capability ctxbench's tests know" {
			t.Errorf("%s has no probe", c)
		}
	}
	if why := missing("gpu", ""); why == "" {
		t.Error("an unknown capability was found")
	}
}
