package export_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/ctxbench/ctxbench/internal/export"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// fake is the document every golden file is made from: the real runner
// and aggregation over runner.FakeExecutor, on a fixed fake machine.
func fake(t *testing.T) *result.Document {
	t.Helper()
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestJSON(t *testing.T) {
	d := fake(t)
	b, err := d.Encode()
	if err != nil {
		t.Fatal(err)
	}
	testdoc.Golden(t, "fake.json", b)
	// What was written reads back as the same document.
	back, err := result.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := back.Encode()
	if !bytes.Equal(b, b2) {
		t.Error("the JSON export does not survive a round trip")
	}
}

func TestCSV(t *testing.T) {
	d := fake(t)
	var buf bytes.Buffer
	if err := export.CSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	testdoc.Golden(t, "fake.csv", buf.Bytes())
	recs, err := csv.NewReader(bytes.NewReader(buf.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(d.Results)+1 {
		t.Errorf("%d CSV records, want a header and %d rows", len(recs), len(d.Results))
	}
}

func TestMarkdown(t *testing.T) {
	d := fake(t)
	var buf bytes.Buffer
	if err := export.Markdown(&buf, d); err != nil {
		t.Fatal(err)
	}
	testdoc.Golden(t, "fake.md", buf.Bytes())
	rows, cols := 0, -1
	for _, l := range strings.Split(buf.String(), "\n") {
		if !strings.HasPrefix(l, "|") {
			continue
		}
		n := strings.Count(l, "|")
		if cols < 0 {
			cols = n
		}
		if n != cols {
			t.Errorf("table row with %d cells, the header has %d: %s", n-1, cols-1, l)
		}
		rows++
	}
	if rows != len(d.Results)+2 {
		t.Errorf("%d table lines, want header, rule and %d rows", rows, len(d.Results))
	}
}

// The Go benchmark format must be what benchstat reads: parse it back with
// x/perf/benchfmt and count one result per raw sample.
func TestGoBench(t *testing.T) {
	d := fake(t)
	var buf bytes.Buffer
	if err := export.GoBench(&buf, d); err != nil {
		t.Fatal(err)
	}
	testdoc.Golden(t, "fake.gobench.txt", buf.Bytes())
	want := 0
	for _, r := range d.Results {
		want += len(r.Samples)
	}
	r := benchfmt.NewReader(bytes.NewReader(buf.Bytes()), "fake.gobench.txt")
	got := 0
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.Result:
			got++
			// benchfmt tidies ns/hop into sec/hop, as benchstat shows it.
			if len(rec.Values) != 1 || rec.Values[0].OrigUnit != "ns/hop" || rec.Values[0].Value <= 0 {
				t.Fatalf("%s: want one positive ns/hop value, got %+v", rec.Name.Full(), rec.Values)
			}
		case *benchfmt.SyntaxError:
			t.Errorf("benchfmt: %v", rec)
		}
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("benchfmt read %d results, want one per sample (%d)", got, want)
	}
}

func TestLadder(t *testing.T) {
	d := fake(t)
	var plain, color bytes.Buffer
	export.Ladder(&plain, d, export.Style{})
	export.Ladder(&color, d, export.Style{Color: true})
	testdoc.Golden(t, "fake.ladder.txt", plain.Bytes())
	testdoc.Golden(t, "fake.ladder-color.txt", color.Bytes())
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
	var buf bytes.Buffer
	export.Environment(&buf, d.Environment, export.Style{})
	testdoc.Golden(t, "fake.env.txt", buf.Bytes())
}

// The "× goroutine" column divides by the published table's 1x when it was
// measured, even if another goroutine row is cheaper, so the ladder, the
// hierarchy and the replication all speak of the same multiple; without it,
// the cheapest pure user-space goroutine row stands in.
func TestBaselineIsThePublishedRowWhenMeasured(t *testing.T) {
	row := func(name, pl string, median float64) result.Result {
		return result.Result{Name: name, Rung: "goroutine", Placement: pl, OneWayNS: stats.Summary{N: 10, Median: median}}
	}
	d := &result.Document{Results: []result.Result{
		row("goroutine/gosched", "same-cpu", 50),
		row(export.Hierarchy[0].Name, export.Hierarchy[0].Placement, 150),
	}}
	if got := export.Baseline(d); got != 1 {
		t.Fatalf("Baseline = %d, want the published row (1)", got)
	}
	d.Results = d.Results[:1]
	if got := export.Baseline(d); got != 0 {
		t.Fatalf("without the published row Baseline = %d, want the cheapest goroutine (0)", got)
	}
}

// The vm decomposition appears only with its rows, and the exit comparison
// only when both exits were one real exit per op of the same guest mode.
func TestVMDecomposition(t *testing.T) {
	row := func(name string, median float64, exits, guest string) result.Result {
		r := result.Result{Name: name, Placement: "same-cpu", OneWayNS: stats.Summary{N: 10, Median: median}}
		if exits != "" {
			r.Evidence = map[string]string{"kvm_stats_per_op": "exits=" + exits + " fpu_reload=1.00", "guest": guest}
		}
		return r
	}
	d := &result.Document{Results: []result.Result{
		row("process/pipe", 2600, "", ""),
		row("vm/exit-user", 29000, "1.00", "CPL3"),
		row("vm/exit-kernel", 3000, "1.00", "CPL3"),
		row("vm/switch-user", 34000, "1.00", "CPL3"),
	}}
	lines := export.VMDecomposition(d)
	if len(lines) != 2 || !strings.Contains(lines[0], "adds 26.0 µs") || !strings.Contains(lines[1], "residual 2400 ns") {
		t.Fatalf("decomposition %q", lines)
	}
	d.Results[2] = row("vm/exit-kernel", 3000, "0.00", "CPL3") // an emulated guest made no exit
	if lines := export.VMDecomposition(d); len(lines) != 1 || strings.Contains(lines[0], "VMM adds") {
		t.Fatalf("exit comparison without a real kernel exit: %q", lines)
	}
	d.Results = d.Results[:1]
	if lines := export.VMDecomposition(d); len(lines) != 0 {
		t.Fatalf("decomposition without vm rows: %q", lines)
	}
}
