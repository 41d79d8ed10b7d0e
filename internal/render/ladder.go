package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Ladder prints the results as the ladder: rung, benchmark, placement,
// one-way median, p10–p90, the precision interval (and the reproducibility
// interval where the machine has learned it), TSC ticks, the multiple of
// the baseline, verified switches per hop; then the legend of every mark
// and column shown, and flags and warnings as numbered footnotes. It fits
// st's width (Table): what does not fit is named under the table.
func Ladder(w io.Writer, d *result.Document, st Style) {
	stated := StatedLevel(PrecisionLevels(d.Results)...)
	fmt.Fprintf(w, "ctxbench — %s\n", d.Environment.HostLine())
	fmt.Fprintf(w, "one-way = per hop (one context hands the CPU to another): the median of the samples, p10–p90 in the same unit; ±CI = where this sitting's median lies: %s interval from its block medians (each block a worker process)\n", LevelText(stated))
	if d.Settings.DryRun {
		fmt.Fprintln(w, st.Paint("33", "DRY RUN: the figures below are synthetic, nothing was measured"))
	}
	fmt.Fprintln(w)
	ms := MarkSet{}
	lt := ladderTable(d, st, stated, ms)
	lt.t.Write(w, st)
	ms.Only(lt.t.Printed())
	fmt.Fprintln(w)
	ladderLegend(w, d, lt.noisy)
	ms.Write(w)
	if len(lt.notes) > 0 {
		fmt.Fprintln(w)
		for i, n := range lt.notes {
			fmt.Fprintf(w, "[%d] %s\n", i+1, n)
		}
	}
	if lines := VMLines(d); len(lines) > 0 {
		fmt.Fprintln(w)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
	}
	whereTheTimeGoes(w, d)
	Warnings(w, d, st)
}

// ladderRows is the ladder's table with what its rows referred to: the
// numbered notes, and how many rows are noisy.
type ladderRows struct {
	t     *Table
	notes []string
	noisy int
}

// ladderTable is the ladder's table: a row per result, each cell with its
// marks noted in ms, and each row's flags and warnings as numbered notes
// after its switches.
func ladderTable(d *result.Document, st Style, stated float64, ms MarkSet) ladderRows {
	b := Baseline(d)
	mstated := MultipleLevel(d.Results)
	repro := hasRepro(d.Results)
	cols := []Col{{Head: "RUNG", Fold: 1}, {Head: "BENCHMARK", Wrap: true, Min: 20, NarrowAt: 99}, {Head: "PLACEMENT"},
		{Head: "ONE-WAY", Right: true}, {Head: "p10–p90", Right: true, Fold: 3}, {Head: "±CI"}}
	if repro {
		cols = append(cols, Col{Head: "±REPRO", Fold: 4})
	}
	cols = append(cols, Col{Head: TicksName(d.Environment.CPU.TSC) + " TICKS", Right: true, Fold: 2}, Col{Head: baselineHead(b), Fold: 5},
		Col{Head: "SWITCHES/HOP", Wrap: true, NarrowAt: 5}) // its notes wrap before × leaves
	lt := ladderRows{t: NewTable(cols...)}
	for _, r := range d.Results {
		s := r.OneWayNS
		cyc := "—"
		if r.OneWayCycles != nil {
			cyc = units.Sig(r.OneWayCycles.Median)
		}
		ci := ciText(s.Median, s.CILow, s.CIHigh, s.Confidence, stated)
		if strings.Contains(ci, "@") {
			ms.Use(MarkLevel)
		}
		sw := SwitchesCell(r, ms)
		if r.SwitchesPerHop != nil {
			if r.Verification.Verified {
				sw = st.Paint("32", sw)
			} else {
				sw = st.Paint("31", sw)
			}
		}
		if NoiseWarned(r) {
			ci += ms.Use(MarkNoisy)
			lt.noisy++
		}
		cells := []string{r.Rung, ms.Name(r), r.Placement, units.Time(s.Median), RangeIn(s.P10, s.P90, s.Median), ci}
		if repro {
			cells = append(cells, reproCell(r, ms))
		}
		cells = append(cells, cyc, Multiple(r, b, mstated, ms), sw+lt.refs(r))
		lt.t.Row(cells...)
	}
	return lt
}

