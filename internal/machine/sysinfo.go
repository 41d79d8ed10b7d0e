// Package machine is what ctxbench knows about the machine a document was
// measured on: the facts every result records (CPU, caches, virtualization
// and its KVM backend, kernel, cgroups, idle driver, perf, load, steal) with
// a one-line fix for each risky setting. It only reads; it never changes the
// system.
//
// It sits at the session's level: it knows internal/kvm (to record the KVM
// backend) and internal/result (the shape it fills), so only the session
// and the command line import it. The plumbing below the session —
// affinity, limits, the measurement lock, the perf gate, CPUID — is
// internal/host.
//
// Everything is read through a root directory (normally "/") so tests can
// point it at a fake /proc and /sys tree.
package machine

import (
	"bufio"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/host/counter"
	"github.com/ctxbench/ctxbench/internal/host/x86"
	"github.com/ctxbench/ctxbench/internal/kvm"
	"github.com/ctxbench/ctxbench/internal/result"
)

// Options control Collect.
type Options struct {
	Root string // filesystem root; "" means "/"
	// NoProbe skips what cannot be faked in tests: CPUID, uname, affinity,
	// perf_event_open, systemd-detect-virt, /dev/kvm.
	NoProbe bool
}

// Collect reads the environment. It never fails: what cannot be read is left
// empty.
func Collect(o Options) result.Environment {
	r := host.Root(o.Root)
	env := result.Environment{OS: runtime.GOOS, Arch: runtime.GOARCH}
	env.Hostname, _ = os.Hostname()
	if !o.NoProbe {
		var u unix.Utsname
		if unix.Uname(&u) == nil {
			env.Kernel = unix.ByteSliceToString(u.Release[:])
			env.KernelBuild = unix.ByteSliceToString(u.Version[:])
		}
	} else {
		env.Kernel = r.Read("proc/sys/kernel/osrelease")
		env.KernelBuild = r.Read("proc/sys/kernel/version")
	}
	env.Cmdline = r.Read("proc/cmdline")
	env.CPU = cpuInfo(r, o)
	env.Virtualization = virtualization(r, o, env.CPU, env.Cmdline, env.Kernel)
	env.Topology = topology(r, env.Virtualization.Guest)
	env.Clocksource = r.Read("sys/devices/system/clocksource/clocksource0/current_clocksource")
	env.Mitigations = mitigations(r)
	env.Cgroup = cgroupInfo(r)
	env.Scheduler = result.SchedInfo{Autogroup: r.Read("proc/sys/kernel/sched_autogroup_enabled") == "1", Policy: "SCHED_OTHER"}
	tailSettings(r, &env.Scheduler, env.Cmdline, env.Kernel, env.KernelBuild)
	env.Idle = idleInfo(r)
	env.Idle.DMALatencyUS = dmaLatency(r)
	// The poll limit is in force only under the haltpoll driver (its
	// module may be loaded while another driver, or none, idles the CPUs).
	if ns, _, ok := haltPollNS(env, r); ok && strings.Contains(env.Idle.Driver, "haltpoll") {
		env.Idle.HaltPollNS = &ns
	}
	env.Idle.Halts = idleHalts(env, cpuFlag(r, "monitor"))
	env.Perf = perfInfo(r, o)
	env.Load = loadInfo(r)
	platformFacts(&env, o)          // what the platform says besides /proc and /sys (facts_darwin.go)
	env.Warnings = warnings(env, r) // the same root the facts were read from (a recorded tree in tests)
	return env
}

