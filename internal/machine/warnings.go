package machine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/result"
)

// Warnings lists the settings of env that move or blur switch costs, each
// with a one-line fix. Informational entries (a virtual machine, say) are
// warnings too: a reader comparing figures across machines needs them.
// What env does not record (the haltpoll governor's poll limit) is read
// from this machine's sysfs.
func Warnings(env result.Environment) []result.Warning {
	return warnings(env, host.Root("/"))
}

// warnings is Warnings reading sysfs under r's root (a recorded tree in
// tests).
func warnings(env result.Environment, r host.Root) []result.Warning {
	var w []result.Warning
	add := func(code, msg, fix string) { w = append(w, result.Warning{Code: code, Message: msg, Fix: fix}) }

	if g := env.CPU.Governor; g != "" && g != "performance" {
		add("governor", fmt.Sprintf("CPU frequency governor is %q: idle CPUs clock down between hops", g),
			"sudo cpupower frequency-set -g performance")
	}
	if env.Virtualization.Guest {
		add("virtualized", "this is a virtual machine ("+env.Virtualization.Label+"): every figure includes the hypervisor's share and moves with other tenants",
			"compare only figures from one sitting on one machine; use bare metal for hardware costs")
	}
	if env.Virtualization.KVM.Backend == "pvm" {
		add("kvm-pvm", "/dev/kvm is the PVM backend (no VMX/SVM): a CPL3 guest runs natively but each exit is a trap through PVM's switcher, a CPL0 guest is emulated instruction by instruction; VM figures are not hardware VM exits",
			"run the vm rung on a host with VMX or SVM for hardware VM-exit costs")
	}
	if env.CPU.Hybrid {
		add("hybrid", "hybrid CPU: performance and efficiency cores differ by up to 2x",
			"pin with --cpus to cores of one type (see the core_types in `ctxbench env`)")
	}
	if env.CPU.SMTActive {
		add("smt", "SMT is on: a cross-cpu pair may share one physical core",
			"choose --cpus on different cores (see thread_siblings_list), or disable SMT")
	}
	if !env.CPU.TSC.Usable && env.Arch == "amd64" {
		add("tsc", "the TSC is not constant and non-stop: reference cycles are not reported",
			"nothing to do; use the nanosecond figures")
	}
	// The clocksource whose reads the vDSO serves from the counter itself:
	// the TSC on x86-64, the generic timer (arch_sys_counter) on arm64.
	if cs := env.Clocksource; cs != "" && cs != "tsc" && cs != "arch_sys_counter" {
		add("clocksource", fmt.Sprintf("clocksource is %s: each clock read may trap to the hypervisor or be slower", cs),
			"echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource (if the TSC is reliable)")
	}
	if env.Virtualization.Emulated != "" {
		add("emulated", fmt.Sprintf("this %s build ran emulated by %s: every figure is the emulator's translation of the program, not a cost of this machine or of any %s machine; the CPU facts are the host's; the machine's history does not learn from it",
			env.Arch, env.Virtualization.Emulated, env.Arch),
			"run the same build on "+env.Arch+" hardware for its figures")
	}
	if t := env.CPU.TSC; t.Trapped {
		add("counter-trapped", fmt.Sprintf("reads of %s trap to the kernel (a read cost half a system call or more, as when an erratum's workaround withholds the counter from user space; the kernel logs \"Trapping CNTVCT access\"): every sample boundary pays an exception and CLOCK_MONOTONIC_RAW becomes a system call", t.CounterName()),
			"nothing to change here: samples span long enough that the boundaries' cost is small; compare only with machines that trap too")
	}
	if !env.Perf.Software {
		add("perf-software", "perf software events are unavailable: switches are verified with getrusage only ("+env.Perf.Reason+")",
			"sudo sysctl kernel.perf_event_paranoid=1, or run as root")
	}
	if !env.Perf.Hardware {
		add("perf-hardware", "no hardware performance counters: instructions and cycles per hop are not measured",
			"run on bare metal, or give the VM a virtual PMU")
	}
	if env.Load.Runnable > 1 {
		add("load", fmt.Sprintf("%d tasks were runnable when the run started (load %.2f)", env.Load.Runnable-1, env.Load.Load1),
			"stop other work on the machine, or pin to CPUs nothing else uses")
	}
	if strings.Contains(env.Idle.Driver, "haltpoll") {
		msg := "the guest idles with cpuidle-haltpoll, but its poll limit (guest_halt_poll_ns) could not be read: an idle vCPU may poll before halting, which would hide part of the cross-CPU wake-up cost"
		switch ns, from, ok := haltPollNS(env, r); {
		case ok && ns > 0:
			msg = fmt.Sprintf("the guest idles with cpuidle-haltpoll and polling is on (guest_halt_poll_ns=%d, %s): an idle vCPU polls for up to %s before halting, which hides part of the cross-CPU wake-up cost", ns, from, pollTime(ns))
		case ok:
			msg = fmt.Sprintf("the guest idles with cpuidle-haltpoll and polling is off (guest_halt_poll_ns=0, %s): an idle vCPU halts at once, so a cross-CPU wake-up of an idle vCPU is a halt and a trip through the host (the host delivers the wake-up and re-enters the guest), and a cross-cpu figure whose waiter went idle includes that trip", from)
		}
		add("haltpoll", msg, "record it; compare cross-cpu figures only between guests with the same idle driver and guest_halt_poll_ns")
	}
	return w
}

