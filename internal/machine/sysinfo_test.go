package machine

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// fakeRoot writes a minimal /proc and /sys tree.
func fakeRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const cpuinfo = `processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 183
model name	: 13th Gen Intel(R) Core(TM) i9-13900K
stepping	: 1
microcode	: 0x123
flags		: fpu tsc rdtscp constant_tsc nonstop_tsc vmx
processor	: 1
`

func TestHybridBareMetalV2(t *testing.T) {
	root := fakeRoot(t, map[string]string{
		"proc/cpuinfo":                      cpuinfo,
		"proc/cmdline":                      "quiet",
		"proc/loadavg":                      "0.10 0.20 0.30 1/300 12345",
		"proc/self/cgroup":                  "0::/user.slice/user-1000.slice/session-2.scope\n",
		"sys/devices/cpu_core/cpus":         "0-15",
		"sys/devices/cpu_atom/cpus":         "16-31",
		"sys/devices/system/cpu/smt/active": "1",
		"sys/devices/system/cpu/online":     "0-31",
		"sys/devices/system/cpu/cpu0/topology/thread_siblings_list":       "0-1",
		"sys/devices/system/cpu/cpu0/cpufreq/scaling_governor":            "powersave",
		"sys/devices/system/cpu/cpu0/cache/index0/level":                  "1",
		"sys/devices/system/cpu/cpu0/cache/index0/type":                   "Data",
		"sys/devices/system/cpu/cpu0/cache/index0/size":                   "48K",
		"sys/devices/system/cpu/vulnerabilities/spectre_v2":               "Mitigation: Enhanced IBRS",
		"sys/devices/system/clocksource/clocksource0/current_clocksource": "tsc",
		"sys/fs/cgroup/cgroup.controllers":                                "cpuset cpu io memory pids",
		"sys/module/kvm_intel/parameters/nested":                          "Y",
		"sys/module/kvm/parameters/halt_poll_ns":                          "200000",
		"proc/sys/kernel/perf_event_paranoid":                             "2",
	})
	e := Collect(Options{Root: root, NoProbe: true})
	if e.CPU.Model != "13th Gen Intel(R) Core(TM) i9-13900K" || e.CPU.Family != 6 || e.CPU.ModelID != 183 || e.CPU.Logical != 2 {
		t.Fatalf("cpu: %+v", e.CPU)
	}
	if !e.CPU.Hybrid || len(e.CPU.CoreTypes) != 2 || len(e.CPU.CoreTypes[1].CPUs) != 16 {
		t.Fatalf("hybrid not detected: %+v", e.CPU.CoreTypes)
	}
	if !e.CPU.SMTActive || e.CPU.ThreadsPerCore != 2 || !e.CPU.TSC.Usable {
		t.Fatalf("smt/tsc: %+v", e.CPU)
	}
	if e.Virtualization.Guest || e.Virtualization.KVM.Backend != "vmx" || e.Virtualization.KVM.Nested {
		t.Fatalf("virtualization: %+v", e.Virtualization)
	}
	if e.Cgroup.Version != "v2" || e.Cgroup.CPUController != "/sys/fs/cgroup" || e.Cgroup.Depth != 3 {
		t.Fatalf("cgroup: %+v", e.Cgroup)
	}
	if e.CPU.Caches[0].SizeBytes != 48<<10 || e.Load.Procs != 300 {
		t.Fatalf("caches/load: %+v %+v", e.CPU.Caches, e.Load)
	}
	codes := map[string]bool{}
	for _, w := range e.Warnings {
		codes[w.Code] = true
		if w.Fix == "" {
			t.Errorf("warning %s has no fix", w.Code)
		}
	}
	for _, c := range []string{"governor", "hybrid", "smt"} {
		if !codes[c] {
			t.Errorf("no %s warning in %v", c, codes)
		}
	}
	if codes["virtualized"] {
		t.Error("bare metal warned as virtualized")
	}
}

