package result

// history.go: the two intervals of a figure and the fingerprint that says
// which sittings are of one machine.
//
// A figure's precision interval (ci_low, ci_high) says where this sitting's
// median lies; it comes from the sitting's own blocks. Its reproducibility
// interval says where another sitting's median on this machine will lie: the
// precision plus the between-sitting component, which
// only repeated sittings with one fingerprint can measure (the history,
// internal/store). A figure whose machine has not learned it carries null.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxbench/ctxbench/internal/stats"
)

// Figure is a switch row's headline figure: the summary of its samples
// with the precision interval, and the reproducibility interval where the
// machine has learned how far its sittings move.
type Figure struct {
	stats.Summary
	// Reproducibility is null where the machine has not learned it (a
	// first sitting, history off, a dry run).
	Reproducibility *Reproducibility `json:"reproducibility"`
}

// Reproducibility is a figure's interval across sittings: at Confidence,
// where another sitting's median of the cell will lie, from this sitting's
// precision and the between-sitting component estimated from Sittings
// sittings with the same fingerprint (internal/stats.Reproducibility).
type Reproducibility struct {
	Low        float64 `json:"low"`
	High       float64 `json:"high"`
	Confidence float64 `json:"confidence"`
	// Sittings is how many sittings the between-sitting component was
	// estimated from (this one included).
	Sittings int `json:"sittings"`
	// BetweenCV is the between-sitting standard deviation, relative to the
	// figure.
	BetweenCV float64 `json:"between_cv"`
	// PooledFrom names the cells (name placement) whose sittings gave the
	// between-sitting component, when this cell had too few of its own.
	PooledFrom []string `json:"pooled_from,omitempty"`
	// Component is the between-sitting estimate the interval was built
	// from (log scale), this sitting included.
	Component stats.Between `json:"component"`
	// Prior is the same estimate from the sittings before this one alone
	// (null: none); compare tests a change against it, so that the change
	// is never judged by a spread its own sitting inflated, and needs no
	// history to do so.
	Prior *stats.Between `json:"prior_component"`
}

// PriorBetween is the prior component as stats uses it (its OK is not in
// the file: it holds when the estimate had its sittings); not OK without
// one.
func (r *Reproducibility) PriorBetween() stats.Between {
	if r == nil || r.Prior == nil {
		return stats.Between{}
	}
	b := *r.Prior
	b.OK = b.Sittings >= 2 && b.DF >= 1 && b.Method == stats.MethodFigures
	return b
}

// Half is the interval's half-width relative to median (the larger side).
func (r *Reproducibility) Half(median float64) float64 {
	if r == nil || median <= 0 {
		return 0
	}
	return max(r.High-median, median-r.Low) / median
}

// HostState is what the host probe says of a run (docs/methodology.md,
// "The host's state"): every block times a fixed pointer chase on its CPUs
// before and after its samples; ReferenceNS is the reading the adjusted
// figures are moved to (the lower quartile of the readings of this
// machine's recorded blocks and this run's: the host's usual, unslowed
// speed; compare moves the figures of two files to one reference), Slope how the blocks' log
// medians move with their log readings (estimated within each cell of each
// build over Sittings sittings of this machine, this one included; applied
// only where its 95% interval excludes zero). Note says why nothing was
// adjusted, when nothing was.
type HostState struct {
	ReferenceNS float64     `json:"reference_ns"`
	Slope       stats.Slope `json:"slope"`
	Sittings    int         `json:"sittings"`
	Note        string      `json:"note,omitempty"`
}

// SlowThreshold is the probe reading above the reference, relative, from
// which a block counts as run in a slow host state (the host probe's own
// scatter on a quiet host is about 1%).
const SlowThreshold = 0.05

