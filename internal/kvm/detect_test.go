package kvm

import (
	"path/filepath"
	"strings"
	"testing"
)

func fake(t *testing.T, tree string) Detection {
	t.Helper()
	return Detect(Options{Root: filepath.Join("testdata", tree), NoProbe: true})
}

func TestDetectBackends(t *testing.T) {
	cases := []struct {
		tree     string
		backend  Backend
		insideVM bool
		nested   bool
		present  bool
		haltPoll int64
	}{
		{"pvm", BackendPVM, true, false, true, 200000},
		{"vmx-bare", BackendVMX, false, false, true, 200000},
		{"svm-nested", BackendSVM, true, true, true, 0},
		{"unknown", BackendUnknown, false, false, true, 200000},
		{"nokvm", BackendNone, true, false, false, -1},
	}
	for _, c := range cases {
		t.Run(c.tree, func(t *testing.T) {
			d := fake(t, c.tree)
			if d.Backend != c.backend {
				t.Errorf("backend %q, want %q", d.Backend, c.backend)
			}
			if d.InsideVM != c.insideVM || d.Nested != c.nested {
				t.Errorf("inside VM %v nested %v, want %v %v", d.InsideVM, d.Nested, c.insideVM, c.nested)
			}
			if d.Present != c.present {
				t.Errorf("present %v, want %v", d.Present, c.present)
			}
			if d.HaltPollNS != c.haltPoll {
				t.Errorf("halt_poll_ns %d, want %d", d.HaltPollNS, c.haltPoll)
			}
			// Probing is off: nothing may claim the device is usable.
			if ok, why := d.Available(); ok || why == "" {
				t.Errorf("Available() = %v, %q; want false with a reason", ok, why)
			}
			if d.APIVersion != -1 {
				t.Errorf("API version %d without probing", d.APIVersion)
			}
		})
	}
}

func TestDetectPVMDetails(t *testing.T) {
	d := fake(t, "pvm")
	if d.PVMParams["pvm_native"] != "Y" || d.PVMParams["pvm_emul_batch"] != "1024" {
		t.Errorf("PVM parameters %v", d.PVMParams)
	}
	if d.CPUVMX || d.CPUSVM {
		t.Errorf("PVM tree has no vmx/svm flag, got vmx=%v svm=%v", d.CPUVMX, d.CPUSVM)
	}
	if d.CPUModel != "AMD EPYC" || d.Kernel != "6.18.44-fc-v657" {
		t.Errorf("model %q kernel %q", d.CPUModel, d.Kernel)
	}
	if d.Hypervisor != "KVM" || d.Platform != "Firecracker" {
		t.Errorf("hypervisor %q platform %q, want KVM, Firecracker", d.Hypervisor, d.Platform)
	}
	if len(d.Modules) != 2 || d.Modules[0] != "kvm" || d.Modules[1] != "kvm_pvm" {
		t.Errorf("modules %v", d.Modules)
	}
}

func TestNoDevice(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no", "kvm")
	// Probing on: the detector must still not crash, and must say why.
	d := Detect(Options{Root: filepath.Join("testdata", "pvm"), Device: missing})
	if d.Present || d.Usable {
		t.Fatalf("present %v usable %v for %s", d.Present, d.Usable, missing)
	}
	ok, why := d.Available()
	if ok || !strings.Contains(why, missing) {
		t.Errorf("Available() = %v, %q; want false naming %s", ok, why, missing)
	}
	if ok, why := d.InKernelSwitchAvailable(); ok || why == "" {
		t.Errorf("InKernelSwitchAvailable() = %v, %q", ok, why)
	}
}

func TestNotAKVMDevice(t *testing.T) {
	// /dev/null opens read-write but is no KVM device: the API-version
	// ioctl fails and the reason says so.
	d := Detect(Options{Root: filepath.Join("testdata", "pvm"), Device: "/dev/null"})
	if !d.Present || d.Usable {
		t.Fatalf("present %v usable %v, want true false", d.Present, d.Usable)
	}
	if !strings.Contains(d.Reason, "not a KVM device") {
		t.Errorf("reason %q", d.Reason)
	}
}

func TestRealMachineNeverPanics(t *testing.T) {
	d := Detect(Options{})
	ok, why := d.Available()
	if ok != d.Usable || (!ok && why == "") {
		t.Errorf("Available() = %v, %q with usable %v", ok, why, d.Usable)
	}
	if ok && d.APIVersion != 12 {
		t.Errorf("usable with API version %d", d.APIVersion)
	}
	t.Logf("backend %s, usable %v %s", d.Backend, d.Usable, d.Reason)
}
