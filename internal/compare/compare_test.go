package compare_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

func doc(t *testing.T, o testdoc.Options) *result.Document {
	t.Helper()
	d, err := testdoc.Doc(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func in(label string, d *result.Document) compare.Input {
	return compare.Input{Label: label, Path: label + ".json", Doc: d}
}

func run(t *testing.T, o compare.Options, inputs ...compare.Input) *compare.Comparison {
	t.Helper()
	c, err := compare.Compare(inputs, o)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A 2x shift of every sample is a real difference: every row significant,
// +100%, and a regression above any threshold below 100%.
func TestShiftIsSignificant(t *testing.T) {
	base := doc(t, testdoc.Options{Seed: 1})
	slow := doc(t, testdoc.Options{Seed: 1, Scale: 2})
	c := run(t, compare.Options{}, in("base", base), in("slow", slow))
	rows := c.Tables[0].Rows
	if len(rows) != len(base.Results) {
		t.Fatalf("%d rows, want %d", len(rows), len(base.Results))
	}
	for _, r := range rows {
		d := r.Deltas[1]
		if !d.Tested || !d.Significant {
			t.Errorf("%s %s: a 2x shift is not significant (p=%v)", r.Name, r.Placement, d.P)
		}
		if d.Change < 0.99 || d.Change > 1.01 {
			t.Errorf("%s %s: change %v, want +100%%", r.Name, r.Placement, d.Change)
		}
	}
	if g := c.Tables[0].Geomean.Deltas[1].Change; g < 0.99 || g > 1.01 {
		t.Errorf("geomean change %v, want +100%%", g)
	}
	if n := len(c.Regressions(10)); n != len(rows) {
		t.Errorf("%d regressions above 10%%, want %d", n, len(rows))
	}
	if n := len(c.Regressions(150)); n != 0 {
		t.Errorf("%d regressions above 150%%, want none", n)
	}
	// Faster is never a regression.
	fast := run(t, compare.Options{}, in("slow", slow), in("base", base))
	if n := len(fast.Regressions(0)); n != 0 {
		t.Errorf("a 2x speed-up counted %d regressions", n)
	}
}

// Two draws of one distribution differ by chance only: across many draws,
// about alpha of the rows may come out significant, never most of them.
func TestSameDistributionIsNot(t *testing.T) {
	tests, sig := 0, 0
	for i := int64(1); i <= 20; i++ {
		a := doc(t, testdoc.Options{Seed: 1, Redraw: 1000 + i})
		b := doc(t, testdoc.Options{Seed: 1, Redraw: 2000 + i})
		c := run(t, compare.Options{}, in("a", a), in("b", b))
		for _, r := range c.Tables[0].Rows {
			tests++
			if r.Deltas[1].Significant {
				sig++
			}
		}
	}
	// Expect 5%; a wide margin keeps the test about the method, not luck
	// (the draws are seeded, so it is deterministic anyway).
	if frac := float64(sig) / float64(tests); frac > 0.15 {
		t.Errorf("%d of %d comparisons of one distribution were significant (%.0f%%)", sig, tests, 100*frac)
	}
	a := doc(t, testdoc.Options{Seed: 1, Redraw: 1001})
	b := doc(t, testdoc.Options{Seed: 1, Redraw: 2001})
	c := run(t, compare.Options{}, in("a", a), in("b", b))
	var buf bytes.Buffer
	if err := render.CompareText(&buf, c); err != nil {
		t.Fatal(err)
	}
	testdoc.Golden(t, "same.txt", buf.Bytes())
	if !strings.Contains(buf.String(), "≈ [") {
		t.Error("no row printed as ≈ (not resolved)")
	}
}

func TestGoldenFormats(t *testing.T) {
	base := doc(t, testdoc.Options{Seed: 1, Experiments: true})
	slow := doc(t, testdoc.Options{Seed: 1, Scale: 2, Runs: 8})
	slow.Environment.Kernel = "6.12.0-other"
	slow.Environment.Mitigations = map[string]string{"spectre_v2": "Vulnerable", "retbleed": "Mitigation: untrained return thunk"}
	slow.Environment.Idle.Driver = "acpi_idle"
	c := run(t, compare.Options{}, in("base", base), in("slow", slow))
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"shift.txt", func(b *bytes.Buffer) error { return render.CompareText(b, c) }},
		{"shift.md", func(b *bytes.Buffer) error { return formats.CompareMarkdown(b, c) }},
		{"shift.csv", func(b *bytes.Buffer) error { return formats.CompareCSV(b, c) }},
	} {
		var buf bytes.Buffer
		if err := f.write(&buf); err != nil {
			t.Fatal(err)
		}
		testdoc.Golden(t, f.name, buf.Bytes())
	}
	var text bytes.Buffer
	_ = render.CompareText(&text, c)
	for _, want := range []string{
		"kernel differs: 6.1.0-test (base) vs 6.12.0-other (slow)",
		"mitigation spectre_v2 differs",
		"idle differs",
		"fewer than 10 samples",
		"geomean",
		"base is a dry run",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("the comparison does not say %q", want)
		}
	}
}