// HostAdjusted is a row's figure with the host's state taken out: what the
// figure would have been with every block at the reference reading
// (stats.Adjusted). The row's figure stays the measured one; comparisons
// between sittings use this one where both sides have it. Slow is how much
// slower than usual the host ran the row's blocks (the median reading over
// the reference, −1), SlowBlocks how many read SlowThreshold or more above
// it; Reproducibility is the adjusted figure's, from the same machine's
// adjusted sittings.
type HostAdjusted struct {
	ProbeNS         float64          `json:"probe_ns"`
	Slow            float64          `json:"slow"`
	SlowBlocks      int              `json:"slow_blocks"`
	Median          float64          `json:"median"`
	CILow           float64          `json:"ci_low"`
	CIHigh          float64          `json:"ci_high"`
	Confidence      float64          `json:"confidence"`
	Reproducibility *Reproducibility `json:"reproducibility"`
}

// Figure is the adjusted figure as stats compares sittings.
func (h *HostAdjusted) Figure(blocks int) stats.SittingFigure {
	return stats.SittingFigure{Median: h.Median, CILow: h.CILow, CIHigh: h.CIHigh, Confidence: h.Confidence, Blocks: blocks}
}

// History says what the machine's history knew of this run and whether the
// run was recorded in it.
type History struct {
	// Fingerprint is the key of the environment this run's figures belong
	// with (FingerprintOf); runs of one fingerprint form one history.
	Fingerprint string `json:"fingerprint"`
	// Before is how many sittings of this fingerprint were recorded before
	// this one.
	Before int `json:"sittings_before"`
	// Machine is the key of the fingerprint's machine part
	// (FingerprintFields.Machine): the noise is learned from every
	// sitting of the machine, MachineBefore of them in Builds builds
	// (kernels, ctxbench builds, figure-changing settings; this run's
	// included).
	Machine       string `json:"machine,omitempty"`
	MachineBefore int    `json:"machine_sittings_before,omitempty"`
	Builds        int    `json:"builds,omitempty"`
	// Resolvable is what the history promised before the run measured:
	// the smallest change between this run and another sitting that
	// compare would resolve (median over the planned cells; 0: nothing
	// learned).
	Resolvable float64 `json:"resolvable_change,omitempty"`
	Recorded   bool    `json:"recorded"`
	// Note says why the run was not recorded or not read, in one line.
	Note string `json:"note,omitempty"`
}

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
type FingerprintFields struct {
	Host         string `json:"host"`
	CPU          string `json:"cpu"`
	Microcode    string `json:"microcode,omitempty"`
	CPUFeatures  string `json:"cpu_features,omitempty"` // arm64's Features (absent on x86-64, whose flags are not kept)
	Kernel       string `json:"kernel"`
	KernelBuild  string `json:"kernel_build"`
	Virt         string `json:"virtualization"`
	KVMBackend   string `json:"kvm_backend"`
	Governor     string `json:"governor"`
	IdleDriver   string `json:"idle_driver"`
	IdleGovernor string `json:"idle_governor"`
	Cmdline      string `json:"cmdline"`
	Mitigations  string `json:"mitigations"`
	SMT          bool   `json:"smt_active"`
	LogicalCPUs  int    `json:"logical_cpus"`
	Clocksource  string `json:"clocksource"`
	HaltPollNS   int64  `json:"kvm_halt_poll_ns"`
	Autogroup    bool   `json:"sched_autogroup"`
	CgroupDepth  int    `json:"cgroup_depth"`
	// The settings that move a wake-up's tail (the preemption model, the
	// tick, isolated and tickless CPUs, the CPU latency limit) shape the
	// machine's noise; a BPF scheduler loaded through sched_ext is what
	// one tests (the build's part).
	Preempt       string `json:"preempt,omitempty"`
	HZ            int    `json:"hz,omitempty"`
	Isolated      string `json:"isolated_cpus,omitempty"`
	NoHZFull      string `json:"nohz_full,omitempty"`
	DMALatencyUS  int64  `json:"cpu_dma_latency_us,omitempty"`
	SchedExt      string `json:"sched_ext,omitempty"`
	Version       string `json:"version"`
	Commit        string `json:"commit,omitempty"`
	Build         string `json:"build,omitempty"`
	GoVersion     string `json:"go_version"`
	CC            string `json:"cc,omitempty"`
	Cgo           bool   `json:"cgo"`
	MinTimeNS     int64  `json:"min_time_ns"`
	Iterations    uint64 `json:"iterations,omitempty"`
	SamplesPerBlk int    `json:"samples_per_block"`
	Warmup        int    `json:"warmup"`
	SpanNS        int64  `json:"span_ns"`
}

