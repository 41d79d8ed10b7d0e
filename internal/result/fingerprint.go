package result

// fingerprint.go: what must be equal for two sittings to belong to one
// history, split once, field by field, into the machine's part (its noise)
// and the build under test.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
)

// FingerprintFields are what must be equal for two sittings to belong to
// one history: the machine (by host name: a container or CI runner whose
// name changes every run starts a history every run) and its kernel, boot
// options and mitigations, how it is virtualized, what sets its clock, idle
// and scheduling behaviour, the build of ctxbench (commit, or a hash of the
// executable when no clean commit is recorded), and the settings that
// change a figure (not those that only change its precision, such as
// --runs). compare warns about every field of it that differs between
// two runs (internal/compare attrs and fingerprintDiffs), so a change
// tested against reproducibility never crosses one of those unsaid.
//
// Each field's part tag says whose it is. "machine": it identifies the
// machine and its noise — the hardware, how it is virtualised, what sets
// its clock, its idle and scheduling behaviour and the boot settings that
// shape them. "build": it is what is under test — the kernel release and
// build, the mitigations it applies, the ctxbench build and the settings
// that change a figure. The machine's noise is learned across builds;
// figures are compared per build. A field without a part is refused by
// the package's tests.
type FingerprintFields struct {
	Host         string `json:"host" part:"machine"`
	CPU          string `json:"cpu" part:"machine"`
	Microcode    string `json:"microcode,omitempty" part:"machine"`
	CPUFeatures  string `json:"cpu_features,omitempty" part:"machine"` // arm64's Features (absent on x86-64, whose flags are not kept)
	Kernel       string `json:"kernel" part:"build"`
	KernelBuild  string `json:"kernel_build" part:"build"`
	Virt         string `json:"virtualization" part:"machine"`
	KVMBackend   string `json:"kvm_backend" part:"machine"`
	Governor     string `json:"governor" part:"machine"`
	IdleDriver   string `json:"idle_driver" part:"machine"`
	IdleGovernor string `json:"idle_governor" part:"machine"`
	Cmdline      string `json:"cmdline" part:"machine"`
	Mitigations  string `json:"mitigations" part:"build"`
	SMT          bool   `json:"smt_active" part:"machine"`
	LogicalCPUs  int    `json:"logical_cpus" part:"machine"`
	Clocksource  string `json:"clocksource" part:"machine"`
	HaltPollNS   int64  `json:"kvm_halt_poll_ns" part:"machine"`
	Autogroup    bool   `json:"sched_autogroup" part:"machine"`
	CgroupDepth  int    `json:"cgroup_depth" part:"machine"`
	// The settings that move a wake-up's tail (the preemption model, the
	// tick, isolated and tickless CPUs, the CPU latency limit) shape the
	// machine's noise; a BPF scheduler loaded through sched_ext is what
	// one tests (the build's part).
	Preempt       string `json:"preempt,omitempty" part:"machine"`
	HZ            int    `json:"hz,omitempty" part:"machine"`
	Isolated      string `json:"isolated_cpus,omitempty" part:"machine"`
	NoHZFull      string `json:"nohz_full,omitempty" part:"machine"`
	DMALatencyUS  int64  `json:"cpu_dma_latency_us,omitempty" part:"machine"`
	SchedExt      string `json:"sched_ext,omitempty" part:"build"`
	Version       string `json:"version" part:"build"`
	Commit        string `json:"commit,omitempty" part:"build"`
	Build         string `json:"build,omitempty" part:"build"`
	GoVersion     string `json:"go_version" part:"build"`
	CC            string `json:"cc,omitempty" part:"build"`
	Cgo           bool   `json:"cgo" part:"build"`
	MinTimeNS     int64  `json:"min_time_ns" part:"build"`
	Iterations    uint64 `json:"iterations,omitempty" part:"build"`
	SamplesPerBlk int    `json:"samples_per_block" part:"build"`
	Warmup        int    `json:"warmup" part:"build"`
	SpanNS        int64  `json:"span_ns" part:"build"`
}

// The parts of a fingerprint (FingerprintFields' part tags).
const (
	PartMachine = "machine"
	PartBuild   = "build"
)

// FingerprintField is one field of a fingerprint: its JSON key, its part
// (PartMachine or PartBuild) and its value in words ("" where the JSON
// leaves the field out).
type FingerprintField struct {
	Key, Part, Value string
}

// fingerprintField is one field of FingerprintFields as the struct
// declares it.
type fingerprintField struct {
	index     int
	key, part string
	omitEmpty bool
}

// fingerprintLayout is FingerprintFields' fields, in order; machineType a
// struct of the machine's fields alone, with their JSON names, whose
// encoding is the machine key's input.
var fingerprintLayout, machineType = layoutOf(reflect.TypeFor[FingerprintFields]())

