package render_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// fake is the document every golden file is made from: the real scheduler
// and aggregation over schedule.FakeExecutor, on a fixed fake machine.
func fake(t *testing.T) *result.Document {
	t.Helper()
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// shown is what a view prints laid out for st, as the command line shows
// it (render.Fit).
func shown(st render.Style, show func(w io.Writer, st render.Style)) string {
	var b bytes.Buffer
	fw := render.Fit(&b, st)
	show(fw, st)
	_ = fw.Flush()
	return b.String()
}

// fits fails for a line wider than width or ending in a space.
func fits(t *testing.T, what, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if render.Width(l) > width {
			t.Errorf("%s line %d is %d columns, wider than %d: %q", what, i+1, render.Width(l), width, l)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("%s line %d ends in a space: %q", what, i+1, l)
		}
	}
}

func TestLadder(t *testing.T) {
	d := fake(t)
	var plain, color bytes.Buffer
	plain.WriteString(shown(render.Style{}, func(w io.Writer, st render.Style) { render.Ladder(w, d, st) }))
	color.WriteString(shown(render.Style{Color: true}, func(w io.Writer, st render.Style) { render.Ladder(w, d, st) }))
	narrow := shown(render.Style{Width: 80}, func(w io.Writer, st render.Style) { render.Ladder(w, d, st) })
	wide := shown(render.Style{Wide: true}, func(w io.Writer, st render.Style) { render.Ladder(w, d, st) })
	testdoc.Golden(t, "fake.ladder.txt", plain.Bytes())
	testdoc.Golden(t, "fake.ladder-color.txt", color.Bytes())
	testdoc.Golden(t, "fake.ladder-80.txt", []byte(narrow))
	testdoc.Golden(t, "fake.ladder-wide.txt", []byte(wide))
	fits(t, "the ladder at 100 columns", plain.String(), 100)
	fits(t, "the ladder at 80 columns", narrow, 80)
	// What a narrow view leaves out is named, and --wide shows it all.
	for _, head := range []string{"RUNG", "TSC TICKS", "p10–p90", "× GOROUTINE"} {
		if !strings.Contains(wide, head) {
			t.Errorf("--wide lacks %s", head)
		}
		if !strings.Contains(narrow, head) {
			t.Errorf("at 80 columns %s is neither shown nor named as left out", head)
		}
	}
	if bytes.Contains(plain.Bytes(), []byte("\x1b[")) {
		t.Error("the plain table has escape sequences")
	}
	if !bytes.Contains(color.Bytes(), []byte("\x1b[")) {
		t.Error("the coloured table has no colour")
	}
	for _, r := range d.Results {
		if !strings.Contains(plain.String(), r.Name) {
			t.Errorf("the table misses %s", r.Name)
		}
	}
	if !strings.Contains(plain.String(), "DRY RUN") {
		t.Error("a dry run is not marked as such")
	}
}

func TestEnvironment(t *testing.T) {
	d := fake(t)
	out := shown(render.Style{}, func(w io.Writer, st render.Style) { render.Environment(w, d.Environment, st) })
	testdoc.Golden(t, "fake.env.txt", []byte(out))
	fits(t, "env", out, 100)
}

// Rows that ctxbench explain split get a short "where the time goes" block
// under the ladder; rows without explain data get none.
func TestLadderWhereTheTimeGoes(t *testing.T) {
	d := fake(t)
	var plain bytes.Buffer
	render.Ladder(&plain, d, render.Style{})
	if strings.Contains(plain.String(), "where the time goes") {
		t.Fatal("a ladder without explain data printed the block")
	}
	d.Results[0].Explain = &result.Explain{TracedMeanNS: 6000, Closure: 1, Phases: []result.ExplainPhase{
		{Name: "small", NsPerHop: 10}, {Name: "large", NsPerHop: 3000}, {Name: "middle", NsPerHop: 1000}, {Name: "fourth", NsPerHop: 900}}}
	var b bytes.Buffer
	render.Ladder(&b, d, render.Style{})
	out := b.String()
	i := strings.Index(out, "where the time goes")
	if i < 0 || !strings.Contains(out[i:], "3.00 µs large; 1.00 µs middle; 900 ns fourth") || strings.Contains(out[i:], "small") {
		t.Errorf("the block:\n%s", out[max(i, 0):])
	}
}