// MachineFields are the fingerprint's fields that identify the machine and
// its noise: the hardware, how it is virtualised, what sets its clock, its
// idle and scheduling behaviour and the boot settings that shape them.
// The rest — the kernel release and build, the mitigations it applies,
// the ctxbench build and the settings that change a figure — is what is
// under test (BuildFields). The machine's noise is learned across builds;
// figures are compared per build.
type MachineFields struct {
	Host         string `json:"host"`
	CPU          string `json:"cpu"`
	Microcode    string `json:"microcode,omitempty"`
	CPUFeatures  string `json:"cpu_features,omitempty"`
	Virt         string `json:"virtualization"`
	KVMBackend   string `json:"kvm_backend"`
	Governor     string `json:"governor"`
	IdleDriver   string `json:"idle_driver"`
	IdleGovernor string `json:"idle_governor"`
	Cmdline      string `json:"cmdline"`
	SMT          bool   `json:"smt_active"`
	LogicalCPUs  int    `json:"logical_cpus"`
	Clocksource  string `json:"clocksource"`
	HaltPollNS   int64  `json:"kvm_halt_poll_ns"`
	Autogroup    bool   `json:"sched_autogroup"`
	CgroupDepth  int    `json:"cgroup_depth"`
	Preempt      string `json:"preempt,omitempty"`
	HZ           int    `json:"hz,omitempty"`
	Isolated     string `json:"isolated_cpus,omitempty"`
	NoHZFull     string `json:"nohz_full,omitempty"`
	DMALatencyUS int64  `json:"cpu_dma_latency_us,omitempty"`
}

// Machine is the machine part of f: its fields, their key (16 hex digits
// of their SHA-256). The kernel command line leaves out what names the
// kernel image (BOOT_IMAGE=, initrd=), which an upgrade of the kernel under
// test changes without changing the machine.
func (f FingerprintFields) Machine() (MachineFields, string) {
	m := MachineFields{Host: f.Host, CPU: f.CPU, Microcode: f.Microcode, CPUFeatures: f.CPUFeatures, Virt: f.Virt, KVMBackend: f.KVMBackend,
		Governor: f.Governor, IdleDriver: f.IdleDriver, IdleGovernor: f.IdleGovernor, Cmdline: bootSettings(f.Cmdline),
		SMT: f.SMT, LogicalCPUs: f.LogicalCPUs, Clocksource: f.Clocksource, HaltPollNS: f.HaltPollNS,
		Autogroup: f.Autogroup, CgroupDepth: f.CgroupDepth,
		Preempt: f.Preempt, HZ: f.HZ, Isolated: f.Isolated, NoHZFull: f.NoHZFull, DMALatencyUS: f.DMALatencyUS}
	b, _ := json.Marshal(m) // strings and integers always encode
	sum := sha256.Sum256(b)
	return m, hex.EncodeToString(sum[:8])
}

// MachineKeyOf is the machine key of a fingerprint's recorded description
// (the JSON FingerprintOf returns); false when it is not one.
func MachineKeyOf(description []byte) (string, bool) {
	var f FingerprintFields
	if err := json.Unmarshal(description, &f); err != nil || f.Host == "" && f.CPU == "" {
		return "", false
	}
	_, k := f.Machine()
	return k, true
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

// CellCPUs names the CPUs a row's sides were allowed, as the history keys
// a cell by them ("1", "0+1"; "any" when unpinned).
func CellCPUs(r *Result) string {
	cpus := append(append([]int{}, r.Placed.CPUA...), r.Placed.CPUB...)
	if len(cpus) == 0 {
		return "any"
	}
	seen := map[int]bool{}
	out := ""
	for _, c := range cpus {
		if seen[c] {
			continue
		}
		seen[c] = true
		if out != "" {
			out += "+"
		}
		out += strconv.Itoa(c)
	}
	return out
}

// dmaLatency is the CPU latency limit as the fingerprint holds it: 0 where
// it could not be read.
func dmaLatency(v *int64) int64 {
	if v == nil {
		return 0
	}
	return *v
}
