package replicate

// hotpotato.go: the published "hot potato" ring (SourceHotPotato): 400
// threads or 400 processes pass a message around a ring of pipes, 10,000
// rounds each, on the big and the little cores of an i9-13900K (Linux 6.1),
// in reference cycles, nanoseconds and instructions. The suite runs
// the rings as published with the ring experiment, one core type at a time,
// and HotPotato sets them beside the published figures.

import (
	"fmt"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// The published experiment's size.
const (
	HotPotatoTasks  = 400
	HotPotatoRounds = 10_000
	publishedRing   = "400 threads vs 400 processes, 10,000 rounds, pipes: a whole switch costs 3000–7000 reference cycles including the pipe read and write; " +
		"the separate address space adds 760–2300 cycles, about 30% on the big cores and 50% on the little ones, " +
		"260 ns (big) and 800 ns (little); instruction counts of threads and processes differ by only ~3%"
)

// HotPotatoSampling is how the published rounds are measured: rounds per
// sample, samples, samples per block (20 × 500 = 10,000 rounds).
func HotPotatoSampling(quick bool) (rounds uint64, runs, perBlock int) {
	if quick {
		return 50, 4, 4
	}
	return 500, 20, 10
}

// CoreGroup is a set of CPUs of one core type.
type CoreGroup struct {
	Name, Slug string
	CPUs       []int
}

// CoreGroups splits the allowed CPUs by core type on a hybrid CPU; else
// it is one group.
func CoreGroups(env result.Environment, cpus []int) []CoreGroup {
	if env.CPU.Hybrid {
		var out []CoreGroup
		for _, t := range env.CPU.CoreTypes {
			var in []int
			for _, c := range t.CPUs {
				for _, a := range cpus {
					if a == c {
						in = append(in, c)
					}
				}
			}
			if len(in) > 0 {
				slug := "big"
				if strings.Contains(strings.ToLower(t.Name), "efficien") || strings.Contains(t.Name, "(E)") {
					slug = "little"
				}
				out = append(out, CoreGroup{t.Name, slug, in})
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return []CoreGroup{{"one core type (not a hybrid CPU)", "", cpus}}
}

// HotPotatoPoint is one core type's thread and process rings, all members
// pinned to CPU.
type HotPotatoPoint struct {
	Group           CoreGroup
	CPU             int
	Thread, Process *result.Ring
}

// HotPotato is the replication: each core type's rings beside the
// published figures, with the pipe overhead the publication left in.
func HotPotato(env result.Environment, points []HotPotatoPoint, roundsMeasured float64) result.Replication {
	vals := map[string]float64{"tasks": HotPotatoTasks, "rounds_measured": roundsMeasured}
	var measured, mistakes []string
	notes := []string{
		"one hop = the token passing from one context to the next (the publication's \"context switch\"); ns and TSC reference cycles per hop are medians of samples of whole rounds",
		"TSC reference cycles tick at the TSC's fixed rate, not the core clock (the publication's reference cycles are the same unit); core cycles and instructions need hardware counters",
	}
	for _, pt := range points {
		pre := ""
		if pt.Group.Slug != "" {
			pre = pt.Group.Slug + "_"
		}
		set := func(k string, v float64) { vals[pre+k] = v }
		m, mistake, n := hotPotatoPoint(env, pt, set)
		measured, mistakes, notes = append(measured, m), append(mistakes, mistake), append(notes, n...)
	}
	if !env.CPU.Hybrid {
		notes = append(notes, "this CPU has one core type, so there is one row where the publication has two (big and little)")
	}
	return result.Replication{
		Name:      "hot-potato-ring",
		Source:    SourceHotPotato.String(),
		Published: publishedRing,
		Measured:  strings.Join(measured, "; "),
		Values:    vals,
		Mistake: "it subtracted no pipe overhead (its own TODO: lmbench measures the token passed through the pipes by one process and subtracts it), so every figure includes a pipe write and read; " +
			"it counted no context switches and does not say where the 400 contexts ran. " + strings.Join(mistakes, "; "),
		Notes: notes,
	}
}

// hotPotatoPoint sets one core type's values (set names them for its
// core type) and says what it measured, what its publication's mistake
// left in, and its notes.
func hotPotatoPoint(env result.Environment, pt HotPotatoPoint, set func(string, float64)) (measured, mistake string, notes []string) {
	g, cpu := pt.Group, pt.CPU
	t, p := pt.Thread, pt.Process
	set("cpu", float64(cpu))
	over := p.RawNS.Median - t.RawNS.Median
	rel := over / t.RawNS.Median
	set("thread_ns_per_hop", t.RawNS.Median)
	set("process_ns_per_hop", p.RawNS.Median)
	set("address_space_overhead_ns", over)
	set("address_space_overhead_pct", 100*rel)
	set("thread_pipe_overhead_ns", t.OverheadNS.Median)
	set("process_pipe_overhead_ns", p.OverheadNS.Median)
	set("thread_net_ns_per_hop", t.NetNS)
	set("process_net_ns_per_hop", p.NetNS)
	pctOfNet, netOverhead := netShare(t, p, set)
	if t.SwitchesPerHop != nil && p.SwitchesPerHop != nil {
		set("thread_switches_per_hop", *t.SwitchesPerHop)
		set("process_switches_per_hop", *p.SwitchesPerHop)
	}
	cyc := ""
	if t.RawCycles != nil && p.RawCycles != nil {
		oc := p.RawCycles.Median - t.RawCycles.Median
		set("thread_tsc_cycles_per_hop", t.RawCycles.Median)
		set("process_tsc_cycles_per_hop", p.RawCycles.Median)
		set("address_space_overhead_tsc_cycles", oc)
		cyc = fmt.Sprintf(" (%.0f vs %.0f TSC reference cycles; %+.0f cycles)", t.RawCycles.Median, p.RawCycles.Median, oc)
	}
	sig := processOverThread(t, p, set)
	hw := hardwareCounts(env, t, p, set)
	measured = fmt.Sprintf("%s, all 400 on CPU %d: threads %s, processes %s per hop%s; the address space adds %s (%+.0f%%; %s); %s",
		g.Name, cpu, units.Time(t.RawNS.Median), units.Time(p.RawNS.Median), cyc, units.SignedTime(over), 100*rel, sig, hw)
	mistake = fmt.Sprintf("%s: the one-context pipe overhead is %s (threads' block) and %s (processes' block) per hop; net of it threads cost %s and processes %s per hop, so the address space adds %s of the net switch%s",
		g.Name, units.Time(t.OverheadNS.Median), units.Time(p.OverheadNS.Median), units.SignedTime(t.NetNS), units.SignedTime(p.NetNS), pctOf(p.NetNS-t.NetNS, t.NetNS, pctOfNet), netOverhead)
	for _, r := range []*result.Ring{t, p} {
		for _, f := range r.Flags {
			notes = append(notes, fmt.Sprintf("%s ring flagged (%s): %s", r.Kind, f.Code, f.Message))
		}
	}
	if t.SwitchesPerHop != nil && p.SwitchesPerHop != nil {
		notes = append(notes, fmt.Sprintf("%s: counted %.2f (threads) and %.2f (processes) context switches per hop (getrusage of every member)", g.Name, *t.SwitchesPerHop, *p.SwitchesPerHop))
	}
	return measured, mistake, notes
}

// netShare is the share of the threads' net switch the address space
// adds, taken round by round (both rings' blocks interleaved; raw and
// overhead timed in every block) with its interval: the stored and printed
// share is that interval's median, the figure the interval belongs to; the
// ratio of the two nets is kept only where there is no interval. It sets
// the share's values and returns it with its verdict's words; nothing
// where the threads' net is not positive.
func netShare(t, p *result.Ring, set func(string, float64)) (float64, string) {
	if t.NetNS <= 0 {
		return 0, ""
	}
	series := func(r *result.Ring, v []float64) stats.Series {
		return stats.Series{Values: v, Sizes: result.BlockSizes(r.BlockInfo), Rounds: result.BlockRounds(r.BlockInfo)}
	}
	w := stats.PerRound(func(m []float64) float64 { return 100 * ((m[2] - m[3]) - (m[0] - m[1])) / (m[0] - m[1]) },
		series(t, t.Samples), series(t, t.OverheadSamples), series(p, p.Samples), series(p, p.OverheadSamples))
	share := 100 * (p.NetNS - t.NetNS) / t.NetNS
	if w.OK {
		share = w.Median
		set("address_space_overhead_pct_of_net_low", w.Lo)
		set("address_space_overhead_pct_of_net_high", w.Hi)
		set("address_space_overhead_pct_of_net_confidence", w.Confidence)
	}
	set("address_space_overhead_pct_of_net", share)
	return share, " — " + stats.Verdict(stats.Interval{What: "its share", Lo: w.Lo, Hi: w.Hi, Level: w.Confidence, Unit: stats.UnitRounds, Format: "%+.0f%%", OK: w.OK},
		stats.Words{Above: "resolved", Below: "resolved", Within: "not resolved here"})
}

// processOverThread compares the two rings' samples — their blocks were
// interleaved round by round: paired — sets the comparison's values and
// returns its verdict's words.
func processOverThread(t, p *result.Ring, set func(string, float64)) string {
	cmp := stats.PairedChange(t.Samples, result.BlockSizes(t.BlockInfo), result.BlockRounds(t.BlockInfo),
		p.Samples, result.BlockSizes(p.BlockInfo), result.BlockRounds(p.BlockInfo))
	if !cmp.OK { // blocks unknown or unmatched: the blocks as independent units
		cmp = stats.CompareBlocks(t.Samples, result.BlockSizes(t.BlockInfo), p.Samples, result.BlockSizes(p.BlockInfo), 0.05)
	}
	set("p_value", cmp.P)
	set("process_over_thread_ratio_low", cmp.Lo)
	set("process_over_thread_ratio_high", cmp.Hi)
	set("process_over_thread_ratio_confidence", cmp.Confidence)
	// With the blocks unknown the fallback compares samples: the interval
	// is shown, but verdict gives none from it.
	return stats.Verdict(stats.Interval{What: "processes/threads", Lo: cmp.Lo, Hi: cmp.Hi, Level: cmp.Confidence, Unit: cmp.Method, Null: 1, OK: cmp.OK},
		stats.Words{Above: "resolved", Below: "resolved", Within: "not resolved here"})
}

// hardwareCounts sets the instructions and core cycles per hop where the
// perf verification block counted them, and says what they show or why
// there are none.
func hardwareCounts(env result.Environment, t, p *result.Ring, set func(string, float64)) string {
	if t.InstructionsPerHop == nil || p.InstructionsPerHop == nil {
		if env.Perf.Hardware {
			return "instructions and core cycles: the perf verification block did not return them"
		}
		return "instructions and core cycles: not measured — this machine has no usable hardware performance counters (perf hardware events unsupported)"
	}
	set("thread_instructions_per_hop", *t.InstructionsPerHop)
	set("process_instructions_per_hop", *p.InstructionsPerHop)
	set("instructions_difference_pct", 100*(*p.InstructionsPerHop-*t.InstructionsPerHop) / *t.InstructionsPerHop)
	hw := fmt.Sprintf("instructions per hop %.0f (threads) vs %.0f (processes), %+.1f%%", *t.InstructionsPerHop, *p.InstructionsPerHop,
		100*(*p.InstructionsPerHop-*t.InstructionsPerHop) / *t.InstructionsPerHop)
	if t.CyclesPerHop != nil && p.CyclesPerHop != nil {
		set("thread_core_cycles_per_hop", *t.CyclesPerHop)
		set("process_core_cycles_per_hop", *p.CyclesPerHop)
		hw += fmt.Sprintf("; core cycles per hop %.0f vs %.0f", *t.CyclesPerHop, *p.CyclesPerHop)
	}
	return hw
}

// pctOf is the nets' difference x with its share pct of the threads' net
// base (none where base is not positive).
func pctOf(x, base, pct float64) string {
	if base <= 0 {
		return fmt.Sprintf("%s (the threads' net is not positive, so no share can be given)", units.SignedTime(x))
	}
	return fmt.Sprintf("%s (%+.0f%%)", units.SignedTime(x), pct)
}