// --ignore-placement compares a same-cpu file with a cross-cpu one by
// benchmark name; a file with two placements of one benchmark is refused.
func TestIgnorePlacement(t *testing.T) {
	same := doc(t, testdoc.Options{Seed: 1, Only: []model.Placement{model.SameCPU}})
	cross := doc(t, testdoc.Options{Seed: 1, Only: []model.Placement{model.CrossCPU}})
	c := run(t, compare.Options{}, in("same", same), in("cross", cross))
	if c.Tests() != 0 {
		t.Errorf("%d tests across placements without --ignore-placement", c.Tests())
	}
	if len(c.Hints) == 0 || !strings.Contains(strings.Join(c.Hints, " "), "--ignore-placement") {
		t.Errorf("no hint to use --ignore-placement: %q", c.Hints)
	}
	c = run(t, compare.Options{IgnorePlacement: true}, in("same", same), in("cross", cross))
	if c.Tests() == 0 {
		t.Fatal("nothing compared with --ignore-placement")
	}
	for _, r := range c.Tables[0].Rows {
		if r.Deltas[1].Tested && (!r.Deltas[1].Significant || r.Deltas[1].Change < 1) {
			t.Errorf("%s: same-cpu vs cross-cpu (6x in the fake) not a significant slowdown: %+v", r.Name, r.Deltas[1])
		}
	}
	var buf bytes.Buffer
	_ = render.CompareText(&buf, c)
	testdoc.Golden(t, "placement.txt", buf.Bytes())
	if !strings.Contains(buf.String(), "same (same-cpu)") || !strings.Contains(buf.String(), "cross (cross-cpu)") {
		t.Error("the columns do not say their placement")
	}
	// A column of mixed placements has cells that say theirs, whatever its
	// label looks like (a label ending in ")" once passed for a placement).
	mixed := doc(t, testdoc.Options{Seed: 1, Only: []model.Placement{model.SameCPU}})
	mixed.Results[0].Placement = string(model.CrossCPU)
	c = run(t, compare.Options{IgnorePlacement: true}, in("base", same), in("run (v2)", mixed))
	buf.Reset()
	_ = render.CompareText(&buf, c)
	if !strings.Contains(buf.String(), "[cross-cpu]") {
		t.Errorf("cells of a mixed column labelled %q do not say their placement:\n%s", "run (v2)", buf.String())
	}
	both := doc(t, testdoc.Options{Seed: 1})
	if _, err := compare.Compare([]compare.Input{in("both", both), in("cross", cross)}, compare.Options{IgnorePlacement: true}); err == nil {
		t.Error("two placements of one benchmark accepted with IgnorePlacement")
	}
}

func TestBadOptions(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1})
	for _, a := range []float64{-1, 1, 2} {
		if _, err := compare.Compare([]compare.Input{in("a", d)}, compare.Options{Alpha: a}); err == nil {
			t.Errorf("alpha %v accepted", a)
		}
	}
	if _, err := compare.Compare(nil, compare.Options{}); err == nil {
		t.Error("no inputs accepted")
	}
}

