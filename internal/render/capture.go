package render

// capture.go: a cell's captured slow hops as text (ctxbench explain and
// load with --capture-above): what was captured and what was not, what the
// capture cost, the slowest hops one line each with their parts under the
// three slowest and a typical one, then the slow hops against the typical
// ones part by part with intervals over blocks, and by cause.

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// capturedInDetail is how many of the slowest hops print their parts.
const capturedInDetail = 3

// causeWords names a cause in prose.
var causeWords = map[result.Cause]string{
	result.CauseWork:         "the hop's own work",
	result.CauseOtherWork:    "other work of the hop's tasks",
	result.CauseOtherTask:    "another task ran",
	result.CauseInterrupts:   "interrupts and softirqs",
	result.CauseIPIFlight:    "the IPI's flight (the idle CPU's wake-up)",
	result.CauseIdleExit:     "the idle exit",
	result.CauseIdle:         "the CPU idle",
	result.CauseUnattributed: "not attributed",
	result.CauseUnrecorded:   "not recorded",
}

// CauseWords is how a cause reads in prose.
func CauseWords(c result.Cause) string {
	if s, ok := causeWords[c]; ok {
		return s
	}
	return string(c)
}

// Capture prints a cell's captured hops under its other figures.
func Capture(w io.Writer, c *result.Capture, st Style) {
	if c == nil {
		return
	}
	n := c.Counts
	thr := "above " + c.Threshold
	if c.Quantile > 0 {
		judged := n.Hops - n.Warmup
		pass := 0.0
		if judged > 0 {
			pass = float64(n.Past) / float64(judged)
		}
		thr = fmt.Sprintf("above the running %s of the cell's hops (an in-kernel estimate: %s of the hops it judged passed it)", c.Threshold, units.Percent(100*pass, 2))
	}
	head := fmt.Sprintf("\n  slow hops, captured in the kernel %s: %s hops past it of %s that woke a task; %s copied out%s, %s kept (each block's slowest and as many sampled from the rest), %s not kept",
		thr, units.Count(float64(n.Past)), units.Count(float64(n.Hops)), units.Count(float64(n.Copied)), LostWords(n.Lost, " (%s lost: the buffer was full)"),
		units.Count(float64(n.Kept)), units.Count(float64(n.NotKept)))
	if n.Boundary > 0 {
		head += fmt.Sprintf(", %s held the loop's own work between samples (counted, not kept)", units.Count(float64(n.Boundary)))
	}
	if n.Warmup > 0 {
		head += fmt.Sprintf("; %s in the warm-up, not judged", units.Count(float64(n.Warmup)))
	}
	prose(w, st, "%s (%s, %d blocks)\n", head, c.Method, c.Blocks)
	prose(w, st, "  a hop on the kernel's clock, from the waker's syscall entry to the woken task's return: p50 %s, p90 %s, p99 %s, p99.9 %s\n",
		units.Time(c.HopNS.P50), units.Time(c.HopNS.P90), units.Time(c.HopNS.P99), units.Time(c.HopNS.P99_9))
	if k := c.Cost; k != nil {
		per := ""
		if k.NSPerHop != nil {
			per = fmt.Sprintf(", %s [%s, %s] per hop", units.SignedTime(k.NSPerHop.Median), units.SignedTime(k.NSPerHop.Low), units.SignedTime(k.NSPerHop.High))
		}
		prose(w, st, "  the capture's own cost: %s [%s, %s]%s%s on the hop (capture on against off, both traced, %d rounds paired); the kernel's copying alone %s per hop. The figures above it are from the cells without it.\n",
			units.Change(k.Change), units.Change(k.Low), units.Change(k.High), atLevel(k.Confidence), per, k.Rounds, units.Time(k.KernelNSPerHop))
	} else {
		prose(w, st, "  the capture's own cost: not measured (fewer than two rounds paired)\n")
	}
	if len(c.Slowest) == 0 {
		fmt.Fprintln(w, "  no hop passed the threshold")
	} else {
		capturedHops(w, c, st)
	}
	captureCompare(w, c, st)
	for _, note := range c.Notes {
		prose(w, st, "  note: %s\n", note)
	}
}

