package render_test

import (
	"bytes"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// row finds a result of the fake document.
func row(t *testing.T, d *result.Document, name, placement string) *result.Result {
	t.Helper()
	for i := range d.Results {
		if d.Results[i].Name == name && d.Results[i].Placement == placement {
			return &d.Results[i]
		}
	}
	t.Fatalf("the fake document has no %s %s", name, placement)
	return nil
}

func ladderText(d *result.Document) string {
	var b bytes.Buffer
	render.Ladder(&b, d, render.Style{})
	return b.String()
}

func markdownText(t *testing.T, d *result.Document) string {
	t.Helper()
	var b bytes.Buffer
	if err := formats.Markdown(&b, d); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// tableLine is the line of a rendered table that holds name and placement.
func tableLine(t *testing.T, out, name, placement string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, name) && strings.Contains(l, placement) {
			return l
		}
	}
	t.Fatalf("no line for %s %s in\n%s", name, placement, out)
	return ""
}

// A multiple taken round by round is shown as the median of its per-round
// ratios, the figure its interval belongs to, with the interval's level
// where it is not 95%; the ratio of the two medians, which may lie outside
// that interval, is not shown beside it.
func TestMultipleIsTheFigureOfItsInterval(t *testing.T) {
	d := fake(t)
	r := row(t, d, "thread/pipe", "cross-cpu")
	m := 80.0 // ratio of the medians: outside the interval below
	r.Multiple = &m
	r.MultipleInterval = &result.Interval{Median: 70, Low: 68, High: 72, Confidence: 0.75, Rounds: 4}
	d.Derived.Hierarchy = []result.HierarchyRow{{Abstraction: "thread", Published: "2 µs", PublishedMultiple: "10x",
		Name: r.Name, Placement: r.Placement, MedianNS: &r.OneWayNS.Median, Multiple: &m}}
	var h bytes.Buffer
	render.Hierarchy(&h, d)
	for surface, out := range map[string]string{"ladder": ladderText(d), "markdown": markdownText(t, d), "hierarchy": h.String()} {
		l := tableLine(t, out, "thread/pipe", "cross-cpu")
		if !strings.Contains(l, "70× @75%") {
			t.Errorf("%s: the multiple is not its interval's median with its level: %q", surface, l)
		}
		if strings.Contains(l, "80×") {
			t.Errorf("%s: the ratio of the medians, outside its interval, is shown: %q", surface, l)
		}
	}
	// An interval at the level the column states needs no mark; the
	// baseline row is 1× by definition.
	r.MultipleInterval.Confidence = row(t, d, "thread/pipe", "same-cpu").MultipleInterval.Confidence
	out := ladderText(d)
	if l := tableLine(t, out, "thread/pipe", "cross-cpu"); !strings.Contains(l, "70×") || strings.Contains(l, "@") {
		t.Errorf("a ≥95%% interval's multiple: %q", l)
	}
	if l := tableLine(t, out, "goroutine/chan-gomaxprocs1", "same-cpu"); !strings.Contains(l, " 1.00× ") || strings.Contains(l, "≈") {
		t.Errorf("the baseline row: %q", l)
	}
	// Without an interval (blocks not paired) the ratio of the medians is
	// all there is, and the legend says so.
	r.MultipleInterval = nil
	out = ladderText(d)
	if l := tableLine(t, out, "thread/pipe", "cross-cpu"); !strings.Contains(l, "80×") {
		t.Errorf("a row without an interval: %q", l)
	}
	if !strings.Contains(out, "ratio of the two medians") {
		t.Error("the legend does not say which rows show the ratio of the medians")
	}
}