func cpuInfo(r host.Root, o Options) result.CPUInfo {
	var c result.CPUInfo
	flags := map[string]bool{}
	var arm []armCore // one per processor of an arm64 /proc/cpuinfo
	if f, err := os.Open(r.Path("proc/cpuinfo")); err == nil {
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if !ok {
				continue
			}
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if k == "processor" {
				arm = append(arm, armCore{})
			} else if len(arm) > 0 && arm[len(arm)-1].set(k, v) {
				continue
			}
			switch k {
			case "processor":
				c.Logical++
			case "model name":
				c.Model = v
			case "vendor_id":
				c.Vendor = v
			case "cpu family":
				c.Family, _ = strconv.Atoi(v)
			case "model":
				c.ModelID, _ = strconv.Atoi(v)
			case "stepping":
				c.Stepping, _ = strconv.Atoi(v)
			case "microcode":
				c.Microcode = v
			case "flags":
				if len(flags) == 0 {
					for _, fl := range strings.Fields(v) {
						flags[fl] = true
					}
				}
			}
		}
		f.Close()
	}
	c.Online = r.Read("sys/devices/system/cpu/online")
	c.SMTActive = r.Read("sys/devices/system/cpu/smt/active") == "1"
	c.ThreadsPerCore = 1
	if sib := r.Read("sys/devices/system/cpu/cpu0/topology/thread_siblings_list"); sib != "" {
		c.ThreadsPerCore = len(host.ParseCPUList(sib))
	}
	// Hybrid parts expose one PMU per core type (Intel: cpu_core, cpu_atom).
	for _, t := range []struct{ dir, name string }{{"cpu_core", "performance (P) cores"}, {"cpu_atom", "efficiency (E) cores"}} {
		if l := r.Read("sys/devices/" + t.dir + "/cpus"); l != "" {
			c.CoreTypes = append(c.CoreTypes, result.CoreType{Name: t.name, CPUs: host.ParseCPUList(l)})
		}
	}
	armCPU(&c, arm)
	c.Hybrid = len(c.CoreTypes) > 1
	c.Governor = r.Read("sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
	c.TSC = counterInfo(flags, o)
	for i := 0; i < 8; i++ {
		d := "sys/devices/system/cpu/cpu0/cache/index" + strconv.Itoa(i) + "/"
		if !r.Exists(d) {
			break
		}
		lvl, _ := strconv.Atoi(r.Read(d + "level"))
		c.Caches = append(c.Caches, result.Cache{Level: lvl, Type: r.Read(d + "type"), SizeBytes: ParseSize(r.Read(d + "size")), SharedWith: r.Read(d + "shared_cpu_list")})
	}
	if !o.NoProbe {
		c.Allowed, _ = host.Of(0)
	}
	return c
}

// armCPU names an arm64 CPU from its processors' implementer and part (an
// x86 /proc/cpuinfo has none: c is left as read): the model is the cores'
// names, in CPU order ("ARM Neoverse-N1"; "ARM Cortex-A55 + ARM
// Cortex-A76"), the vendor the first implementer's, family the CPU
// architecture, model_id the part and stepping the revision of the first
// processor, the features its Features; several kinds of core are the
// core types, each with its CPUs (the processor's position in the file).
func armCPU(c *result.CPUInfo, arm []armCore) {
	if len(arm) == 0 || arm[0].implementer == 0 {
		return
	}
	first := arm[0]
	c.Vendor = first.vendor()
	c.Family, c.ModelID, c.Stepping = int(first.architecture), int(first.part), int(first.revision)
	c.Features = first.features
	var names []string
	cpus := map[string][]int{}
	for i, a := range arm {
		n := a.name()
		if _, seen := cpus[n]; !seen {
			names = append(names, n)
		}
		cpus[n] = append(cpus[n], i)
	}
	c.Model = strings.Join(names, " + ")
	if len(names) > 1 && len(c.CoreTypes) == 0 {
		for _, n := range names {
			c.CoreTypes = append(c.CoreTypes, result.CoreType{Name: n, CPUs: cpus[n]})
		}
	}
}

// counterInfo is what the environment records of the reference counter the
// timed loops read (internal/host/counter), by the architecture this
// program was built for. x86-64: the TSC, usable for reference cycles where
// the CPU flags it constant and non-stop and has rdtscp; its rate is
// measured over the run. arm64: CNTVCT_EL0, constant and non-stop by the
// architecture (the system counter runs at a fixed frequency in an
// always-on power domain), its frequency CNTFRQ_EL0's, and whether a read
// traps timed (neither in a test's recorded tree: NoProbe).
func counterInfo(flags map[string]bool, o Options) result.TSCInfo {
	t := result.TSCInfo{Counter: counter.Name()}
	if runtime.GOARCH == "arm64" {
		t.Constant, t.Nonstop, t.Usable = true, true, true
		if !o.NoProbe {
			t.Hz = float64(counter.Hz())
			t.Trapped, _, _, _ = counter.Trap()
		}
		return t
	}
	t.Constant, t.Nonstop = flags["constant_tsc"], flags["nonstop_tsc"]
	t.Usable = t.Constant && t.Nonstop && flags["rdtscp"]
	return t
}