// LostWords says how many slow hops the kernel's buffer refused, in
// format (which holds one %s), and nothing where none was lost: "0 lost:
// the buffer was full" would claim a full buffer that never was.
func LostWords(lost uint64, format string) string {
	if lost == 0 {
		return ""
	}
	return fmt.Sprintf(format, units.Count(float64(lost)))
}

// capturedHops prints the slowest hops one line each, and the parts of the
// three slowest and of a typical hop.
func capturedHops(w io.Writer, c *result.Capture, st Style) {
	t := NewTable(Col{Head: "#", Right: true}, Col{Head: "HOP", Right: true}, Col{Head: "EXCESS", Right: true},
		Col{Head: "CPUS", Fold: 1}, Col{Head: "WHERE MOST OF IT WENT", Wrap: true, Min: 21})
	t.Indent = 2
	for i, h := range c.Slowest {
		t.Row(fmt.Sprint(i+1), units.Time(h.Ns), units.SignedTime(h.ExcessNs), cpus(h), mainWords(h))
	}
	if len(c.Typical) > 0 {
		h := c.Typical[0]
		t.Row("typ.", units.Time(h.Ns), "", cpus(h), "a typical hop (the median band)")
	}
	fmt.Fprintln(w)
	t.Write(w, st)
	for i, h := range c.Slowest[:min(len(c.Slowest), capturedInDetail)] {
		prose(w, st, "\n  #%d, %s: %s\n", i+1, units.Time(h.Ns), hopFacts(h))
		hopParts(w, h, st)
	}
	if len(c.Typical) > 0 {
		h := c.Typical[0]
		prose(w, st, "\n  a typical hop, %s: %s\n", units.Time(h.Ns), hopFacts(h))
		hopParts(w, h, st)
	}
}

func cpus(h result.CapturedHop) string {
	if h.WakerCPU == h.WakeeCPU {
		return fmt.Sprint(h.WakeeCPU)
	}
	return fmt.Sprintf("%d→%d", h.WakerCPU, h.WakeeCPU)
}

func mainWords(h result.CapturedHop) string {
	m := h.Main
	if m == nil {
		return ""
	}
	s := m.Name
	if m.Task != nil {
		s = "another task ran: " + m.Task.String()
	}
	return fmt.Sprintf("%s, %s (%s of the excess)", s, units.SignedTime(m.Ns), units.Percent(100*m.Share, 0))
}

func hopFacts(h result.CapturedHop) string {
	var f []string
	if h.WakerCPU == h.WakeeCPU {
		f = append(f, fmt.Sprintf("pid %d woke pid %d on CPU %d", h.WakerPID, h.WakeePID, h.WakeeCPU))
	} else {
		f = append(f, fmt.Sprintf("pid %d on CPU %d woke pid %d on CPU %d", h.WakerPID, h.WakerCPU, h.WakeePID, h.WakeeCPU))
	}
	if h.Migrated {
		f = append(f, "the woken task had last run on another CPU (migrated: cold caches, spread over the parts)")
	}
	f = append(f, fmt.Sprintf("its parts close on %s of it", units.Percent(100*h.Closure, 0)))
	if h.Truncated {
		f = append(f, "the copied entries did not reach back to its start")
	}
	return strings.Join(f, "; ")
}

// hopParts prints a hop's parts in time order.
func hopParts(w io.Writer, h result.CapturedHop, st Style) {
	t := NewTable(Col{Head: "PART", Wrap: true, Min: 24}, Col{Head: "CPU", Fold: 2}, Col{Head: "NS", Right: true},
		Col{Head: "SHARE", Right: true, Fold: 1}, Col{Head: "CAUSE", Fold: 3})
	t.Indent = 4
	for _, p := range h.Phases {
		name := p.Name
		if p.Task != nil {
			name = "another task ran: " + p.Task.String()
		}
		share := 0.0
		if h.Ns > 0 {
			share = p.Ns / h.Ns
		}
		t.Row(name, p.CPU, units.Sig(p.Ns), units.Percent(100*share, 0), string(p.Cause))
	}
	t.Write(w, st)
}

