package ring

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/bench"
	"github.com/ctxbench/ctxbench/internal/export"
	"github.com/ctxbench/ctxbench/internal/replicate"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/runner"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// The published hot-potato experiment (seeds/003): a ring of 400 threads
// or 400 processes passing a message through pipes, 10,000 rounds each, on
// the big and the little cores of an i9-13900K (Linux 6.1), in reference
// cycles, nanoseconds and instructions.
const (
	seedRing      = "seeds/003: hot-potato ring, 400 threads vs 400 processes, 10,000 rounds each, i9-13900K big and little cores, Linux 6.1"
	publishedRing = "400 threads vs 400 processes, 10,000 rounds, pipes: a whole switch costs 3000–7000 reference cycles including the pipe read and write; " +
		"the separate address space adds 760–2300 cycles, about 30% on the big cores and 50% on the little ones, " +
		"260 ns (big) and 800 ns (little); instruction counts of threads and processes differ by only ~3%"
	// PublishedTasks and PublishedRounds are the experiment's size.
	PublishedTasks  = 400
	PublishedRounds = 10_000
)

func init() {
	replicate.Register(replicate.Experiment{Name: "hot-potato-ring", Source: seedRing, Order: 50,
		Summary: "400-context pipe ring, threads vs processes, 10,000 rounds each, per core type", Run: Published})
}

// coreGroup is a set of CPUs of one core type.
type coreGroup struct {
	name, slug string
	cpus       []int
}