// refs numbers a row's flags, warnings (but noise, which is its ~), what
// its cross-CPU hop consists of and what the host did to it as notes, and
// returns their references (" [3] [4]").
func (lt *ladderRows) refs(r result.Result) string {
	refs := ""
	note := func(s string) {
		lt.notes = append(lt.notes, fmt.Sprintf("%s %s: %s", r.Name, r.Placement, s))
		refs += fmt.Sprintf(" [%d]", len(lt.notes))
	}
	for _, f := range r.Flags {
		note(f.Message)
	}
	for _, wn := range r.Warnings {
		if !strings.HasPrefix(wn.Code, "noise-") { // noise is the "~"; the rest is said
			note(wn.Message)
		}
	}
	if c := r.CrossCPU; c != nil && c.Consists != "" {
		note(c.Consists)
	}
	if h := hostNote(r); h != "" {
		note(h)
	}
	return refs
}

// ladderLegend explains the ladder's columns: the multiple, the
// reproducibility interval (or why there is none), the switches, the
// host's state and the noisy rows.
func ladderLegend(w io.Writer, d *result.Document, noisy int) {
	if b := Baseline(d); b != nil {
		fmt.Fprintln(w, MultipleLegend(d.Results, b, baselineHead(b), fmt.Sprintf("%s %s (%s)", b.Name, b.Placement, units.Time(b.MedianNS))))
	}
	for _, l := range ReproLegend(d, d.Results) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "SWITCHES/HOP: counted context switches of both sides per hop; — where no kernel switch is expected.")
	if l := counterLegend(d.Environment.CPU.TSC); l != "" {
		fmt.Fprintln(w, l)
	}
	if l := hostLine(d); l != "" {
		fmt.Fprintln(w, l)
	}
	if noisy > 0 {
		fmt.Fprintf(w, "%d row(s) are noisy (~).\n", noisy)
	}
}

// hostNote is what a row's footnote says of the host's state: how much
// slower than usual the host ran its blocks and the figure with that taken
// out, where the host ran the row's blocks slow at their median reading;
// "" otherwise.
func hostNote(r result.Result) string {
	h := r.HostAdjusted
	if h == nil || h.Slow < result.SlowThreshold {
		return "" // a block or two the host slowed move no median: the JSON has them
	}
	return fmt.Sprintf("the host ran %s slower than usual in %d of %d blocks (the host probe); with that taken out the figure is %s [%s, %s] at %s (this sitting) — what compare uses",
		units.Percent(100*h.Slow, 0), h.SlowBlocks, len(r.BlockInfo), units.Time(h.Median), units.Time(h.CILow), units.Time(h.CIHigh), LevelText(h.Confidence))
}

// hostLine says what the host probe found over the run: how much of the
// host's slowness reaches the figures, or why nothing was adjusted.
func hostLine(d *result.Document) string {
	h := d.HostState
	if h == nil {
		return ""
	}
	if h.Slope.Applied == 0 {
		return "host state: " + h.Note
	}
	return fmt.Sprintf("host state: every block timed a fixed pointer chase (the host probe; usual reading %s); the host's slowness reaches these figures as its power %s [%s, %s] (learned from %d sittings of this machine); rows the host slowed say so in a footnote",
		units.Time(h.ReferenceNS), units.Fixed(h.Slope.Beta, 2), units.Fixed(h.Slope.Lo, 2), units.Fixed(h.Slope.Hi, 2), h.Sittings)
}

// PrecisionLevels are the levels of the rows' precision intervals.
func PrecisionLevels(rs []result.Result) []float64 {
	cs := make([]float64, 0, len(rs))
	for _, r := range rs {
		cs = append(cs, r.OneWayNS.Confidence)
	}
	return cs
}