// layoutOf reads the fields of a fingerprint struct and builds the struct
// of its machine part (reflection, so that the machine's fields are named
// once, by their tags).
func layoutOf(t reflect.Type) ([]fingerprintField, reflect.Type) {
	var fields []fingerprintField
	var machine []reflect.StructField
	for i := range t.NumField() {
		sf := t.Field(i)
		name, opts, _ := strings.Cut(sf.Tag.Get("json"), ",")
		f := fingerprintField{index: i, key: name, part: sf.Tag.Get("part"), omitEmpty: opts == "omitempty"}
		fields = append(fields, f)
		if f.part == PartMachine {
			machine = append(machine, reflect.StructField{Name: sf.Name, Type: sf.Type, Tag: reflect.StructTag(`json:"` + sf.Tag.Get("json") + `"`)})
		}
	}
	return fields, reflect.StructOf(machine)
}

// Fields are f's fields in their declared order.
func (f FingerprintFields) Fields() []FingerprintField {
	v := reflect.ValueOf(f)
	out := make([]FingerprintField, len(fingerprintLayout))
	for i, l := range fingerprintLayout {
		fv := v.Field(l.index)
		val := ""
		if !l.omitEmpty || !fv.IsZero() {
			val = fmt.Sprint(fv.Interface())
		}
		out[i] = FingerprintField{Key: l.key, Part: l.part, Value: val}
	}
	return out
}

// MachineKey is the key of f's machine part: 16 hex digits of the
// SHA-256 of its fields' JSON. The kernel command line leaves out what
// names the kernel image (BOOT_IMAGE=, initrd=), which an upgrade of the
// kernel under test changes without changing the machine.
func (f FingerprintFields) MachineKey() string {
	f.Cmdline = bootSettings(f.Cmdline)
	v := reflect.ValueOf(f)
	m := reflect.New(machineType).Elem()
	j := 0
	for _, l := range fingerprintLayout {
		if l.part == PartMachine {
			m.Field(j).Set(v.Field(l.index))
			j++
		}
	}
	b, _ := json.Marshal(m.Interface()) // strings, integers and booleans always encode
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// MachineKeyOf is the machine key of a fingerprint's recorded description
// (the JSON FingerprintOf returns); false when it is not one.
func MachineKeyOf(description []byte) (string, bool) {
	var f FingerprintFields
	if err := json.Unmarshal(description, &f); err != nil || f.Host == "" && f.CPU == "" {
		return "", false
	}
	return f.MachineKey(), true
}

// bootSettings is a kernel command line without the words that name the
// kernel image and its initial ramdisk.
func bootSettings(cmdline string) string {
	var keep []string
	for _, w := range strings.Fields(cmdline) {
		if strings.HasPrefix(w, "BOOT_IMAGE=") || strings.HasPrefix(w, "initrd=") {
			continue
		}
		keep = append(keep, w)
	}
	return strings.Join(keep, " ")
}

// FingerprintOf gives the fields of a document's fingerprint, their key
// (16 hex digits of their SHA-256) and their JSON.
func FingerprintOf(d *Document) (FingerprintFields, string, []byte) {
	e := d.Environment
	f := FingerprintFields{
		Host: e.Hostname, CPU: e.CPU.Model, Microcode: e.CPU.Microcode, CPUFeatures: strings.Join(e.CPU.Features, " "), Kernel: e.Kernel, KernelBuild: e.KernelBuild,
		Virt: e.Virtualization.Label, KVMBackend: e.Virtualization.KVM.Backend, Governor: e.CPU.Governor,
		IdleDriver: e.Idle.Driver, IdleGovernor: e.Idle.Governor, Cmdline: e.Cmdline, Mitigations: mitigationsLine(e.Mitigations),
		SMT: e.CPU.SMTActive, LogicalCPUs: e.CPU.Logical, Clocksource: e.Clocksource, HaltPollNS: e.Virtualization.KVM.HaltPollNS,
		Autogroup: e.Scheduler.Autogroup, CgroupDepth: e.Cgroup.Depth,
		Preempt: e.Scheduler.Preempt, HZ: e.Scheduler.HZ, Isolated: e.Scheduler.Isolated, NoHZFull: e.Scheduler.NoHZFull, SchedExt: e.Scheduler.SchedExt,
		DMALatencyUS: dmaLatency(e.Idle.DMALatencyUS),
		Version:      d.Tool.Version, Commit: d.Tool.Commit, Build: d.Tool.Build, GoVersion: d.Tool.GoVersion, CC: d.Tool.CC, Cgo: d.Tool.Cgo,
		MinTimeNS: d.Settings.MinTimeNS, Iterations: d.Settings.Iterations, SamplesPerBlk: d.Settings.SamplesPerBlock,
		Warmup: d.Settings.Warmup, SpanNS: d.Settings.SpanNS,
	}
	b, _ := json.Marshal(f) // a struct of strings and integers always encodes
	sum := sha256.Sum256(b)
	return f, hex.EncodeToString(sum[:8]), b
}

// mitigationsLine is the mitigations in a stable order, one string.
func mitigationsLine(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s;", k, m[k])
	}
	return b.String()
}

// dmaLatency is the CPU latency limit as the fingerprint holds it: 0 where
// it could not be read.
func dmaLatency(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}