// coreGroups splits the allowed CPUs by core type on a hybrid CPU; else
// it is one group.
func coreGroups(env result.Environment, cpus []int) []coreGroup {
	if env.CPU.Hybrid {
		var out []coreGroup
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
				out = append(out, coreGroup{t.Name, slug, in})
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return []coreGroup{{"one core type (not a hybrid CPU)", "", cpus}}
}

// logProgress writes one line per block to the replicate log.
type logProgress struct {
	w           io.Writer
	total, done int
	prefix      string
}

func (p *logProgress) Begin(n int) { p.total = n }
func (p *logProgress) Block(c runner.Cell, phase string) {
	p.done++
	fmt.Fprintf(p.w, "%s: block %d/%d %s %s\n", p.prefix, p.done, p.total, phase, c.Key())
}
func (p *logProgress) End() {}

// Published runs the hot-potato experiment as published — 400 contexts,
// 10,000 measured rounds of threads and of processes, on each core type —
// pinned to one CPU of each type (the publication does not say how it
// placed them; one CPU gives the direct cost), and reports it beside the
// published figures with the pipe overhead the publication left in.
func Published(ctx context.Context, e replicate.Env) ([]result.Replication, error) {
	rounds, runs, perBlock := uint64(500), 20, 10 // 20 samples × 500 rounds = 10,000 rounds
	if e.Quick {
		rounds, runs, perBlock = 50, 4, 4
	}
	if len(e.CPUs) == 0 {
		return nil, fmt.Errorf("no CPUs to run on")
	}
	vals := map[string]float64{"tasks": PublishedTasks, "rounds_measured": float64(rounds) * float64(runs)}
	var measured, mistakes []string
	notes := []string{
		"one hop = the token passing from one context to the next (the publication's \"context switch\"); ns and TSC reference cycles per hop are medians of samples of whole rounds",
		"TSC reference cycles tick at the TSC's fixed rate, not the core clock (the publication's reference cycles are the same unit); core cycles and instructions need hardware counters",
	}
	for _, g := range coreGroups(e.Environment, e.CPUs) {
		cpu := g.cpus[len(g.cpus)-1]
		o := Options{
			Kinds: []Kind{Thread, Process}, Tasks: []int{PublishedTasks}, WorkingSets: []int64{0},
			Placements: []bench.Placement{bench.SameCPU}, CPUs: []int{cpu},
			Runs: runs, SamplesPerBlock: perBlock, Warmup: 1, Rounds: rounds, MinTime: time.Millisecond,
			StackBytes: bench.DefaultRingStack, Seed: time.Now().UnixNano(),
			PerfCheck: e.Environment.Perf.Hardware, Executor: e.Executor, Env: e.Environment,
		}
		if e.Log != nil {
			o.Progress = &logProgress{w: e.Log, prefix: "hot-potato-ring (" + g.name + ")"}
		}
		cells, skipped, err := Plan(o)
		if err != nil {
			return nil, err
		}
		if len(skipped) > 0 {
			return nil, fmt.Errorf("%s: %s", skipped[0].Name, skipped[0].Error)
		}
		outs, err := Sweep(ctx, cells, o)
		if err != nil {
			return nil, err
		}
		byKind := map[Kind]*result.Ring{}
		for _, oc := range outs {
			if oc.Err != nil {
				return nil, fmt.Errorf("%s: %v", oc.Cell.Key(), oc.Err)
			}
			byKind[oc.Cell.Kind] = oc.Ring
		}
		t, p := byKind[Thread], byKind[Process]
		pre := ""
		if g.slug != "" {
			pre = g.slug + "_"
		}
		set := func(k string, v float64) { vals[pre+k] = v }
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
		if t.NetNS > 0 {
			set("address_space_overhead_pct_of_net", 100*(p.NetNS-t.NetNS)/t.NetNS)
		}
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
		cmp := stats.Compare(t.Samples, p.Samples, 0.05)
		set("p_value", cmp.P)
		sig := fmt.Sprintf("not significant, p=%.2f", cmp.P)
		if cmp.Significant {
			sig = fmt.Sprintf("significant, p=%.3g", cmp.P)
		}
		hw := "instructions and core cycles: not measured — this machine has no usable hardware performance counters (perf hardware events unsupported)"
		if t.InstructionsPerHop != nil && p.InstructionsPerHop != nil {
			set("thread_instructions_per_hop", *t.InstructionsPerHop)
			set("process_instructions_per_hop", *p.InstructionsPerHop)
			set("instructions_difference_pct", 100*(*p.InstructionsPerHop-*t.InstructionsPerHop) / *t.InstructionsPerHop)
			hw = fmt.Sprintf("instructions per hop %.0f (threads) vs %.0f (processes), %+.1f%%", *t.InstructionsPerHop, *p.InstructionsPerHop,
				100*(*p.InstructionsPerHop-*t.InstructionsPerHop) / *t.InstructionsPerHop)
			if t.CyclesPerHop != nil && p.CyclesPerHop != nil {
				set("thread_core_cycles_per_hop", *t.CyclesPerHop)
				set("process_core_cycles_per_hop", *p.CyclesPerHop)
				hw += fmt.Sprintf("; core cycles per hop %.0f vs %.0f", *t.CyclesPerHop, *p.CyclesPerHop)
			}
		} else if e.Environment.Perf.Hardware {
			hw = "instructions and core cycles: the perf verification block did not return them"
		}
		measured = append(measured, fmt.Sprintf("%s, all 400 on CPU %d: threads %s, processes %s per hop%s; the address space adds %s (%+.0f%%; %s); %s",
			g.name, cpu, export.FormatNS(t.RawNS.Median), export.FormatNS(p.RawNS.Median), cyc, signedNS(over), 100*rel, sig, hw))
		mistakes = append(mistakes, fmt.Sprintf("%s: the one-context pipe overhead is %s (threads' block) and %s (processes' block) per hop; net of it threads cost %s and processes %s per hop, so the address space adds %s of the net switch",
			g.name, export.FormatNS(t.OverheadNS.Median), export.FormatNS(p.OverheadNS.Median), signedNS(t.NetNS), signedNS(p.NetNS), pctOf(p.NetNS-t.NetNS, t.NetNS)))
		for _, r := range []*result.Ring{t, p} {
			for _, f := range r.Flags {
				notes = append(notes, fmt.Sprintf("%s ring flagged (%s): %s", r.Kind, f.Code, f.Message))
			}
		}
		if t.SwitchesPerHop != nil && p.SwitchesPerHop != nil {
			notes = append(notes, fmt.Sprintf("%s: counted %.2f (threads) and %.2f (processes) context switches per hop (getrusage of every member)", g.name, *t.SwitchesPerHop, *p.SwitchesPerHop))
		}
	}
	if !e.Environment.CPU.Hybrid {
		notes = append(notes, "this CPU has one core type, so there is one row where the publication has two (big and little)")
	}
	return []result.Replication{{
		Name:      "hot-potato-ring",
		Source:    seedRing,
		Published: publishedRing,
		Measured:  strings.Join(measured, "; "),
		Values:    vals,
		Mistake: "it subtracted no pipe overhead (its own TODO: lmbench measures the token passed through the pipes by one process and subtracts it), so every figure includes a pipe write and read; " +
			"it counted no context switches and does not say where the 400 contexts ran. " + strings.Join(mistakes, "; "),
		Notes: notes,
	}}, nil
}

func pctOf(x, base float64) string {
	if base <= 0 {
		return fmt.Sprintf("%s (the threads' net is not positive, so no share can be given)", signedNS(x))
	}
	return fmt.Sprintf("%s (%+.0f%%)", signedNS(x), 100*x/base)
}