// whereTheTimeGoes is a short block under the ladder for rows that
// ctxbench explain split: each row's three largest kernel phases.
func whereTheTimeGoes(w io.Writer, d *result.Document) {
	first := true
	for _, r := range d.Results {
		e := r.Explain
		if e == nil || len(e.Phases) == 0 {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nwhere the time goes (ctxbench explain: kernel phases per hop, the three largest):")
			first = false
		}
		ps := slices.Clone(e.Phases)
		slices.SortStableFunc(ps, func(a, b result.ExplainPhase) int { return cmp.Compare(b.NsPerHop, a.NsPerHop) })
		var parts []string
		for _, p := range ps[:min(3, len(ps))] {
			parts = append(parts, fmt.Sprintf("%s %s", units.Time(p.NsPerHop), p.Name))
		}
		fmt.Fprintf(w, "  %s %s (traced hop %s, phases close at %s): %s\n", r.Name, r.Placement, units.Time(e.TracedMeanNS), units.Percent(100*e.Closure, 0), strings.Join(parts, "; "))
	}
}

// Warnings prints the document's warnings, each with its fix.
func Warnings(w io.Writer, d *result.Document, st Style) { warningLines(w, d.Warnings, st) }

// warningLines prints warnings, each with its fix.
func warningLines(w io.Writer, ws []result.Warning, st Style) {
	if len(ws) == 0 {
		return
	}
	fmt.Fprintln(w)
	for _, wn := range ws {
		prose(w, st, "%s %s\n", st.Paint("33", "warning:"), wn.Message)
		if wn.Fix != "" {
			prose(w, st, "         fix: %s\n", wn.Fix)
		}
	}
}

// Environment prints `ctxbench env`.
func Environment(w io.Writer, e result.Environment, st Style) {
	kv := NewTable(Col{}, Col{Wrap: true, Min: 30})
	row := func(k, v string) { kv.Row(k, v) }
	row("host", e.Hostname)
	if len(e.CPU.Features) > 0 { // arm64's cpuinfo: implementer and part, no family or microcode
		row("cpu", fmt.Sprintf("%s (implementer %s, architecture %d, part %#x, revision %d)", e.CPU.Model, e.CPU.Vendor, e.CPU.Family, e.CPU.ModelID, e.CPU.Stepping))
		row("features", strings.Join(e.CPU.Features, " "))
	} else {
		row("cpu", fmt.Sprintf("%s (%s family %d model %d stepping %d, microcode %s)", e.CPU.Model, e.CPU.Vendor, e.CPU.Family, e.CPU.ModelID, e.CPU.Stepping, e.CPU.Microcode))
	}
	row("cpus", fmt.Sprintf("%d logical, online %s, allowed %v, %d thread(s) per core, SMT active: %v", e.CPU.Logical, e.CPU.Online, e.CPU.Allowed, e.CPU.ThreadsPerCore, e.CPU.SMTActive))
	if e.CPU.Hybrid {
		for _, t := range e.CPU.CoreTypes {
			row("core type", fmt.Sprintf("%s: %v", t.Name, t.CPUs))
		}
	} else {
		row("core types", "one (not hybrid)")
	}
	gov := e.CPU.Governor
	if gov == "" {
		gov = "none (no cpufreq: the hypervisor or firmware controls frequency)"
	}
	row("governor", gov)
	if e.CPU.TSC.CounterName() == "TSC" {
		row("tsc", fmt.Sprintf("constant %v, nonstop %v, usable for cycles %v", e.CPU.TSC.Constant, e.CPU.TSC.Nonstop, e.CPU.TSC.Usable))
	} else {
		row("counter", counterRow(e.CPU.TSC))
	}
	var caches []string
	for _, c := range e.CPU.Caches {
		caches = append(caches, fmt.Sprintf("L%d %s %s", c.Level, strings.ToLower(c.Type), units.Bytes(float64(c.SizeBytes))))
	}
	row("caches", strings.Join(caches, ", "))
	row("virtualization", e.Virtualization.Label)
	if e.Virtualization.Detected != "" {
		row("", "systemd-detect-virt: "+e.Virtualization.Detected)
	}
	k := e.Virtualization.KVM
	kvm := fmt.Sprintf("backend %s, /dev/kvm present %v, usable %v, halt_poll_ns %d", k.Backend, k.Device, k.Usable, k.HaltPollNS)
	if k.Nested {
		kvm += ", nested"
	}
	if k.Reason != "" {
		kvm += " (" + k.Reason + ")"
	}
	row("kvm", kvm)
	row("kernel", e.Kernel+" "+e.KernelBuild)
	row("cmdline", shorten(e.Cmdline, st.Columns()-len("virtualization")-gap, "the whole line: ctxbench env --format json"))
	row("clocksource", e.Clocksource)
	row("cgroups", fmt.Sprintf("%s; cpu controller at %s; own cpu cgroup %q (depth %d); v2 controllers %v", e.Cgroup.Version, e.Cgroup.CPUController, e.Cgroup.Own, e.Cgroup.Depth, e.Cgroup.V2Controllers))
	row("scheduler", fmt.Sprintf("%s, autogroup %v", e.Scheduler.Policy, e.Scheduler.Autogroup))
	row("preemption", shorten(TailSettings(e), st.Columns()-len("virtualization")-gap, "the whole of it: ctxbench env --format json"))
	idle := fmt.Sprintf("driver %s, governor %s, states %v", e.Idle.Driver, e.Idle.Governor, e.Idle.States)
	if d := e.Idle.DMALatencyUS; d != nil {
		idle += ", cpu_dma_latency " + DMALatency(*d)
	}
	row("idle", idle)
	perf := fmt.Sprintf("software events %v, hardware events %v, perf_event_paranoid %d", e.Perf.Software, e.Perf.Hardware, e.Perf.Paranoid)
	if e.Perf.Reason != "" {
		perf += " (" + e.Perf.Reason + ")"
	}
	row("perf", perf)
	row("load", fmt.Sprintf("%s %s, %d runnable of %d", units.Fixed(e.Load.Load1, 2), units.Fixed(e.Load.Load5, 2), e.Load.Runnable, e.Load.Procs))
	for _, m := range Mitigations(e) {
		row("mitigation", m)
	}
	for i, l := range e.Topology { // one row per level of the CPU topology, nearest first
		k := ""
		if i == 0 {
			k = "topology"
		}
		row(k, fmt.Sprintf("%-13s CPUs %d,%d: %s", l.Name, l.CPUs[0], l.CPUs[1], l.Description))
	}
	kv.Write(w, st)
	warningLines(w, e.Warnings, st)
}

