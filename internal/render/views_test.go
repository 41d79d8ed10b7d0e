package render_test

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// A view is a command's terminal text. Every view is laid out for 80 and
// 100 columns and for --wide from a test document, and held to three
// things: its golden file per width (testdata/view/NAME.WIDTH.txt), that
// no line is wider than the width nor ends in a space, and that each of
// its tables stays a table (its columns keep their gutters under the head
// line: testdoc.Aligned).
type viewCase struct {
	name string
	show func(w io.Writer, st render.Style)
	// tables name each table by a word of its head line that no width
	// leaves out (or two, "a|b", for a table with two forms), and the
	// least number of lines that must keep its columns under it.
	tables []tableCheck
}

type tableCheck struct {
	head string
	rows int
}

// docOf is a document of the fake machine holding only what set adds.
func docOf(set func(d *result.Document)) *result.Document {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := &result.Document{SchemaVersion: result.SchemaVersion, StartedAt: start, FinishedAt: start.Add(time.Minute),
		Settings: result.Settings{DryRun: true}, Environment: testdoc.Environment()}
	set(d)
	return d
}

// explainReal is a real explain of thread/pipe at both placements with
// its slow hops captured (on a 2-vCPU KVM guest), trimmed of what the
// views do not read: its long phase names and probe lists are what a
// table must hold at 80 columns.
func explainReal(t *testing.T) *result.Document {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "explain.json"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := result.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func history() *render.History {
	at := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	f := func(v float64) *float64 { return &v }
	var pts []render.HistoryPoint
	for i, m := range []float64{2880, 2890, 2875, 2900, 3150, 3160, 3140, 3170} {
		p := render.HistoryPoint{At: at.Add(time.Duration(i) * 26 * time.Hour), Median: m, Low: f(0.99 * m), High: f(1.01 * m), Confidence: 0.95, Blocks: 10}
		if i == 2 {
			p.Contended = true
		}
		if i == 6 {
			p.HostSlow = f(0.12)
		}
		pts = append(pts, p)
	}
	return &render.History{Store: "/home/user/.local/share/ctxbench/history.db", Machines: []render.HistoryMachine{{
		Fingerprint: "3f9a2c1d", Machine: "m-77aa", Builds: 2, First: at,
		Fields: result.FingerprintFields{Host: "testhost", CPU: "Test CPU 9000", LogicalCPUs: 2, Kernel: "6.1.0-test", KernelBuild: "#1 SMP test",
			Version: "test", Commit: "5ce860d", GoVersion: "go1.test", MinTimeNS: 2e6, SamplesPerBlk: 4, Warmup: 1, SpanNS: 1e10,
			Governor: "", IdleDriver: "haltpoll", IdleGovernor: "haltpoll", Clocksource: "tsc", Virt: "virtual machine guest, hypervisor KVM"},
		Cells: []render.HistoryCell{
			{Name: "thread/pipe", Placement: "same-cpu", CPUs: "1", Points: pts, Searched: true,
				Steps: []render.HistoryStep{{At: pts[4].At, Change: 0.092, Low: 0.081, High: 0.104, Confidence: 0.95, Before: 3, After: 4}}},
			{Name: "process/pipe", Placement: "cross-cpu", CPUs: "0,1", Points: pts[:2], Searched: false},
		}}}}
}

// withHierarchy is d with the published hierarchy set beside some of its
// rows (one not measured) and two claims, as replicate derives them.
func withHierarchy(t *testing.T, d *result.Document) *result.Document {
	t.Helper()
	h := *d
	der := *d.Derived
	h.Derived = &der
	for _, x := range []struct{ abs, pub, mult, name, pl string }{
		{"goroutine (single-threaded)", "108 ns", "1x (baseline)", "goroutine/chan-gomaxprocs1", "same-cpu"},
		{"OS thread", "1,000-3,000 ns", "9-28x", "thread/pipe", "same-cpu"},
		{"process", "5,000-10,000 ns", "46-93x", "process/pipe", "same-cpu"},
		{"VM (hardware)", "10,000-50,000 ns", "93-463x", "vm/switch-user", "same-cpu"},
	} {
		row := result.HierarchyRow{Abstraction: x.abs, Published: x.pub, PublishedMultiple: x.mult, Name: x.name, Placement: x.pl, Why: "not run"}
		for _, r := range d.Results {
			if r.Name == x.name && r.Placement == x.pl {
				m := r.OneWayNS.Median
				row.MedianNS, row.SwitchesPerHop, row.Verified, row.Why = &m, r.SwitchesPerHop, r.Verification.Verified, ""
			}
		}
		der.Hierarchy = append(der.Hierarchy, row)
	}
	der.Claims = []result.ClaimRow{{Name: "spawn/thread", Measured: "10.9 µs per creation (median)", Published: "thread creation ~17 µs (the write-up)"},
		{Name: "memory/thread", Measured: "7.03 KiB PSS, 8.00 MiB virtual per context, 2000 held",
			Published: "a thread reserves 8 MiB of stack (the write-up) — not like for like: that is a stack reservation (address space), this is PSS, the memory held"}}
	return &h
}

func viewCases(t *testing.T) []viewCase {
	d := fake(t)
	exp, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := testdoc.Doc(testdoc.Options{Seed: 1, Scale: 1.04})
	if err != nil {
		t.Fatal(err)
	}
	cmp, err := compare.Compare([]compare.Input{{Label: "base", Doc: d}, {Label: "slower", Doc: b}}, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	load := docOf(func(d *result.Document) { d.Loads = testdoc.Loads(true) })
	aa := docOf(func(d *result.Document) { d.AA = testdoc.AA() })
	ab := docOf(func(d *result.Document) { d.AB = testdoc.AB() })
	explain := explainReal(t)
	slower := explainReal(t)
	for i := range slower.Results {
		for j := range slower.Results[i].Explain.Phases {
			p := &slower.Results[i].Explain.Phases[j]
			p.NsPerHop *= 1 + 0.02*float64(j%7)
		}
	}
	phases, err := compare.Compare([]compare.Input{{Label: "before", Doc: explain}, {Label: "after", Doc: slower}}, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	inplace := docOf(func(d *result.Document) { d.Attach = testdoc.Attach(false) })
	checked := docOf(func(d *result.Document) { d.Attach = testdoc.Attach(true) })
	after := docOf(func(d *result.Document) {
		d.Attach = testdoc.Attach(false)
		for i := range d.Attach.Targets {
			for j := range d.Attach.Targets[i].Windows {
				d.Attach.Targets[i].Windows[j].SwitchesPerS *= 0.8
			}
			d.Attach.Targets[i].SwitchesPerS.Value *= 0.8
		}
	})
	attachCmp, err := compare.Compare([]compare.Input{{Label: "before", Doc: inplace}, {Label: "after", Doc: after}}, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	ladder := withHierarchy(t, exp)
	replicated := *exp
	replicated.Replications = append([]result.Replication{}, exp.Replications...)
	replicated.Replications[0].Notes = []string{"the published program pinned neither side, so its figure mixes same-CPU and cross-CPU hops in proportions the scheduler chose on that machine (synthetic)"}
	return []viewCase{
		{name: "ladder", show: func(w io.Writer, st render.Style) {
			render.Ladder(w, d, st)
			render.Spawn(w, exp)
			render.Memory(w, exp)
			render.Hierarchy(w, ladder)
		}, tables: []tableCheck{{"PLACEMENT", 11}, {"PER CREATION", 4}, {"HELD", 3}, {"ABSTRACTION", 4}, {"CLAIM", 2}}},
		{name: "ring", show: func(w io.Writer, st render.Style) { render.Rings(w, exp, st) },
			tables: []tableCheck{{"raw/hop", 15}}},
		{name: "load", show: func(w io.Writer, st render.Style) { render.Loads(w, load, st) },
			tables: []tableCheck{{"WAKE-UP p50", 5}, {"REQUEST p50", 5}, {"WHERE MOST", 2}}},
		{name: "pool", show: func(w io.Writer, _ render.Style) { render.Pools(w, exp.Pools) },
			tables: []tableCheck{{"q/s", 7}}},
		{name: "explain", show: func(w io.Writer, _ render.Style) { render.Explain(w, explain) },
			tables: []tableCheck{{"UNTRACED", 10}, {"CHANGE", 3}, {"WHERE MOST", 2}, {"SLOW NS", 4}, {"CAUSE", 9}}},
		{name: "aa", show: func(w io.Writer, _ render.Style) { render.AA(w, aa) },
			tables: []tableCheck{{"RESOLVABLE", 3}, {"±REPRO", 2}, {"AGAINST", 2}}},
		{name: "ab", show: func(w io.Writer, _ render.Style) { render.AB(w, ab) },
			tables: []tableCheck{{"B vs A [interval]", 3}}},
		{name: "history", show: func(w io.Writer, _ render.Style) { render.HistoryText(w, history()) },
			tables: []tableCheck{{"SITTING (UTC)", 2}}},
		{name: "spawn", show: func(w io.Writer, _ render.Style) { render.Spawn(w, exp) },
			tables: []tableCheck{{"PER CREATION", 4}}},
		{name: "memory", show: func(w io.Writer, _ render.Style) { render.Memory(w, exp) },
			tables: []tableCheck{{"HELD", 3}}},
		{name: "replicate", show: func(w io.Writer, _ render.Style) { render.Replications(w, &replicated) },
			tables: []tableCheck{{"published:", 3}}},
		{name: "compare", show: func(w io.Writer, _ render.Style) { _ = render.CompareText(w, cmp) },
			tables: []tableCheck{{"VS BASE|vs base", 12}}},
		{name: "compare-phases", show: func(w io.Writer, _ render.Style) { _ = render.CompareText(w, phases) },
			tables: []tableCheck{{"PHASE", 8}}},
		{name: "attach", show: func(w io.Writer, _ render.Style) { render.Attach(w, inplace) },
			tables: []tableCheck{{"PER S", 8}}},
		{name: "attach-check", show: func(w io.Writer, _ render.Style) { render.Attach(w, checked) },
			tables: []tableCheck{{"PER S", 5}}},
		{name: "compare-attach", show: func(w io.Writer, _ render.Style) { _ = render.CompareText(w, attachCmp) },
			tables: []tableCheck{{"FIGURE", 4}}},
	}
}

func TestViews(t *testing.T) {
	for _, c := range viewCases(t) {
		t.Run(c.name, func(t *testing.T) {
			for _, st := range []render.Style{{Width: 80}, {Width: 100}, {Wide: true}} {
				out := shown(st, c.show)
				width := fmt.Sprint(st.Width)
				if st.Wide {
					width = "wide"
				}
				testdoc.Golden(t, filepath.Join("view", c.name+"."+width+".txt"), []byte(out))
				what := c.name + " at " + width
				if !st.Wide {
					testdoc.Fits(t, what, out, st.Width)
				}
				for _, tc := range c.tables {
					head := tc.head
					if a, b, ok := strings.Cut(head, "|"); ok && !strings.Contains(out, a) {
						head = b // the table's other form (compare's long table)
					} else if ok {
						head = a
					}
					testdoc.Aligned(t, what, out, head, tc.rows)
				}
			}
		})
	}
}

// The check of tables must be able to fail: cells run together on ragged
// lines, as text/tabwriter's rows wrapped by Fit were, keep no gutter.
func TestAlignedCatchesRaggedRows(t *testing.T) {
	ragged := "  PHASE           NS/HOP  UNTRACED  SHARE\n  read() returns 215 102 5%\n  not attributed  396\n"
	ft := &fakeT{}
	testdoc.Aligned(ft, "ragged", ragged, "PHASE", 2)
	if !ft.failed {
		t.Error("Aligned passed a table whose cells ran together")
	}
	ok := "  PHASE           NS/HOP  UNTRACED  SHARE\n  read() returns     215       102     5%\n  not attributed     396\n"
	ft = &fakeT{}
	testdoc.Aligned(ft, "aligned", ok, "PHASE", 2)
	if ft.failed {
		t.Errorf("Aligned failed an aligned table: %s", ft.msg)
	}
	var b bytes.Buffer
	b.WriteString(ok)
	if strings.Count(b.String(), "\n") != 3 {
		t.Fatal("the sample changed")
	}
}

// fakeT records a failure instead of failing the test.
type fakeT struct {
	testing.TB
	failed bool
	msg    string
}

func (f *fakeT) Helper() {}
func (f *fakeT) Errorf(format string, a ...any) {
	f.failed = true
	f.msg = fmt.Sprintf(format, a...)
}
