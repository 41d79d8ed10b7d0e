//go:build linux

package bpf

import (
	"os"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/features"

	"github.com/ctxbench/ctxbench/internal/phase"
)

// Features is what this kernel offers for placing probes. Raw tracepoints
// give the boundaries the phase models use; fentry/fexit or kprobes would
// allow finer ones inside the scheduler (around pick_next_task_fair,
// put_prev_entity, set_next_entity: the per-cgroup-level work of a pick).
type Features struct {
	RawTracepoint bool `json:"raw_tracepoint"`
	// Fentry: BPF tracing programs (fentry/fexit) load.
	Fentry bool `json:"fentry"`
	// Kprobe: kprobes can be created (the perf kprobe PMU or tracefs's
	// kprobe_events; CONFIG_KPROBE_EVENTS).
	Kprobe bool `json:"kprobe"`
}

// DetectFeatures probes the running kernel (it needs the privileges Open
// needs; without them every answer is false).
func DetectFeatures() Features {
	f := Features{
		RawTracepoint: features.HaveProgramType(ebpf.RawTracepoint) == nil,
		Fentry:        features.HaveProgramType(ebpf.Tracing) == nil,
	}
	for _, p := range []string{
		"/sys/bus/event_source/devices/kprobe/type",
		"/sys/kernel/tracing/kprobe_events",
		"/sys/kernel/debug/tracing/kprobe_events",
	} {
		if _, err := os.Stat(p); err == nil {
			f.Kprobe = true
		}
	}
	return f
}

// MethodRawTracepoints is the only method implemented: every boundary is a
// raw tracepoint (attached by name, without tracefs).
const MethodRawTracepoints = phase.MethodRawTracepoints