// isExit says a row's op is a VM's exit and re-entry (the vm rung's
// reference rows), not a hop between two contexts.
func isExit(r result.Result) bool { return r.Rung == "vm" && r.Kind == "reference" }

// NoiseWarned says a row carries a noise warning (the table's "~").
func NoiseWarned(r result.Result) bool {
	for _, w := range r.Warnings {
		if strings.HasPrefix(w.Code, "noise-") {
			return true
		}
	}
	return false
}

// shorten keeps a long value to one line of n columns: its start, then how
// much was left out and where the whole of it is.
func shorten(v string, n int, where string) string {
	if Width(v) <= n {
		return v
	}
	tail := fmt.Sprintf(" … (%d more characters; %s)", Width(v), where)
	keep := max(n-Width(tail), 10)
	r := []rune(v)
	if keep >= len(r) {
		return v
	}
	return string(r[:keep]) + fmt.Sprintf(" … (%d more characters; %s)", len(r)-keep, where)
}

// TailSettings is the settings that move a wake-up's tail, in one line:
// the preemption model and where it was read, HZ, sched_ext, isolated and
// tickless CPUs.
func TailSettings(e result.Environment) string {
	s := e.Scheduler
	if s.Preempt == "" && s.PreemptSource == "" && s.HZ == 0 && s.SchedExt == "" {
		return "not recorded"
	}
	model := s.Preempt
	if model == "" {
		model = "unknown"
	}
	out := "model " + model
	if s.PreemptSource != "" {
		out += " (" + s.PreemptSource + ")"
	}
	if s.HZ > 0 {
		out += fmt.Sprintf(", HZ %d", s.HZ)
	}
	switch s.SchedExt {
	case "":
		out += ", no sched_ext"
	default:
		out += ", sched_ext " + s.SchedExt
	}
	if s.Isolated != "" {
		out += ", isolated CPUs " + s.Isolated
	}
	if s.NoHZFull != "" {
		out += ", nohz_full " + s.NoHZFull
	}
	return out
}

// DMALatency is a cpu_dma_latency limit: "none" for the kernel's default.
func DMALatency(us int64) string {
	if us >= 2000000000 {
		return "none"
	}
	return units.Time(float64(us) * 1e3)
}