// Topology is the levels of the CPU topology Collect records, read alone:
// for a plan made before the session reads the environment (a ring sweep's
// points at a level).
func Topology(o Options) []result.TopologyLevel {
	r := host.Root(o.Root)
	guest := strings.Contains(r.Read("proc/cpuinfo"), " hypervisor")
	if !o.NoProbe && x86.HypervisorVendor() != "" {
		guest = true
	}
	return topology(r, guest)
}

// topology is the levels of the CPU topology the online CPUs have, each
// with a pair of CPUs that realises it. A guest's is the one its
// hypervisor presents: where the vCPUs run on the host it does not say.
func topology(r host.Root, guest bool) []result.TopologyLevel {
	var out []result.TopologyLevel
	for _, l := range host.ReadTopology(r).Levels(nil) {
		d := l.Description
		if guest {
			d += "; as the hypervisor presents it"
		}
		out = append(out, result.TopologyLevel{Name: string(l.Level), CPUs: [2]int{l.A, l.B}, Description: d, At: string(l.At)})
	}
	return out
}

func virtualization(r host.Root, o Options, cpu result.CPUInfo, cmdline, kernel string) result.Virtualization {
	var v result.Virtualization
	cpuFlags := r.Read("proc/cpuinfo")
	v.Guest = strings.Contains(cpuFlags, " hypervisor")
	if !o.NoProbe {
		v.HypervisorVendor = x86.HypervisorVendor()
		if v.HypervisorVendor != "" {
			v.Guest = true
		}
		if p, err := exec.LookPath("systemd-detect-virt"); err == nil {
			out, _ := exec.Command(p).Output()
			if s := strings.TrimSpace(string(out)); s != "" && s != "none" {
				v.Detected = s
			}
		}
	}
	if strings.Contains(cmdline, "firecracker") || strings.Contains(kernel, "-fc-") {
		v.Platform = "firecracker"
	}
	v.KVM = kvmInfo(r, o)
	v.Emulated, _ = host.Emulation(r)
	v.Label = VirtLabel(v)
	return v
}

// kvmInfo is internal/kvm's detection, as the environment records it.
func kvmInfo(r host.Root, o Options) result.KVMInfo {
	d := kvm.Detect(kvm.Options{Root: string(r), NoProbe: o.NoProbe})
	k := result.KVMInfo{Device: d.Present, Usable: d.Usable, Backend: string(d.Backend), Nested: d.Nested, Reason: d.Reason}
	if d.HaltPollNS >= 0 {
		k.HaltPollNS = d.HaltPollNS
	}
	if k.Backend == string(kvm.BackendUnknown) {
		k.Backend = "unknown"
	}
	return k
}

// VirtLabel is the one-line description of the virtualization a figure was
// measured under.
func VirtLabel(v result.Virtualization) string {
	emulated := ""
	if v.Emulated != "" {
		emulated = ", an " + runtime.GOARCH + " build emulated by " + v.Emulated
	}
	if !v.Guest {
		return "bare metal (no hypervisor detected)" + emulated
	}
	parts := []string{"virtual machine guest"}
	if v.HypervisorVendor != "" {
		parts = append(parts, "hypervisor "+x86.HypervisorName(v.HypervisorVendor))
	} else if v.Detected != "" {
		parts = append(parts, "hypervisor "+v.Detected)
	}
	if v.Platform != "" {
		parts = append(parts, v.Platform)
	}
	return strings.Join(parts, ", ") + emulated
}

func mitigations(r host.Root) map[string]string {
	m := map[string]string{}
	ents, _ := os.ReadDir(r.Path("sys/devices/system/cpu/vulnerabilities"))
	for _, e := range ents {
		m[e.Name()] = r.Read("sys/devices/system/cpu/vulnerabilities/" + e.Name())
	}
	return m
}

