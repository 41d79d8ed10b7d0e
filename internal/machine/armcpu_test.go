package machine

import (
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/result"
)

// arm64CPUInfo is a Graviton2's /proc/cpuinfo (two of its CPUs).
const arm64CPUInfo = `processor	: 0
BogoMIPS	: 243.75
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1

processor	: 1
BogoMIPS	: 243.75
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1
`

// An arm64 /proc/cpuinfo names its cores by implementer and part: the
// model, vendor, part and revision, the features, one kind of core; a
// big.LITTLE part list makes core types with their CPUs; a part the table
// does not know is shown by number.
func TestArm64CPUInfo(t *testing.T) {
	root := fakeRoot(t, map[string]string{"proc/cpuinfo": arm64CPUInfo, "sys/devices/system/cpu/online": "0-1"})
	c := Collect(Options{Root: root, NoProbe: true}).CPU
	if c.Model != "ARM Neoverse-N1" || c.Vendor != "ARM" || c.ModelID != 0xd0c || c.Stepping != 1 || c.Family != 8 || c.Logical != 2 {
		t.Fatalf("cpu: %+v", c)
	}
	if !slices.Contains(c.Features, "atomics") || len(c.Features) != 17 {
		t.Errorf("features: %v", c.Features)
	}
	if c.Hybrid || len(c.CoreTypes) != 0 {
		t.Errorf("one kind of core seen as %+v", c.CoreTypes)
	}

	var big strings.Builder
	for i, part := range []string{"0xd05", "0xd05", "0xd05", "0xd05", "0xd0b", "0xd0b", "0xd44", "0xabc"} {
		big.WriteString("processor\t: " + string(rune('0'+i)) + "\nFeatures\t: fp asimd\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU part\t: " + part + "\nCPU revision\t: 0\n\n")
	}
	root = fakeRoot(t, map[string]string{"proc/cpuinfo": big.String()})
	c = Collect(Options{Root: root, NoProbe: true}).CPU
	if c.Model != "ARM Cortex-A55 + ARM Cortex-A76 + ARM Cortex-X1 + ARM part 0xabc" {
		t.Errorf("model %q", c.Model)
	}
	if !c.Hybrid || len(c.CoreTypes) != 4 || !slices.Equal(c.CoreTypes[0].CPUs, []int{0, 1, 2, 3}) || !slices.Equal(c.CoreTypes[2].CPUs, []int{6}) {
		t.Errorf("core types: %+v", c.CoreTypes)
	}

	// An x86 /proc/cpuinfo is read as before: no arm64 fields.
	root = fakeRoot(t, map[string]string{"proc/cpuinfo": cpuinfo})
	c = Collect(Options{Root: root, NoProbe: true}).CPU
	if c.Features != nil || c.Vendor != "GenuineIntel" {
		t.Errorf("x86 cpuinfo read as arm64's: %+v", c)
	}
}

// The counter the environment records is this build's: the TSC from the
// CPU flags on x86-64, CNTVCT_EL0 (constant, non-stop, usable by the
// architecture) on arm64.
func TestCounterRecorded(t *testing.T) {
	root := fakeRoot(t, map[string]string{"proc/cpuinfo": cpuinfo})
	tsc := Collect(Options{Root: root, NoProbe: true}).CPU.TSC
	switch runtime.GOARCH {
	case "amd64":
		if tsc.Counter != "TSC" || !tsc.Usable || tsc.Hz != 0 {
			t.Errorf("amd64: %+v", tsc)
		}
	case "arm64":
		if tsc.Counter != "CNTVCT_EL0" || !tsc.Usable || !tsc.Constant || !tsc.Nonstop {
			t.Errorf("arm64: %+v", tsc)
		}
	}
}

// code finds a warning by code.
func code(ws []result.Warning, c string) (result.Warning, bool) {
	for _, w := range ws {
		if w.Code == c {
			return w, true
		}
	}
	return result.Warning{}, false
}

// An emulated run and a trapped counter are said; arm64's clocksource is
// the generic timer, not a reason to warn; any other still is.
func TestEmulatedTrappedAndClocksourceWarnings(t *testing.T) {
	r := host.Root(t.TempDir())
	env := result.Environment{Arch: "arm64", Clocksource: "arch_sys_counter", Perf: result.PerfInfo{Software: true, Hardware: true}}
	ws := warnings(env, r)
	for _, c := range []string{"emulated", "counter-trapped", "clocksource"} {
		if w, ok := code(ws, c); ok {
			t.Errorf("a %s warning on a native arm64 with arch_sys_counter: %q", c, w.Message)
		}
	}
	env.Virtualization.Emulated = "qemu-user"
	env.CPU.TSC = result.TSCInfo{Counter: "CNTVCT_EL0", Hz: 62.5e6, Trapped: true}
	env.Clocksource = "jiffies"
	ws = warnings(env, r)
	if w, ok := code(ws, "emulated"); !ok || !strings.Contains(w.Message, "arm64 build ran emulated by qemu-user") || !strings.Contains(w.Message, "history does not learn") {
		t.Errorf("emulated: %q", w.Message)
	}
	if w, ok := code(ws, "counter-trapped"); !ok || !strings.Contains(w.Message, "CNTVCT_EL0") {
		t.Errorf("trapped: %q", w.Message)
	}
	if _, ok := code(ws, "clocksource"); !ok {
		t.Error("no clocksource warning for jiffies")
	}
}

// The virtualization label says an emulated run, guest or not.
func TestVirtLabelSaysEmulated(t *testing.T) {
	for _, v := range []result.Virtualization{{}, {Guest: true, Detected: "kvm"}} {
		v.Emulated = "qemu-user"
		if l := VirtLabel(v); !strings.HasSuffix(l, ", an "+runtime.GOARCH+" build emulated by qemu-user") {
			t.Errorf("%+v: %q", v, l)
		}
	}
}