// captureCompare prints the slow hops against the typical ones, part by
// part (the largest differences) and by cause.
func captureCompare(w io.Writer, c *result.Capture, st Style) {
	if c.ExcessNS.Blocks == 0 {
		return
	}
	prose(w, st, "\n  a slow hop against a typical one (the mean per hop in each block; the difference over %d blocks): %s more %s\n",
		c.ExcessNS.Blocks, units.Time(c.ExcessNS.NS), diffInterval(c.ExcessNS))
	t := NewTable(Col{Head: "PART", Wrap: true, Min: 24}, Col{Head: "CPU", Fold: 2}, Col{Head: "SLOW NS", Right: true},
		Col{Head: "TYPICAL", Right: true, Fold: 3}, Col{Head: "DIFFERENCE", Right: true}, Col{Head: "INTERVAL", Fold: 1}, Col{Head: "SHARE", Right: true})
	t.Indent = 2
	shown := 0
	var rest float64
	for _, p := range c.Phases {
		if shown == 10 || math.Abs(p.Delta.NS) < 0.01*math.Abs(c.ExcessNS.NS) {
			rest += p.Delta.NS
			continue
		}
		shown++
		name := p.Name
		if len(p.Tasks) > 0 {
			name = "another task ran: " + taskList(p.Tasks)
		}
		t.Row(name, p.CPU, units.Sig(p.SlowNS), units.Sig(p.TypicalNS), units.Signed(p.Delta.NS, 0)+unresolved(p.Delta), diffBounds(p.Delta),
			units.Percent(100*p.Share, 0))
	}
	if rest != 0 {
		t.Row("the other parts", "", "", "", units.Signed(rest, 0), "", "")
	}
	t.Write(w, st)
	var by []string
	for _, cc := range c.Causes {
		if math.Abs(cc.Delta.NS) < 0.005*math.Abs(c.ExcessNS.NS) {
			continue
		}
		s := fmt.Sprintf("%s %s%s (%s)", CauseWords(cc.Cause), units.SignedTime(cc.Delta.NS), unresolved(cc.Delta), units.Percent(100*cc.Share, 0))
		if len(cc.Tasks) > 0 {
			s += " — " + taskList(cc.Tasks)
		}
		by = append(by, s)
	}
	if len(by) > 0 {
		prose(w, st, "  by cause: %s\n", strings.Join(by, "; "))
	}
	if slices.ContainsFunc(c.Phases, func(p result.CapturePhase) bool { return p.Delta.Blocks >= 2 && !p.Delta.Resolved() }) {
		prose(w, st, "  %s %s\n", MarkUnresolved.Symbol, MarkUnresolved.Legend)
	}
}

// taskList names tasks, each name once with its pids.
func taskList(ts []result.Task) string {
	var order []string
	pids := map[string][]string{}
	for _, t := range ts {
		if _, ok := pids[t.Comm]; !ok {
			order = append(order, t.Comm)
		}
		pids[t.Comm] = append(pids[t.Comm], fmt.Sprint(t.PID))
	}
	var out []string
	for _, c := range order {
		p := pids[c]
		if len(p) > 3 {
			p = append(p[:3], "…")
		}
		out = append(out, fmt.Sprintf("%s (pid %s)", c, strings.Join(p, ", ")))
	}
	return strings.Join(out, ", ")
}

func unresolved(d result.Difference) string {
	if d.Blocks >= 2 && !d.Resolved() {
		return " " + MarkUnresolved.Symbol
	}
	return ""
}

func diffBounds(d result.Difference) string {
	if d.Blocks < 2 {
		return ""
	}
	s := fmt.Sprintf("[%s, %s]", units.Signed(d.Low, 0), units.Signed(d.High, 0))
	if d.Confidence < stats.Confidence-1e-9 || d.Confidence > 0.99 {
		s += " @" + level(d.Confidence)
	}
	return s
}

func diffInterval(d result.Difference) string {
	if d.Blocks < 2 {
		return "(one block: no interval)"
	}
	return fmt.Sprintf("[%s, %s] at %s", units.Time(d.Low), units.Time(d.High), level(d.Confidence))
}