// Every surface says which interval it shows: the precision interval
// always, the reproducibility interval where the machine learned it (a
// pooled one marked), and without it one plain line that says the
// intervals cover this sitting only and which command learns the rest.
func TestIntervalsSayWhatTheyCover(t *testing.T) {
	d := fake(t)
	surfaces := func(d *result.Document) map[string]string {
		out := map[string]string{}
		var b bytes.Buffer
		render.Ladder(&b, d, render.Style{})
		out["ladder"] = b.String()
		b.Reset()
		if err := formats.Markdown(&b, d); err != nil {
			t.Fatal(err)
		}
		out["markdown"] = b.String()
		return out
	}
	for name, s := range surfaces(d) {
		if !strings.Contains(s, "covers this sitting only") || !strings.Contains(s, "ctxbench aa") || strings.Contains(s, "REPRO = ") || strings.Contains(s, "Reproducibility = ") {
			t.Errorf("%s without a learned machine does not say its intervals cover one sitting:\n%s", name, s)
		}
	}
	for i, pooled := range [][]string{nil, {"thread/pipe same-cpu"}} {
		r := &d.Results[i]
		m := r.OneWayNS.Median
		r.OneWayNS.Reproducibility = &result.Reproducibility{Low: 0.9 * m, High: 1.1 * m, Confidence: 0.95, Sittings: 6, BetweenCV: 0.03, PooledFrom: pooled}
	}
	d.Settings.DryRun = false
	d.History = &result.History{Fingerprint: "f", Before: 5, Recorded: true}
	for name, s := range surfaces(d) {
		if strings.Contains(s, "covers this sitting only") {
			t.Errorf("%s says no interval is learned though two rows have one", name)
		}
		if !strings.Contains(s, "′") || !strings.Contains(s, "pooled") {
			t.Errorf("%s does not mark the pooled reproducibility interval", name)
		}
	}
	if s := surfaces(d)["ladder"]; !strings.Contains(s, "±REPRO") || !strings.Contains(s, "±10%") {
		t.Errorf("the ladder does not show ±REPRO:\n%s", s)
	}
	var b bytes.Buffer
	if err := formats.CSV(&b, d); err != nil {
		t.Fatal(err)
	}
	recs, _ := csv.NewReader(&b).ReadAll()
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if recs[1][col["repro_sittings"]] != "6" || recs[3][col["repro_low"]] != "" {
		t.Errorf("CSV: a learned row's repro_sittings %q, an unlearned row's repro_low %q", recs[1][col["repro_sittings"]], recs[3][col["repro_low"]])
	}
}

// A run whose host probe found the host slow in some of a row's blocks:
// the row's footnote says how much slower, in how many blocks, and the
// adjusted figure compare uses; one line under the table says what
// reaches the figures. Both fit 100 columns. A run where no host effect
// was resolved says so instead.
func TestLadderHostState(t *testing.T) {
	d := fake(t)
	d.HostState = &result.HostState{ReferenceNS: 57160, Slope: stats.Slope{Beta: 0.74, Lo: 0.69, Hi: 0.79, Applied: 0.74, OK: true}, Sittings: 12}
	r := &d.Results[2]
	r.HostAdjusted = &result.HostAdjusted{ProbeNS: 64000, Slow: 0.12, SlowBlocks: 4, Median: r.OneWayNS.Median * 0.92,
		CILow: r.OneWayNS.Median * 0.9, CIHigh: r.OneWayNS.Median * 0.94, Confidence: 0.951}
	out := shown(render.Style{}, func(w io.Writer, st render.Style) { render.Ladder(w, d, st) })
	fits(t, "the ladder with the host's state", out, 100)
	for _, want := range []string{"the host ran 12% slower than usual in 4 of", "what compare uses", "host state: every block timed a fixed pointer chase", "0.74 [0.69, 0.79]"} {
		if !strings.Contains(out, want) {
			t.Errorf("the ladder lacks %q:\n%s", want, out)
		}
	}
	d.HostState.Slope.Applied, d.HostState.Note = 0, "no host effect resolved: the blocks' figures did not move with the host's speed"
	r.HostAdjusted = nil
	out = shown(render.Style{}, func(w io.Writer, st render.Style) { render.Ladder(w, d, st) })
	if !strings.Contains(out, "host state: no host effect resolved") || strings.Contains(out, "slower than usual") {
		t.Errorf("nothing adjusted, yet:\n%s", out)
	}
}