// learnedDoc is a draw of the fake ladder whose figures carry a
// reproducibility interval learned from sittings whose medians moved by
// sittingCV: what a machine that ran `ctxbench aa` writes.
func learnedDoc(t *testing.T, redraw int64, scale, sittingCV float64) *result.Document {
	t.Helper()
	d := doc(t, testdoc.Options{Seed: 1, Redraw: redraw, Scale: scale})
	rng := rand.New(rand.NewSource(7))
	var sittings []stats.Sitting
	for range 8 {
		m := 1 + sittingCV*rng.NormFloat64()
		sittings = append(sittings, stats.Sitting{SittingFigure: stats.SittingFigure{Median: m, CILow: m * 0.99, CIHigh: m * 1.01, Confidence: 0.95, Blocks: 10}})
	}
	b := stats.BetweenSittings(sittings)
	for i := range d.Results {
		s := &d.Results[i].OneWayNS
		rp, ok := stats.Reproducibility(s.Median, s.CILow, s.CIHigh, s.Confidence, s.Blocks, b, 0.95)
		if !ok {
			t.Fatalf("%s: no reproducibility", d.Results[i].Name)
		}
		s.Reproducibility = &result.Reproducibility{Low: rp.Low, High: rp.High, Confidence: rp.Confidence, Sittings: rp.Sittings, BetweenCV: rp.BetweenCV, Component: b, Prior: &b}
	}
	return d
}

// Two sittings of one machine that moves 5% between sittings: a 3% change
// is within reproducibility (the within-sitting test alone calls it), a
// 2x one is not; and the comparison says which interval it tested against.
func TestLearnedReproducibility(t *testing.T) {
	base := learnedDoc(t, 1, 1, 0.05)
	same := learnedDoc(t, 2, 1.03, 0.05)
	c := run(t, compare.Options{}, in("base", base), in("same", same))
	blocksOnly := 0
	for _, r := range c.Tables[0].Rows {
		d := r.Deltas[1]
		if d.Unit != "sittings" {
			t.Errorf("%s %s: tested by %s, want against reproducibility", r.Name, r.Placement, d.Unit)
		}
		if d.Significant {
			t.Errorf("%s %s: +3%% called different on a machine whose sittings move 5%%", r.Name, r.Placement)
		}
		base, cur := r.Cells[0], r.Cells[1]
		if stats.CompareBlocks(base.Samples, base.Sizes, cur.Samples, cur.Sizes, 0.05).Resolved {
			blocksOnly++
		}
	}
	if blocksOnly == 0 {
		t.Error("the within-sitting test saw no change either: the test shows nothing")
	}
	if c.Tables[0].Reproducible != len(c.Tables[0].Rows) || !strings.Contains(strings.Join(c.Hints, "\n"), "against reproducibility") {
		t.Errorf("%d of %d rows tested against reproducibility; hints %q", c.Tables[0].Reproducible, len(c.Tables[0].Rows), c.Hints)
	}
	slow := learnedDoc(t, 2, 2, 0.05)
	for _, r := range run(t, compare.Options{}, in("base", base), in("slow", slow)).Tables[0].Rows {
		if d := r.Deltas[1]; !d.Significant || d.Unit != "sittings" {
			t.Errorf("%s %s: a 2x change not found against reproducibility (%+v)", r.Name, r.Placement, d)
		}
	}
	// Another kernel on the same machine is another build: the machine's
	// spread still judges the change, and the hint names what differs.
	other := learnedDoc(t, 2, 1.03, 0.05)
	other.Environment.Kernel = "6.2.0-other"
	c = run(t, compare.Options{}, in("base", base), in("other", other))
	if c.Tables[0].Reproducible != len(c.Tables[0].Rows) || !strings.Contains(strings.Join(c.Hints, "\n"), "different builds under test (kernel)") {
		t.Errorf("another kernel: %d of %d rows against reproducibility; hints %q", c.Tables[0].Reproducible, len(c.Tables[0].Rows), c.Hints)
	}
	// Another machine: precision only, and said.
	far := learnedDoc(t, 2, 1.03, 0.05)
	far.Environment.Hostname = "elsewhere"
	c = run(t, compare.Options{}, in("base", base), in("far", far))
	if c.Tables[0].Reproducible != 0 || !strings.Contains(strings.Join(c.Hints, "\n"), "different machines") {
		t.Errorf("another machine: %d rows against reproducibility; hints %q", c.Tables[0].Reproducible, c.Hints)
	}
}

