package compare

// environment.go: how the inputs' environments differ: the attributes
// that change what a figure means, in words, and every other field of the
// history's fingerprint by its own name.

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
)

// buildParts names the parts of the build under test that differ between
// the inputs: the kernel, ctxbench's version or build, the mitigations,
// the settings that change a figure (by their fingerprint names).
func buildParts(in []Input) []string {
	var out []string
	for _, f := range fieldsOf(in) {
		if f.part != result.PartMachine && f.differs() {
			out = append(out, f.key)
		}
	}
	if len(out) == 0 {
		out = []string{"the machine's boot settings or fields outside the build"}
	}
	return out
}

// fieldValues is one field of the history's fingerprint across the
// inputs: its JSON key, its part, one value per input ("" where the field
// is left out: empty).
type fieldValues struct {
	key, part string
	values    []string
}

// fieldsOf is every field of the inputs' fingerprints, by key.
func fieldsOf(in []Input) []fieldValues {
	var out []fieldValues
	for i, x := range in {
		f, _, _ := result.FingerprintOf(x.Doc)
		for j, fld := range f.Fields() {
			if i == 0 {
				out = append(out, fieldValues{key: fld.Key, part: fld.Part, values: make([]string, len(in))})
			}
			out[j].values[i] = fld.Value
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].key < out[j].key })
	return out
}

// differs says some input's value is not the first's.
func (f fieldValues) differs() bool {
	for _, v := range f.values[1:] {
		if v != f.values[0] {
			return true
		}
	}
	return false
}

// attr is one environment attribute that changes what a figure means,
// in words. covers names the fields of the history's fingerprint
// (result.FingerprintFields, by JSON key) it speaks for: the fingerprint
// is the one list of what makes two runs unlike, and a field no attr
// covers is still checked, by its own name (envDiff).
type attr struct {
	key    string
	value  func(e *result.Document) string
	shown  bool // printed in the shared header when equal
	covers []string
}

var attrs = []attr{
	{"cpu", func(d *result.Document) string {
		c := d.Environment.CPU
		return fmt.Sprintf("%s (family %d model %d stepping %d), %d CPUs", c.Model, c.Family, c.ModelID, c.Stepping, c.Logical)
	}, true, []string{"cpu", "logical_cpus"}},
	{"kernel", func(d *result.Document) string { return d.Environment.Kernel }, true, []string{"kernel"}},
	{"virtualization", func(d *result.Document) string {
		v := d.Environment.Virtualization
		s := v.Label
		if v.KVM.Backend != "" && v.KVM.Backend != "none" {
			s += ", kvm backend " + v.KVM.Backend
		}
		return s
	}, true, []string{"virtualization", "kvm_backend"}},
	{"mitigations", func(d *result.Document) string { return mitigations(d.Environment.Mitigations) }, false, []string{"mitigations"}},
	{"smt", func(d *result.Document) string {
		return fmt.Sprintf("%d thread(s) per core, active %v", d.Environment.CPU.ThreadsPerCore, d.Environment.CPU.SMTActive)
	}, false, []string{"smt_active"}},
	{"cpufreq governor", func(d *result.Document) string { return orNone(d.Environment.CPU.Governor) }, false, []string{"governor"}},
	{"idle", func(d *result.Document) string {
		i := d.Environment.Idle
		return fmt.Sprintf("driver %s, governor %s", orNone(i.Driver), orNone(i.Governor))
	}, false, []string{"idle_driver", "idle_governor"}},
	{"cgroup", func(d *result.Document) string {
		g := d.Environment.Cgroup
		return fmt.Sprintf("%s, cpu controller %s, depth %d", orNone(g.Version), orNone(g.CPUController), g.Depth)
	}, false, []string{"cgroup_depth"}},
	// The settings that move a wake-up's tail (ctxbench load): the
	// preemption model, the tick, a sched_ext scheduler, isolated and
	// tickless CPUs, and the latency limit that keeps idle CPUs shallow.
	{"preemption model", func(d *result.Document) string { return orNone(d.Environment.Scheduler.Preempt) }, false, []string{"preempt"}},
	{"HZ", func(d *result.Document) string {
		if hz := d.Environment.Scheduler.HZ; hz > 0 {
			return fmt.Sprint(hz)
		}
		return "unknown"
	}, false, []string{"hz"}},
	{"sched_ext", func(d *result.Document) string { return orNone(d.Environment.Scheduler.SchedExt) }, false, []string{"sched_ext"}},
	{"isolated CPUs", func(d *result.Document) string {
		return fmt.Sprintf("isolcpus %s, nohz_full %s", orNone(d.Environment.Scheduler.Isolated), orNone(d.Environment.Scheduler.NoHZFull))
	}, false, []string{"isolated_cpus", "nohz_full"}},
	{"cpu_dma_latency", func(d *result.Document) string {
		if v := d.Environment.Idle.DMALatencyUS; v != nil {
			return fmt.Sprint(*v)
		}
		return "unknown"
	}, false, []string{"cpu_dma_latency_us"}},
	{"clocksource", func(d *result.Document) string { return d.Environment.Clocksource }, false, []string{"clocksource"}},
	{"host", func(d *result.Document) string { return d.Environment.Hostname }, false, []string{"host"}},
	{"ctxbench", func(d *result.Document) string {
		return fmt.Sprintf("%s (%s, cgo %v)", d.Tool.Version, d.Tool.GoVersion, d.Tool.Cgo)
	}, false, []string{"version", "go_version", "cgo"}},
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func mitigations(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v != "Not affected" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + m[k]
	}
	return strings.Join(parts, "; ")
}

