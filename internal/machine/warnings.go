package machine

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Warnings lists the settings of env that move or blur switch costs, each
// with a one-line fix. Informational entries (a virtual machine, say) are
// warnings too: a reader comparing figures across machines needs them.
func Warnings(env result.Environment) []result.Warning {
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
	if cs := env.Clocksource; cs != "" && cs != "tsc" {
		add("clocksource", fmt.Sprintf("clocksource is %s: each clock read may trap to the hypervisor or be slower", cs),
			"echo tsc > /sys/devices/system/clocksource/clocksource0/current_clocksource (if the TSC is reliable)")
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
		add("haltpoll", "the guest idles with cpuidle-haltpoll: an idle vCPU polls before halting, which hides part of the cross-CPU wake-up cost",
			"record it; compare cross-cpu figures only between guests with the same idle driver")
	}
	return w
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
