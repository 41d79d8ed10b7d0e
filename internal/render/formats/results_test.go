package formats_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"golang.org/x/perf/benchfmt"

	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
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
	if err := formats.CSV(&buf, d); err != nil {
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
	if err := formats.Markdown(&buf, d); err != nil {
		t.Fatal(err)
	}
	testdoc.Golden(t, "fake.md", buf.Bytes())
	// Each table (the ladder's, then creation's and memory's under their
	// headings) has rows of its header's width; all rows are there.
	tables, rows, cols := 0, 0, -1
	for _, l := range strings.Split(buf.String(), "\n") {
		if !strings.HasPrefix(l, "|") {
			cols = -1
			continue
		}
		n := strings.Count(l, "|")
		if cols < 0 {
			cols = n
			tables++
		}
		if n != cols {
			t.Errorf("table row with %d cells, the header has %d: %s", n-1, cols-1, l)
		}
		rows++
	}
	if want := 2*3 + len(d.Results) + len(d.Spawn) + len(d.Memory); tables != 3 || rows != want {
		t.Errorf("%d tables of %d lines in all, want 3 tables (switches, creation, memory) of %d", tables, rows, want)
	}
}

// The Go benchmark format must be what benchstat reads: parse it back with
// x/perf/benchfmt and count one result per block (blocks, not samples, are
// independent).
func TestGoBench(t *testing.T) {
	d := fake(t)
	var buf bytes.Buffer
	if err := formats.GoBench(&buf, d); err != nil {
		t.Fatal(err)
	}
	testdoc.Golden(t, "fake.gobench.txt", buf.Bytes())
	want := 0
	for _, r := range d.Results {
		want += len(r.BlockInfo)
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
		t.Errorf("benchfmt read %d results, want one per block (%d)", got, want)
	}
}