// haltPollNS is how long the haltpoll governor lets an idle vCPU poll
// (0: it never polls) and where that was read: the module parameter in
// sysfs, which is the value in force (it can be written at run time), else
// the boot command line's haltpoll.guest_halt_poll_ns. ok is false when
// neither says.
func haltPollNS(env result.Environment, r host.Root) (ns uint64, from string, ok bool) {
	if v, err := strconv.ParseUint(r.Read("sys/module/haltpoll/parameters/guest_halt_poll_ns"), 10, 64); err == nil {
		return v, "sysfs", true
	}
	for _, f := range strings.Fields(env.Cmdline) {
		if f == "--" {
			break // what follows is init's, not the kernel's
		}
		if v, found := strings.CutPrefix(f, "haltpoll.guest_halt_poll_ns="); found {
			if n, err := strconv.ParseUint(v, 10, 64); err == nil {
				return n, "kernel command line", true
			}
		}
	}
	return 0, "", false
}

// idleHalts says, from the configuration, whether an idle CPU halts at
// once (see result.IdleInfo.Halts): idle=poll on the command line polls;
// the driver "none" runs the architecture's default idle, HLT on an x86
// CPU without MONITOR/MWAIT (with it, the kernel may idle in MWAIT, which
// a wake-up ends by a write, no IPI: so nil); haltpoll halts at once when
// its poll limit is 0; any other driver has a polling state its governor
// may choose, so nil.
func idleHalts(env result.Environment, mwait bool) *bool {
	yes, no := true, false
	for _, f := range strings.Fields(env.Cmdline) {
		if f == "--" {
			break
		}
		if f == "idle=poll" {
			return &no
		}
	}
	switch d := env.Idle.Driver; {
	case d == "none" && !mwait:
		return &yes
	case strings.Contains(d, "haltpoll") && env.Idle.HaltPollNS != nil:
		if *env.Idle.HaltPollNS == 0 {
			return &yes
		}
		return &no
	}
	return nil
}

// pollTime renders a poll limit in ns in the unit a reader thinks in.
func pollTime(ns uint64) string {
	if ns >= 1000 && ns%1000 == 0 {
		return fmt.Sprintf("%d µs", ns/1000)
	}
	return fmt.Sprintf("%d ns", ns)
}

// RunWarnings lists noise warnings about a finished run: steal time and a
// machine busy with other work.
func RunWarnings(s result.StealInfo) []result.Warning {
	var w []result.Warning
	if s.Percent >= 1 {
		w = append(w, result.Warning{Code: "steal",
			Message: fmt.Sprintf("the hypervisor stole %.1f%% of CPU time during the run: other tenants ran on our CPUs", s.Percent),
			Fix:     "re-run when the host is quieter, or on a dedicated instance; trust only same-sitting comparisons"})
	}
	return w
}
