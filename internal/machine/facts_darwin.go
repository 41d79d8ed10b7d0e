package machine

// facts_darwin.go: what macOS says about the machine, from sysctl — the
// facts Linux reads from /proc and /sys (facts_linux.go reads nothing more).
// What macOS does not have (cgroups, a governor, cpuidle, mitigations files,
// perf) stays empty, and the platform's answers (internal/host/platform)
// say why in every view that would show it.

import (
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/result"
)

func platformFacts(env *result.Environment, o Options) {
	if o.NoProbe {
		return
	}
	c := &env.CPU
	c.Model, _ = unix.Sysctl("machdep.cpu.brand_string")
	c.Vendor, _ = unix.Sysctl("machdep.cpu.vendor") // Intel Macs only
	if n, err := unix.SysctlUint32("hw.logicalcpu"); err == nil {
		c.Logical = int(n)
	}
	if phys, err := unix.SysctlUint32("hw.physicalcpu"); err == nil && phys > 0 && c.Logical > 0 {
		c.ThreadsPerCore = max(1, c.Logical/int(phys))
		c.SMTActive = c.ThreadsPerCore > 1
	}
	kinds := host.CoreKinds()
	for _, k := range []struct {
		kind host.CoreKind
		name string
	}{{host.Performance, "performance (P) cores"}, {host.Efficiency, "efficiency (E) cores"}} {
		var cpus []int
		for cpu := range c.Logical {
			if kinds[cpu] == k.kind {
				cpus = append(cpus, cpu)
			}
		}
		if len(cpus) > 0 {
			c.CoreTypes = append(c.CoreTypes, result.CoreType{Name: k.name + " (" + host.KindsByLevelNote + ")", CPUs: cpus})
		}
	}
	c.Hybrid = len(c.CoreTypes) > 1
	// The caches of the most performant level (perflevel0), or of the
	// machine where there is one level.
	for _, l := range []struct {
		level int
		typ   string
		names []string
	}{
		{1, "Data", []string{"hw.perflevel0.l1dcachesize", "hw.l1dcachesize"}},
		{1, "Instruction", []string{"hw.perflevel0.l1icachesize", "hw.l1icachesize"}},
		{2, "Unified", []string{"hw.perflevel0.l2cachesize", "hw.l2cachesize"}},
		{3, "Unified", []string{"hw.l3cachesize"}},
	} {
		for _, n := range l.names {
			if v, err := unix.SysctlUint64(n); err == nil && v > 0 {
				c.Caches = append(c.Caches, result.Cache{Level: l.level, Type: l.typ, SizeBytes: int64(v)})
				break
			}
		}
	}
	if v, err := unix.Sysctl("kern.osproductversion"); err == nil {
		env.KernelBuild = "macOS " + v + "; " + env.KernelBuild
	}
	if hz, err := unix.SysctlUint64("hw.tbfrequency"); err == nil {
		if tb, err := host.TimebaseOf(hz); err == nil {
			env.Clocksource = "mach_absolute_time, timebase " + strconv.Itoa(int(tb.Numer)) + "/" + strconv.Itoa(int(tb.Denom)) +
				" ns per tick (a " + strconv.FormatUint(hz, 10) + " Hz counter)"
		}
	}
	if v, err := unix.SysctlUint32("kern.hv_vmm_present"); err == nil && v == 1 {
		env.Virtualization.Guest = true
		env.Virtualization.Label = "virtual machine guest (kern.hv_vmm_present)"
	}
	_, why := platform.This.Gives(platform.KVM)
	env.Virtualization.KVM.Reason = why
	env.Virtualization.KVM.Backend = "none"
}