// "~" means noisy (the ±CI column); an interval of a multiple that holds
// 1× has its own mark, ≈ before the multiple, explained in the legend, in
// the text table and in Markdown.
func TestOneMarkOneMeaning(t *testing.T) {
	d := fake(t)
	r := row(t, d, "goroutine/chan-gomaxprocsN", "cross-cpu")
	m := 1.10
	r.Multiple = &m
	r.MultipleInterval = &result.Interval{Median: 1.02, Low: 0.97, High: 1.08, Confidence: 0.98, Rounds: 10}
	for surface, out := range map[string]string{"ladder": ladderText(d), "markdown": markdownText(t, d)} {
		l := tableLine(t, out, "goroutine/chan-gomaxprocsN", "cross-cpu")
		if !strings.Contains(l, "≈1.02×") {
			t.Errorf("%s: a multiple whose interval holds 1× is not marked ≈: %q", surface, l)
		}
		if strings.Contains(l, "~") {
			t.Errorf("%s: ~ on a row that is not noisy: %q", surface, l)
		}
		var legend string
		for _, x := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.ToLower(x), "× goroutine:") {
				legend = x
			}
		}
		if strings.Contains(legend, "~") {
			t.Errorf("%s: the legend of the × column: %q", surface, legend)
		}
		if !strings.Contains(out, "≈ not resolved: the figure's interval holds no change (1× for a multiple") {
			t.Errorf("%s: no legend of ≈:\n%s", surface, out)
		}
	}
	// A noisy row keeps ~ in its ±CI column, and only there.
	r.Warnings = append(r.Warnings, result.Warning{Code: "noise-cv", Message: "high variation (CV 12%)"})
	out := ladderText(d)
	l := tableLine(t, out, "goroutine/chan-gomaxprocsN", "cross-cpu")
	if strings.Count(l, "~") != 1 || !strings.Contains(l, "%~") {
		t.Errorf("a noisy row's ~ is not its ±CI's alone: %q", l)
	}
}

// The VM decomposition shows a difference taken round by round as the
// median its interval belongs to, with the interval's level.
func TestVMLinesShowTheFigureOfTheInterval(t *testing.T) {
	d := &result.Document{Derived: &result.Derived{VM: &result.VMDecomposition{
		Exit: &result.VMExitParts{ExitUserNS: 3000, ExitKernelNS: 1000, ReturnToVMMNS: 2000,
			ReturnToVMMInterval: &result.Interval{Median: 2500, Low: 2400, High: 2600, Confidence: 0.75, Rounds: 4}},
		Switch: &result.VMSwitchParts{HopNS: 9000, ProcessHopNS: 4000, ExitNS: 3000, ResidualNS: 2000,
			ResidualInterval: &result.Interval{Median: 1500, Low: -100, High: 2100, Confidence: 0.95, Rounds: 10}},
	}}}
	lines := render.VMLines(d)
	if len(lines) != 2 {
		t.Fatalf("VM lines: %q", lines)
	}
	if !strings.Contains(lines[0], "adds 2.50 µs [2.40 µs, 2.60 µs] @75%") || strings.Contains(lines[0], "2.00 µs") {
		t.Errorf("the exit line: %q", lines[0])
	}
	if !strings.Contains(lines[1], "1.50 µs [-100 ns, 2.10 µs], not resolved here") || strings.Contains(lines[1], "2.00 µs") {
		t.Errorf("the switch line: %q", lines[1])
	}
}

// The ring table marks a net whose interval holds 0 with ≈ (explained
// under the table), not with the ladder's noise mark ~.
func TestRingNetNotResolvedMark(t *testing.T) {
	d := fake(t)
	d.Rings = d.Rings[:1]
	d.Rings[0].NetInterval = &result.Interval{Median: 5, Low: -3, High: 12, Confidence: 0.98, Rounds: 10}
	var b bytes.Buffer
	render.Rings(&b, d, render.Style{})
	out := b.String()
	if strings.Contains(out, " ~") || !strings.Contains(out, "≈") || !strings.Contains(out, "≈ "+render.MarkUnresolved.Legend) {
		t.Errorf("the ring table's mark for an unresolved net:\n%s", out)
	}
}

