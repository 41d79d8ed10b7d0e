package render

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

// Ladder prints the results as the ladder: rung, benchmark, placement,
// one-way median [p10–p90], CI, TSC ticks, multiple of the goroutine baseline,
// verified switches per hop; then flags and warnings as numbered footnotes.
func Ladder(w io.Writer, d *result.Document, st Style) {
	fmt.Fprintf(w, "ctxbench — %s\n", d.Environment.HostLine())
	fmt.Fprintf(w, "one-way = per hop (one context hands the CPU to another); median [p10–p90, same unit] of the samples; ±CI = where this sitting's median lies: 95%% interval from its block medians (each block a worker process)\n")
	if d.Settings.DryRun {
		fmt.Fprintln(w, st.Paint("33", "DRY RUN: the figures below are synthetic, nothing was measured"))
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	repro := hasRepro(d.Results)
	reproHead := ""
	if repro {
		reproHead = "±REPRO\t"
	}
	fmt.Fprintf(tw, "RUNG\tBENCHMARK\tPLACEMENT\tONE-WAY [p10–p90]\t±CI\t%sTSC TICKS\t× GOROUTINE\tSWITCHES/HOP\t\n", reproHead)
	var notes []string
	noisy := 0
	note := func(s string) string {
		notes = append(notes, s)
		return fmt.Sprintf(" [%d]", len(notes))
	}
	for _, r := range d.Results {
		s := r.OneWayNS
		cyc := "—"
		if r.OneWayCycles != nil {
			cyc = units.Sig(r.OneWayCycles.Median)
		}
		ci := ciPercent(s.Median, s.CILow, s.CIHigh, s.Confidence)
		sw := switchesCell(r)
		if r.SwitchesPerHop != nil {
			if r.Verification.Verified {
				sw = st.Paint("32", sw)
			} else {
				sw = st.Paint("31", sw)
			}
		}
		marks := ""
		for _, f := range r.Flags {
			marks += note(fmt.Sprintf("%s %s: %s", r.Name, r.Placement, f.Message))
		}
		for _, wn := range r.Warnings {
			if !strings.HasPrefix(wn.Code, "noise-") { // noise is the "~"; the rest is said
				marks += note(fmt.Sprintf("%s %s: %s", r.Name, r.Placement, wn.Message))
			}
		}
		if c := r.CrossCPU; c != nil && c.Consists != "" {
			marks += note(fmt.Sprintf("%s %s: %s", r.Name, r.Placement, c.Consists))
		}
		if noiseWarned(r) {
			ci += "~"
			noisy++
		}
		name := MarkedName(r)
		rp := ""
		if repro {
			rp = reproCell(r) + "\t"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s [%s]\t%s\t%s%s\t%s\t%s%s\t\n",
			r.Rung, name, r.Placement, units.Time(s.Median), rangeIn(s.P10, s.P90, s.Median), ci, rp, cyc,
			multiple(r, baseline(d)), sw, marks)
	}
	tw.Flush()
	if ls := MarkLegends(d.Results); len(ls) > 0 {
		fmt.Fprintln(w)
		for _, l := range ls {
			fmt.Fprintln(w, l)
		}
	}
	if b := baseline(d); b != nil {
		fmt.Fprintln(w, "\n"+multipleLegend(d.Results, b, "× GOROUTINE", fmt.Sprintf("%s %s (%s)", b.Name, b.Placement, units.Time(b.MedianNS))))
	}
	for _, l := range reproLegend(d, d.Results) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintln(w, "SWITCHES/HOP: counted context switches of both sides per hop (✓ within 5% of one); — where no kernel switch is expected.")
	if noisy > 0 {
		fmt.Fprintf(w, "~: %d row(s) varied a lot (CV ≥ 10%% or p90 ≥ 2× p10; details in the JSON warnings): the median holds, the tails are noise; re-run with --thorough or quiet the machine.\n", noisy)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w)
		for i, n := range notes {
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
		fmt.Fprintf(w, "%s %s\n", st.Paint("33", "warning:"), wn.Message)
		if wn.Fix != "" {
			fmt.Fprintf(w, "         fix: %s\n", wn.Fix)
		}
	}
}

// Environment prints `ctxbench env`.
func Environment(w io.Writer, e result.Environment, st Style) {
	kv := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, v string) { fmt.Fprintf(kv, "%s\t%s\n", k, v) }
	row("host", e.Hostname)
	row("cpu", fmt.Sprintf("%s (%s family %d model %d stepping %d, microcode %s)", e.CPU.Model, e.CPU.Vendor, e.CPU.Family, e.CPU.ModelID, e.CPU.Stepping, e.CPU.Microcode))
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
	row("tsc", fmt.Sprintf("constant %v, nonstop %v, usable for cycles %v", e.CPU.TSC.Constant, e.CPU.TSC.Nonstop, e.CPU.TSC.Usable))
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
	row("cmdline", e.Cmdline)
	row("clocksource", e.Clocksource)
	row("cgroups", fmt.Sprintf("%s; cpu controller at %s; own cpu cgroup %q (depth %d); v2 controllers %v", e.Cgroup.Version, e.Cgroup.CPUController, e.Cgroup.Own, e.Cgroup.Depth, e.Cgroup.V2Controllers))
	row("scheduler", fmt.Sprintf("%s, autogroup %v", e.Scheduler.Policy, e.Scheduler.Autogroup))
	row("idle", fmt.Sprintf("driver %s, governor %s, states %v", e.Idle.Driver, e.Idle.Governor, e.Idle.States))
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
	kv.Flush()
	warningLines(w, e.Warnings, st)
}

// isExit says a row's op is a VM's exit and re-entry (the vm rung's
// reference rows), not a hop between two contexts.
func isExit(r result.Result) bool { return r.Rung == "vm" && r.Kind == "reference" }

// noiseWarned says a row carries a noise warning (the table's "~").
func noiseWarned(r result.Result) bool {
	for _, w := range r.Warnings {
		if strings.HasPrefix(w.Code, "noise-") {
			return true
		}
	}
	return false
}