// compare warns about every field of the history's fingerprint that
// differs, those it has words for and those it has not: the fingerprint
// is the one list of what makes two runs unlike.
func TestEnvironmentCheckCoversTheFingerprint(t *testing.T) {
	a := doc(t, testdoc.Options{Seed: 1})
	b := doc(t, testdoc.Options{Seed: 1})
	b.Environment.CPU.Microcode = "0xdeadbeef"
	b.Settings.SamplesPerBlock = a.Settings.SamplesPerBlock + 3
	b.Settings.MinTimeNS = a.Settings.MinTimeNS + 1_000_000
	b.Environment.Kernel = "6.99.0-other"
	c := run(t, compare.Options{}, in("a", a), in("b", b))
	all := strings.Join(c.EnvDiffs, "\n")
	for _, want := range []string{"microcode differs: ", "samples per block differs: ", "min time ns differs: ", "kernel differs: "} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among the differences:\n%s", want, all)
		}
	}
	if want := fmt.Sprintf("min time ns differs: %d (a) vs %d (b)", a.Settings.MinTimeNS, b.Settings.MinTimeNS); !strings.Contains(all, want) {
		t.Errorf("no %q (whole numbers as recorded) among the differences:\n%s", want, all)
	}
	if strings.Count(all, "kernel differs") != 1 {
		t.Errorf("the kernel is warned about more than once:\n%s", all)
	}
	_, key, _ := result.FingerprintOf(a)
	if _, key2, _ := result.FingerprintOf(b); key == key2 {
		t.Error("the fingerprints of unlike runs are equal")
	}
	same := run(t, compare.Options{}, in("a", a), in("a2", doc(t, testdoc.Options{Seed: 1})))
	if len(same.EnvDiffs) != 0 {
		t.Errorf("like runs differ: %v", same.EnvDiffs)
	}
}

// hostDoc is learnedDoc on a host whose probe read probe for every block:
// the samples slowed by (probe/280 µs)^0.75, with host-adjusted figures and
// an adjusted spread learned from sittings that moved by 1%.
func hostDoc(t *testing.T, redraw int64, scale, probe float64) *result.Document {
	t.Helper()
	d := learnedDoc(t, redraw, scale, 0.05)
	var sittings []stats.Sitting
	for k := range 8 {
		m := 1 + 0.01*float64(k%3-1)
		sittings = append(sittings, stats.Sitting{SittingFigure: stats.SittingFigure{Median: m, CILow: m * 0.99, CIHigh: m * 1.01, Confidence: 0.95, Blocks: 10}})
	}
	adjB := stats.BetweenSittings(sittings)
	d.HostState = &result.HostState{ReferenceNS: 280000, Slope: stats.Slope{Beta: 0.75, Lo: 0.7, Hi: 0.8, Applied: 0.75, OK: true}, Sittings: 8}
	f := math.Pow(probe/280000, 0.75)
	for i := range d.Results {
		r := &d.Results[i]
		for j := range r.Samples {
			r.Samples[j] *= f
		}
		for b := range r.BlockInfo {
			r.BlockInfo[b].HostProbeNS = probe
		}
		r.OneWayNS.Summary = stats.SummarizeBlocks(r.Samples, result.BlockSizes(r.BlockInfo))
		a, ok := stats.Adjusted(stats.FigureOf(r.OneWayNS.Summary), stats.BlockMedians(r.Samples, result.BlockSizes(r.BlockInfo)), result.BlockProbes(r.BlockInfo), 280000, 0.75)
		if !ok {
			t.Fatalf("%s: cannot adjust", r.Name)
		}
		r.HostAdjusted = &result.HostAdjusted{ProbeNS: probe, Slow: probe/280000 - 1, Median: a.Median, CILow: a.CILow, CIHigh: a.CIHigh, Confidence: a.Confidence,
			Reproducibility: &result.Reproducibility{Sittings: 8, Component: adjB, Prior: &adjB}}
	}
	return d
}

