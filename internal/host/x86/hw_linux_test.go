package x86

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/testenv"
)

func TestCPUIDVendor(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		testenv.Skip(t, testenv.AMD64, "no CPUID on %s", runtime.GOARCH)
	}
	_, b, c, d, ok := CPUID(0, 0)
	if !ok {
		t.Fatal("CPUID unavailable on amd64")
	}
	v := string([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24), byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)})
	// The kernel read the same leaf at boot: /proc/cpuinfo's vendor_id is
	// what CPUID must say here, byte for byte (a swapped register, a
	// wrong leaf or a broken assembly stub would not match it).
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Fatal(err)
	}
	var want string
	for _, line := range strings.Split(string(info), "\n") {
		if k, val, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "vendor_id" {
			want = strings.TrimSpace(val)
			break
		}
	}
	if want == "" {
		t.Fatal("/proc/cpuinfo has no vendor_id")
	}
	if v != want {
		t.Fatalf("CPUID leaf 0 says vendor %q, /proc/cpuinfo %q", v, want)
	}
	t.Logf("vendor %s, hypervisor %q", v, HypervisorVendor())
}
