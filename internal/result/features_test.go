package result_test

import (
	"bytes"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// arm64's Features are part of the machine: two arm64 hosts that differ in
// them (a kernel or hypervisor that hides LSE atomics, say) are two
// machines. An x86-64 document records none, and its fingerprint does not
// name the field: its keys are what they were.
func TestFeaturesAreTheMachines(t *testing.T) {
	d, err := testdoc.Doc(testdoc.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	_, x86, desc := result.FingerprintOf(d)
	if bytes.Contains(desc, []byte("cpu_features")) {
		t.Errorf("an x86-64 fingerprint names the features: %s", desc)
	}
	d.Environment.CPU.Features = []string{"fp", "asimd", "atomics"}
	f1, k1, _ := result.FingerprintOf(d)
	d.Environment.CPU.Features = []string{"fp", "asimd"}
	f2, k2, _ := result.FingerprintOf(d)
	m1, m2 := f1.MachineKey(), f2.MachineKey()
	if k1 == x86 || k1 == k2 || m1 == m2 {
		t.Errorf("features do not tell machines apart: %s %s %s, machines %s %s", x86, k1, k2, m1, m2)
	}
}