// The base ran on a host at its usual speed, the new file on one 40%
// slower (its probe): the measured medians differ by about 29%, which the
// host-adjusted test takes out — identical code is not called different,
// and the hint says the change was tested on adjusted figures; a real +12%
// on the slow host is still found.
func TestHostAdjustedComparison(t *testing.T) {
	base := hostDoc(t, 1, 1, 280000)
	slow := hostDoc(t, 2, 1, 280000*1.4)
	c := run(t, compare.Options{}, in("base", base), in("slow", slow))
	for _, r := range c.Tables[0].Rows {
		d := r.Deltas[1]
		if !d.HostAdjusted || d.Significant || d.MeasuredChange < 0.2 {
			t.Errorf("%s: %+v: want tested on adjusted figures, not called different, the measured change shown", r.Name, d)
		}
	}
	if c.Tables[0].HostAdjusted != len(c.Tables[0].Rows) || !strings.Contains(strings.Join(c.Hints, "\n"), "host-adjusted figures") {
		t.Errorf("%d of %d rows adjusted; hints %q", c.Tables[0].HostAdjusted, len(c.Tables[0].Rows), c.Hints)
	}
	faster := hostDoc(t, 2, 1.12, 280000*1.4)
	for _, r := range run(t, compare.Options{}, in("base", base), in("faster", faster)).Tables[0].Rows {
		if d := r.Deltas[1]; !d.Significant || d.Change < 0.08 || d.Change > 0.16 {
			t.Errorf("%s: a real +12%% on a slow host: %+v", r.Name, d)
		}
	}
}

// Sets of sittings: three files a side, sittings the unit. A +20% change on
// every row is found (against the machine's learned spread); three more
// sittings of the same set-up are not called different; each side's cell
// is the geometric mean of its medians, with N the sittings.
func TestCompareSets(t *testing.T) {
	set := func(first int64, scale float64) []compare.Input {
		var out []compare.Input
		for k := range int64(3) {
			out = append(out, in(fmt.Sprint("s", first+k), learnedDoc(t, first+k, scale, 0.02)))
		}
		return out
	}
	before := set(1, 1)
	c, err := compare.CompareSets(before, set(10, 1.2), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Inputs) != 2 || c.Inputs[0].Label != "before (3)" || len(c.Sets) != 2 {
		t.Fatalf("inputs %+v", c.Inputs)
	}
	for _, r := range c.Tables[0].Rows {
		d := r.Deltas[1]
		if !d.Tested || !d.Significant || d.Unit != stats.UnitSets || d.N1 != 3 || d.N2 != 3 || d.Change < 0.15 || d.Change > 0.25 {
			t.Errorf("%s %s: +20%% across sets: %+v", r.Name, r.Placement, d)
		}
		if cell := r.Cells[0]; cell.Summary.N != 3 || !(cell.Summary.CILow <= cell.Summary.Median && cell.Summary.Median <= cell.Summary.CIHigh) {
			t.Errorf("%s: before cell %+v", r.Name, cell.Summary)
		}
	}
	same, err := compare.CompareSets(before, set(20, 1), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	called := 0
	for _, r := range same.Tables[0].Rows {
		if r.Deltas[1].Significant {
			called++
		}
	}
	if called > 1 {
		t.Errorf("identical set-ups: %d of %d rows called different", called, len(same.Tables[0].Rows))
	}
	if _, err := compare.CompareSets(nil, before, compare.Options{}); err == nil {
		t.Error("an empty side was accepted")
	}
}

// A set whose files' fingerprints differ names the fields that do, also
// one the first file leaves out (no commit recorded) and another has.
func TestCompareSetsNamesTheBuildPartsThatDiffer(t *testing.T) {
	a, b := doc(t, testdoc.Options{Seed: 1}), doc(t, testdoc.Options{Seed: 2})
	a.Tool.Commit, b.Tool.Commit = "", "0123abcd"
	c, err := compare.CompareSets([]compare.Input{in("a", a), in("b", b)}, []compare.Input{in("c", doc(t, testdoc.Options{Seed: 3}))}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	hints := strings.Join(c.Hints, "\n")
	if !strings.Contains(hints, "the before set's files do not share one fingerprint (commit)") {
		t.Errorf("the before set's differing commit is not named:\n%s", hints)
	}
	if strings.Contains(hints, "the after set") {
		t.Errorf("a set of one file called unlike itself:\n%s", hints)
	}
}