// envDiff splits the environment attributes into shared lines and
// differences.
func envDiff(inputs []Input) (shared, diffs []string) {
	for _, a := range attrs {
		vals := make([]string, len(inputs))
		same := true
		for i, in := range inputs {
			vals[i] = a.value(in.Doc)
			if vals[i] != vals[0] {
				same = false
			}
		}
		if same {
			if a.shown && vals[0] != "" {
				shared = append(shared, a.key+": "+vals[0])
			}
			continue
		}
		if a.key == "mitigations" {
			diffs = append(diffs, mitigationDiffs(inputs)...)
			continue
		}
		var parts []string
		for i, in := range inputs {
			parts = append(parts, fmt.Sprintf("%s (%s)", quoteEmpty(vals[i]), in.Label))
		}
		diffs = append(diffs, fmt.Sprintf("%s differs: %s", a.key, strings.Join(parts, " vs ")))
	}
	return shared, append(diffs, fingerprintDiffs(inputs)...)
}

// fingerprintDiffs are the differences in the fingerprint's fields that
// no attr speaks for (microcode, kernel build and boot options, the build
// of ctxbench, the settings that change a figure), each by its own name.
func fingerprintDiffs(inputs []Input) []string {
	covered := map[string]bool{}
	for _, a := range attrs {
		for _, k := range a.covers {
			covered[k] = true
		}
	}
	var out []string
	for _, f := range fieldsOf(inputs) {
		if covered[f.key] || !f.differs() {
			continue
		}
		var parts []string
		for i, in := range inputs {
			parts = append(parts, fmt.Sprintf("%s (%s)", quoteEmpty(f.values[i]), in.Label))
		}
		out = append(out, fmt.Sprintf("%s differs: %s", strings.ReplaceAll(f.key, "_", " "), strings.Join(parts, " vs ")))
	}
	return out
}

func quoteEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func mitigationDiffs(inputs []Input) []string {
	keys := map[string]bool{}
	for _, in := range inputs {
		for k := range in.Doc.Environment.Mitigations {
			keys[k] = true
		}
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []string
	for _, k := range sorted {
		base := inputs[0].Doc.Environment.Mitigations[k]
		var parts []string
		differ := false
		for _, in := range inputs {
			v := in.Doc.Environment.Mitigations[k]
			if v != base {
				differ = true
			}
			if v == "" {
				v = "unknown"
			}
			parts = append(parts, fmt.Sprintf("%s (%s)", v, in.Label))
		}
		if differ {
			out = append(out, fmt.Sprintf("mitigation %s differs: %s", k, strings.Join(parts, " vs ")))
		}
	}
	return out
}
