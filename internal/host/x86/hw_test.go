package x86

import (
	"runtime"
	"testing"
)

func TestTSCAdvances(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("no TSC on " + runtime.GOARCH)
	}
	a := TSC()
	for i := 0; i < 1000; i++ {
		_ = i
	}
	if b := TSC(); b <= a {
		t.Fatalf("TSC did not advance: %d then %d", a, b)
	}
}

func TestCPUIDVendor(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("no CPUID on " + runtime.GOARCH)
	}
	_, b, c, d, ok := CPUID(0, 0)
	if !ok {
		t.Fatal("CPUID unavailable on amd64")
	}
	v := string([]byte{byte(b), byte(b >> 8), byte(b >> 16), byte(b >> 24), byte(d), byte(d >> 8), byte(d >> 16), byte(d >> 24), byte(c), byte(c >> 8), byte(c >> 16), byte(c >> 24)})
	if v != "AuthenticAMD" && v != "GenuineIntel" && v != "HygonGenuine" && len(v) != 12 {
		t.Fatalf("odd vendor %q", v)
	}
	t.Logf("vendor %s, hypervisor %q", v, HypervisorVendor())
}