// benchstat takes every line as independent: the export writes one value
// per block, its median, and says so; a row without recorded blocks writes
// its samples and says that.
func TestGoBenchOneValuePerBlock(t *testing.T) {
	d := fake(t)
	bare := row(t, d, "reference/syscall", "same-cpu")
	bare.BlockInfo = nil // as an older file would have it
	var buf bytes.Buffer
	if err := formats.GoBench(&buf, d); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if !strings.Contains(out, "# one value per block: the median of the block's samples") {
		t.Error("no comment line says a value is a block's median")
	}
	if !strings.Contains(out, "# reference/syscall same-cpu: no blocks recorded: one value per raw sample") {
		t.Error("a row without blocks does not say its values are raw samples")
	}
	want := map[string][]float64{}
	for _, r := range d.Results {
		v := stats.BlockMedians(r.Samples, result.BlockSizes(r.BlockInfo))
		if v == nil {
			v = r.Samples
		}
		want[strings.ToUpper(r.Name[:1])+r.Name[1:]+"/placement="+r.Placement] = v // benchfmt's name drops "Benchmark"
	}
	got := map[string][]float64{}
	rd := benchfmt.NewReader(strings.NewReader(out), "x")
	for rd.Scan() {
		switch rec := rd.Result().(type) {
		case *benchfmt.Result:
			n := string(rec.Name.Full())
			got[n] = append(got[n], rec.Values[0].OrigValue)
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	for name, w := range want {
		g := got[name]
		if len(g) != len(w) {
			t.Errorf("%s: %d values, want %d", name, len(g), len(w))
			continue
		}
		for i := range w {
			if d := g[i] - w[i]; d > 0.0051 || d < -0.0051 { // written with two decimals
				t.Errorf("%s value %d = %v, want %v", name, i, g[i], w[i])
			}
		}
	}
	if n := len(row(t, d, "thread/pipe", "same-cpu").BlockInfo); len(got["Thread/pipe/placement=same-cpu"]) != n {
		t.Errorf("thread/pipe: want one value per block (%d)", n)
	}
}

// A negative per-context figure is a difference that moved by less than
// its noise: it is n/a*, footnoted, never a figure; KERNEL and CHARGED are
// defined under the table.
func TestMemoryNegativeIsNotAFigure(t *testing.T) {
	d := fake(t)
	d.Memory[1].KernelBytes = -49.5 * 1024
	var b bytes.Buffer
	render.Memory(&b, d)
	out := b.String()
	l := tableLine(t, out, d.Memory[1].Name, d.Memory[1].Kind)
	if !strings.Contains(l, "n/a*") || strings.Contains(l, "49.5") {
		t.Errorf("a negative KERNEL is shown as a figure: %q", l)
	}
	if !strings.Contains(out, "n/a* the difference came out negative: the counter moved by less than its noise") {
		t.Errorf("no footnote says what n/a* means:\n%s", out)
	}
	for _, want := range []string{"KERNEL = kernel stacks + page tables", "slab is left out", "CHARGED = user pages + kernel memory"} {
		if !strings.Contains(out, want) {
			t.Errorf("the memory legend lacks %q:\n%s", want, out)
		}
	}
	// Without a negative figure there is no footnote.
	d.Memory[1].KernelBytes = 16384
	b.Reset()
	render.Memory(&b, d)
	if strings.Contains(b.String(), "n/a*") {
		t.Errorf("n/a* without a negative figure:\n%s", b.String())
	}
}

// The floor row's label says what the kernel saves: only what is live
// across the switch (internal/kernels/floor.c), not six registers.
func TestFloorLabelSaysWhatTheKernelSaves(t *testing.T) {
	l := row(t, fake(t), "floor/asm-swap", "same-cpu").Label.Mechanism
	if strings.Contains(l, "6 callee-saved") || !strings.Contains(l, "live across it") {
		t.Errorf("floor/asm-swap's mechanism: %q", l)
	}
}

// One way to state a level other than 95%, never rounded to read as 95%.
func TestLevelMark(t *testing.T) {
	for c, want := range map[float64]string{0: "", 0.75: " @75%", 0.946: " @94.6%", 0.95: "", 0.9785: " @97.9%", 0.98: " @98%"} {
		if got := render.LevelMark(c); got != want {
			t.Errorf("LevelMark(%v) = %q, want %q", c, got, want)
		}
	}
}

// A stackless row carries the same mark, explained once, in the terminal
// table and the Markdown export; a stack switch carries none.
func TestStacklessRowsAreMarked(t *testing.T) {
	d := fake(t)
	r := row(t, d, "thread/futex", "same-cpu")
	r.Name, r.Rung = "runtime/node-promise", "runtime"
	r.Label.Stackless = true
	for surface, out := range map[string]string{"ladder": ladderText(d), "markdown": markdownText(t, d)} {
		if l := tableLine(t, out, "runtime/node-promise", "same-cpu"); !strings.Contains(l, "§") {
			t.Errorf("%s: the stackless row is not marked: %q", surface, l)
		}
		if l := tableLine(t, out, "thread/pipe", "same-cpu"); strings.Contains(l, "§") {
			t.Errorf("%s: a stack switch is marked stackless: %q", surface, l)
		}
		if strings.Count(out, "§ stackless: resumes a heap frame") != 1 {
			t.Errorf("%s: the § mark is not explained exactly once:\n%s", surface, out)
		}
	}
}