func cgroupInfo(r host.Root) result.CgroupInfo {
	var c result.CgroupInfo
	v2 := ""
	switch {
	case r.Exists("sys/fs/cgroup/cgroup.controllers"):
		c.Version, v2 = "v2", "sys/fs/cgroup"
	case r.Exists("sys/fs/cgroup/unified/cgroup.controllers"):
		c.Version, v2 = "hybrid", "sys/fs/cgroup/unified"
	case r.Exists("sys/fs/cgroup/cpu"):
		c.Version = "v1"
	}
	if v2 != "" {
		c.V2Controllers = strings.Fields(r.Read(v2 + "/cgroup.controllers"))
		for _, ctl := range c.V2Controllers {
			if ctl == "cpu" {
				c.CPUController = "/" + v2
			}
		}
	}
	if c.CPUController == "" && r.Exists("sys/fs/cgroup/cpu/cpu.shares") {
		c.CPUController = "/sys/fs/cgroup/cpu"
	}
	// Our own cgroup in the hierarchy that holds the cpu controller.
	for _, line := range strings.Split(r.Read("proc/self/cgroup"), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		isCPU := false
		for _, ctl := range strings.Split(parts[1], ",") {
			if ctl == "cpu" {
				isCPU = true
			}
		}
		if (isCPU && c.CPUController == "/sys/fs/cgroup/cpu") || (parts[0] == "0" && c.Version == "v2") {
			c.Own = parts[2]
		}
	}
	if c.Own != "" && c.Own != "/" {
		c.Depth = strings.Count(strings.Trim(c.Own, "/"), "/") + 1
	}
	return c
}

// cpuFlag says /proc/cpuinfo lists flag for the first CPU.
func cpuFlag(r host.Root, flag string) bool {
	for _, line := range strings.Split(r.Read("proc/cpuinfo"), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "flags" {
			return slices.Contains(strings.Fields(v), flag)
		}
	}
	return false
}

func idleInfo(r host.Root) result.IdleInfo {
	i := result.IdleInfo{
		Driver:   r.Read("sys/devices/system/cpu/cpuidle/current_driver"),
		Governor: r.Read("sys/devices/system/cpu/cpuidle/current_governor"),
	}
	if i.Governor == "" {
		i.Governor = r.Read("sys/devices/system/cpu/cpuidle/current_governor_ro")
	}
	ents, _ := os.ReadDir(r.Path("sys/devices/system/cpu/cpu0/cpuidle"))
	names := []string{}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "state") {
			names = append(names, r.Read("sys/devices/system/cpu/cpu0/cpuidle/"+e.Name()+"/name"))
		}
	}
	sort.Strings(names)
	i.States = names
	return i
}

func loadInfo(r host.Root) result.LoadInfo {
	var l result.LoadInfo
	f := strings.Fields(r.Read("proc/loadavg"))
	if len(f) >= 4 {
		l.Load1, _ = strconv.ParseFloat(f[0], 64)
		l.Load5, _ = strconv.ParseFloat(f[1], 64)
		run, total, _ := strings.Cut(f[3], "/")
		l.Runnable, _ = strconv.Atoi(run)
		l.Procs, _ = strconv.Atoi(total)
	}
	return l
}

// ParseSize parses sizes as sysfs writes them ("32K", "1024K", "32M").
func ParseSize(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, _ := strconv.ParseInt(s, 10, 64)
	return n * mult
}

// CPUTimes is one reading of the aggregate "cpu" line of /proc/stat.
type CPUTimes struct {
	At                               time.Time
	User, Nice, System, Idle, IOWait uint64
	IRQ, SoftIRQ, Steal              uint64
}

// ReadCPUTimes reads /proc/stat under root.
func ReadCPUTimes(root string) CPUTimes {
	r := host.Root(root)
	t := CPUTimes{At: time.Now()}
	for _, line := range strings.Split(r.Read("proc/stat"), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "cpu" {
			continue
		}
		v := make([]uint64, 8)
		for i := range v {
			v[i], _ = strconv.ParseUint(f[i+1], 10, 64)
		}
		t.User, t.Nice, t.System, t.Idle, t.IOWait, t.IRQ, t.SoftIRQ, t.Steal = v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]
	}
	return t
}

// Steal computes the steal and busy shares between two readings.
func Steal(a, b CPUTimes) result.StealInfo {
	d := func(x, y uint64) float64 {
		if y < x {
			return 0
		}
		return float64(y - x)
	}
	busy := d(a.User, b.User) + d(a.Nice, b.Nice) + d(a.System, b.System) + d(a.IRQ, b.IRQ) + d(a.SoftIRQ, b.SoftIRQ)
	steal := d(a.Steal, b.Steal)
	total := busy + steal + d(a.Idle, b.Idle) + d(a.IOWait, b.IOWait)
	s := result.StealInfo{Seconds: b.At.Sub(a.At).Seconds()}
	if total > 0 {
		s.Percent = 100 * steal / total
		s.BusyPercent = 100 * busy / total
	}
	return s
}

// ReadLoad reads the load average and the runnable and total tasks now.
func ReadLoad() result.LoadInfo { return loadInfo(host.Root("/")) }
