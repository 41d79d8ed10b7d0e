// Package kvm says what /dev/kvm is on this machine and what the vm-rung
// figures measured there really are: which backend runs the guests
// (hardware VMX or SVM, nested, PVM, or something unknown), whether guest
// code runs on the CPU or in KVM's instruction emulator (from the
// native-execution self-check), the labels every VM figure carries, and the
// arithmetic that decomposes the figures (exit to user space = E-user -
// E-kernel; VM-to-VM hop minus a process hop; memory per VM).
//
// It is pure Go and never runs a guest: the timed loops are the C kernels in
// internal/kernels (kvm_*.c); this package interprets what they return.
// Methodology: docs/vm.md.
package kvm

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/x86"
)

// Backend is the KVM vendor module that runs guests.
type Backend string

// The backends Detect tells apart.
const (
	BackendVMX     Backend = "vmx"     // kvm_intel: Intel VT-x
	BackendSVM     Backend = "svm"     // kvm_amd: AMD-V
	BackendPVM     Backend = "pvm"     // kvm_pvm: Pagetable-based VM, no VMX/SVM needed
	BackendUnknown Backend = "unknown" // kvm is loaded but no vendor module is recognised
	BackendNone    Backend = "none"    // no KVM module
)

// Options say where to look. Tests point Root at a fake /proc and /sys tree
// and Device at a path that does not exist.
type Options struct {
	Root   string // filesystem root for /proc, /sys and /dev; "" means "/"
	Device string // the KVM device; "" means Root/dev/kvm
	// NoProbe skips what cannot be faked: CPUID and opening the device
	// (Present is still checked with stat).
	NoProbe bool
}

// Detection is what Detect found. The zero value means "nothing known".
type Detection struct {
	Device     string            `json:"device"`
	Present    bool              `json:"present"`     // the device node exists
	Usable     bool              `json:"usable"`      // opened read-write, API version 12
	Reason     string            `json:"reason"`      // why not usable; empty when usable
	APIVersion int               `json:"api_version"` // KVM_GET_API_VERSION; -1 unknown
	Backend    Backend           `json:"backend"`
	Modules    []string          `json:"modules"`              // loaded KVM modules (/sys/module)
	CPUVMX     bool              `json:"cpu_vmx"`              // /proc/cpuinfo has vmx
	CPUSVM     bool              `json:"cpu_svm"`              // /proc/cpuinfo has svm
	InsideVM   bool              `json:"inside_vm"`            // /proc/cpuinfo has hypervisor, or CPUID says so
	Hypervisor string            `json:"hypervisor,omitempty"` // the outer hypervisor's name, when known
	Platform   string            `json:"platform,omitempty"`   // e.g. "Firecracker", from the kernel's name and command line
	Nested     bool              `json:"nested"`               // a hardware backend while itself a guest
	HaltPollNS int64             `json:"halt_poll_ns"`         // module default; -1 unknown
	PVMParams  map[string]string `json:"pvm_params,omitempty"` // /sys/module/kvm_pvm/parameters
	Caps       map[string]int    `json:"caps,omitempty"`       // KVM_CHECK_EXTENSION results
	CPUModel   string            `json:"cpu_model"`
	Kernel     string            `json:"kernel"`
}