func TestPVMGuestV1(t *testing.T) {
	root := fakeRoot(t, map[string]string{
		"proc/cpuinfo":                                                    "processor : 0\nmodel name : AMD EPYC\nflags : tsc hypervisor constant_tsc\n",
		"proc/cmdline":                                                    "console=ttyS0 -- --firecracker-init",
		"proc/self/cgroup":                                                "4:cpu,cpuacct:/\n0::/\n",
		"sys/fs/cgroup/cpu/cpu.shares":                                    "1024",
		"sys/fs/cgroup/unified/cgroup.controllers":                        "hugetlb",
		"sys/module/kvm_pvm/initstate":                                    "live",
		"sys/module/kvm/parameters/halt_poll_ns":                          "0",
		"sys/devices/system/cpu/cpuidle/current_driver":                   "haltpoll",
		"sys/devices/system/clocksource/clocksource0/current_clocksource": "kvm-clock",
	})
	e := Collect(Options{Root: root, NoProbe: true})
	if !e.Virtualization.Guest || e.Virtualization.Platform != "firecracker" || e.Virtualization.KVM.Backend != "pvm" {
		t.Fatalf("virtualization: %+v", e.Virtualization)
	}
	if e.Cgroup.Version != "hybrid" || e.Cgroup.CPUController != "/sys/fs/cgroup/cpu" || e.Cgroup.Own != "/" {
		t.Fatalf("cgroup: %+v", e.Cgroup)
	}
	// The TSC's flags decide on an x86-64 build; an arm64 build reads
	// CNTVCT_EL0 whatever the (host's) cpuinfo says (TestCounterRecorded).
	if e.CPU.TSC.Usable && runtime.GOARCH == "amd64" {
		t.Fatal("a TSC without nonstop_tsc and rdtscp was called usable")
	}
	codes := map[string]bool{}
	for _, w := range e.Warnings {
		codes[w.Code] = true
	}
	want := []string{"virtualized", "kvm-pvm", "haltpoll", "clocksource"}
	if runtime.GOARCH == "amd64" {
		want = append(want, "tsc") // the TSC's warning is x86-64's
	}
	for _, c := range want {
		if !codes[c] {
			t.Errorf("no %s warning in %v", c, codes)
		}
	}
	if !strings.Contains(e.Virtualization.Label, "firecracker") {
		t.Errorf("label %q", e.Virtualization.Label)
	}
}

func TestEmptyRootNeverFails(t *testing.T) {
	e := Collect(Options{Root: t.TempDir(), NoProbe: true})
	if e.Virtualization.KVM.Device || e.Virtualization.KVM.Reason == "" {
		t.Fatalf("no /dev/kvm should give a reason: %+v", e.Virtualization.KVM)
	}
	if e.Topology != nil {
		t.Errorf("topology of no CPUs: %+v", e.Topology)
	}
}

// The environment records the levels of the topology host finds, in its
// order, with their pairs: here a recorded hybrid laptop's.
func TestTopologyRecorded(t *testing.T) {
	e := Collect(Options{Root: "../host/testdata/topology/intel-hybrid", NoProbe: true})
	var got []string
	for _, l := range e.Topology {
		got = append(got, fmt.Sprintf("%s %d,%d", l.Name, l.CPUs[0], l.CPUs[1]))
		if l.Description == "" {
			t.Errorf("%s: no description", l.Name)
		}
	}
	want := []string{"smt-sibling 6,7", "same-llc 11,15", "p-to-e 7,15", "cross-cpu 0,15"}
	if !slices.Equal(got, want) {
		t.Errorf("topology %v, want %v", got, want)
	}
}

func TestParseSize(t *testing.T) {
	if ParseSize("32M") != 32<<20 || ParseSize("1024K") != 1<<20 || ParseSize("7") != 7 {
		t.Fatal("ParseSize")
	}
}

func TestSteal(t *testing.T) {
	a := CPUTimes{At: time.Unix(0, 0), User: 100, Idle: 800, Steal: 100}
	b := CPUTimes{At: time.Unix(1, 0), User: 150, Idle: 830, Steal: 120}
	s := Steal(a, b)
	if s.Percent != 20 || s.BusyPercent != 50 || s.Seconds != 1 {
		t.Fatalf("steal %+v", s)
	}
	if w := RunWarnings(s); len(w) != 1 || w[0].Code != "steal" {
		t.Fatalf("no steal warning: %+v", w)
	}
}

// A guest's topology is the one its hypervisor presents, and says so.
func TestTopologyOfAGuest(t *testing.T) {
	files := map[string]string{
		"proc/cpuinfo":                  "processor : 0\nflags : tsc hypervisor\nprocessor : 1\n",
		"sys/devices/system/cpu/online": "0-1",
	}
	for _, n := range []string{"0", "1"} {
		d := "sys/devices/system/cpu/cpu" + n + "/"
		files[d+"topology/physical_package_id"] = "0"
		files[d+"topology/core_cpus_list"] = n
		files[d+"cache/index0/level"] = "3"
		files[d+"cache/index0/type"] = "Unified"
		files[d+"cache/index0/shared_cpu_list"] = "0-1"
	}
	e := Collect(Options{Root: fakeRoot(t, files), NoProbe: true})
	if len(e.Topology) != 2 || e.Topology[0].Name != "same-llc" || e.Topology[1].Name != "cross-cpu" {
		t.Fatalf("topology %+v", e.Topology)
	}
	for _, l := range e.Topology {
		if !strings.HasSuffix(l.Description, "as the hypervisor presents it") {
			t.Errorf("%s: %q does not say it is the hypervisor's", l.Name, l.Description)
		}
	}
}