// Detect reads the machine. It never fails and never panics: what cannot be
// read is left unknown, and a missing or unusable device is a Reason.
func Detect(o Options) Detection {
	r := host.Root(o.Root)
	d := Detection{APIVersion: -1, HaltPollNS: -1, Device: o.Device}
	if d.Device == "" {
		d.Device = r.Path("dev/kvm")
	}
	flags, model := cpuinfo(r.Path("proc/cpuinfo"))
	d.CPUVMX, d.CPUSVM = flags["vmx"], flags["svm"]
	d.InsideVM = flags["hypervisor"]
	d.CPUModel = model
	d.Kernel = r.Read("proc/sys/kernel/osrelease")
	if !o.NoProbe {
		if v := x86.HypervisorVendor(); v != "" {
			d.InsideVM = true
			d.Hypervisor = x86.HypervisorName(v)
		}
	}
	if d.InsideVM && d.Hypervisor == "" && strings.Contains(r.Read("sys/devices/system/clocksource/clocksource0/available_clocksource"), "kvm-clock") {
		d.Hypervisor = "KVM"
	}
	// Firecracker guests have no DMI; their kernels and init say so.
	if d.InsideVM && (strings.Contains(d.Kernel, "-fc-") || strings.Contains(r.Read("proc/cmdline"), "firecracker")) {
		d.Platform = "Firecracker"
	}

	for _, m := range []string{"kvm", "kvm_intel", "kvm_amd", "kvm_pvm"} {
		if r.Exists("sys/module/" + m) {
			d.Modules = append(d.Modules, m)
		}
	}
	switch {
	case r.Exists("sys/module/kvm_pvm"):
		d.Backend = BackendPVM
		d.PVMParams = params(r.Path("sys/module/kvm_pvm/parameters"))
	case r.Exists("sys/module/kvm_intel"):
		d.Backend = BackendVMX
	case r.Exists("sys/module/kvm_amd"):
		d.Backend = BackendSVM
	case r.Exists("sys/module/kvm") && d.CPUVMX:
		d.Backend = BackendVMX // built into the kernel
	case r.Exists("sys/module/kvm") && d.CPUSVM:
		d.Backend = BackendSVM
	case r.Exists("sys/module/kvm"):
		d.Backend = BackendUnknown
	default:
		d.Backend = BackendNone
	}
	d.Nested = d.InsideVM && (d.Backend == BackendVMX || d.Backend == BackendSVM)
	if s := r.Read("sys/module/kvm/parameters/halt_poll_ns"); s != "" {
		if v, err := strconv.ParseInt(s, 10, 64); err == nil {
			d.HaltPollNS = v
		}
	}

	if _, err := os.Stat(d.Device); err != nil {
		d.Reason = "no KVM device at " + d.Device
		if errors.Is(err, os.ErrPermission) {
			d.Reason = "cannot see " + d.Device + ": permission denied"
		}
		return d
	}
	d.Present = true
	if o.NoProbe {
		d.Reason = "device not opened (probing disabled)"
		return d
	}
	probeDevice(&d)
	return d
}

// Available says whether the vm-rung kernels can run here, and if not, why.
func (d Detection) Available() (bool, string) {
	if d.Usable {
		return true, ""
	}
	if d.Reason != "" {
		return false, d.Reason
	}
	return false, "KVM not detected"
}

// InKernelSwitchAvailable says whether variant K of the VM-to-VM switch
// (ioeventfd + irqfd, in-kernel LAPIC) can run.
func (d Detection) InKernelSwitchAvailable() (bool, string) {
	if ok, why := d.Available(); !ok {
		return false, why
	}
	var missing []string
	for _, c := range []string{"irqchip", "irqfd", "ioeventfd"} {
		if d.Caps[c] <= 0 {
			missing = append(missing, c)
		}
	}
	if len(missing) > 0 {
		return false, "KVM lacks " + strings.Join(missing, ", ")
	}
	return true, ""
}

// cpuinfo returns the flags of the first CPU and its model name.
func cpuinfo(path string) (map[string]bool, string) {
	flags := map[string]bool{}
	model := ""
	f, err := os.Open(path)
	if err != nil {
		return flags, model
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	gotFlags := false
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		switch {
		case k == "model name" && model == "":
			model = v
		case k == "flags" && !gotFlags:
			for _, fl := range strings.Fields(v) {
				flags[fl] = true
			}
			gotFlags = true
		}
	}
	return flags, model
}

func params(dir string) map[string]string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	m := map[string]string{}
	for _, e := range ents {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil {
			m[e.Name()] = strings.TrimSpace(string(b))
		}
	}
	return m
}
