package formats_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// compareOf compares a fake base with the same fake at twice the time, on
// another kernel, with a third file that has only the same-CPU rows.
func compareOf(t *testing.T) *compare.Comparison {
	t.Helper()
	base, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	slow, err := testdoc.Doc(testdoc.Options{Seed: 1, Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	slow.Environment.Kernel = "6.2.0-test"
	part, err := testdoc.Doc(testdoc.Options{Seed: 1, Redraw: 3, Only: nil})
	if err != nil {
		t.Fatal(err)
	}
	part.Results = part.Results[:3]
	c, err := compare.Compare([]compare.Input{
		{Label: "old", Path: "dir/old.json", Doc: base},
		{Label: "new", Path: "dir/new.json", Doc: slow},
		{Label: "part", Path: "-", Doc: part},
	}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The JSON form holds the whole comparison: decoded, every figure, change,
// note, hint and environment difference the text shows is there, numbers
// unrounded and footnotes as their text.
func TestCompareJSON(t *testing.T) {
	c := compareOf(t)
	var buf bytes.Buffer
	if err := formats.CompareJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	var doc formats.CompareDoc
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if doc.Alpha != 0.05 || len(doc.Inputs) != 3 || doc.Inputs[0].Label != "old" || doc.Inputs[1].Path != "dir/new.json" || doc.Inputs[2].Path != "-" || !doc.Inputs[0].DryRun {
		t.Errorf("inputs %+v, alpha %v", doc.Inputs, doc.Alpha)
	}
	if len(doc.Tables) != len(c.Tables) {
		t.Fatalf("%d tables, the comparison has %d", len(doc.Tables), len(c.Tables))
	}
	ladder := doc.Tables[0]
	if ladder.Title != "switch ladder" || ladder.Unit != "ns/hop" || len(ladder.Rows) != len(c.Tables[0].Rows) {
		t.Fatalf("ladder table %q %q with %d rows", ladder.Title, ladder.Unit, len(ladder.Rows))
	}
	checkLadderRows(t, c, ladder)
	checkFootnotes(t, c, doc)
	g := ladder.Geomean
	if g == nil || len(g.Changes) != 2 || g.Changes[0].Tested || g.Changes[0].Unit != nil || g.Changes[0].Low != nil ||
		g.Changes[0].P != nil || g.Figures[0].CILow != nil {
		t.Errorf("geomean %+v", g)
	}
	if len(doc.Hints) == 0 || len(doc.Hints) != len(c.Hints) {
		t.Errorf("hints %q, want %q", doc.Hints, c.Hints)
	}
	if !strings.Contains(strings.Join(doc.EnvDiffs, "\n"), "kernel differs: 6.1.0-test (old) vs 6.2.0-test (new)") {
		t.Errorf("env diffs %q", doc.EnvDiffs)
	}
	if doc.Resolvable == nil || *doc.Resolvable <= 0 {
		t.Errorf("resolvable %v", doc.Resolvable)
	}
	// The rings and creation tables of the base alone are there too, with
	// figures and no changes.
	titles := []string{}
	for _, tb := range doc.Tables {
		titles = append(titles, tb.Title)
	}
	if strings.Join(titles, ",") != "switch ladder,rings (raw),creation" {
		t.Errorf("tables %q", titles)
	}
	checkContract(t, buf.Bytes())
}

// checkLadderRows: each row of the ladder's table is the comparison's,
// with a figure per file that has it (its median and interval as the
// summary's) and a tested change per file after the base, inside its own
// interval; twice the time reads as +100%.
func checkLadderRows(t *testing.T, c *compare.Comparison, ladder formats.CompareTable) {
	t.Helper()
	for ri, row := range ladder.Rows {
		src := c.Tables[0].Rows[ri]
		if row.Name != src.Name || row.Placement != src.Placement {
			t.Errorf("row %d is %s %s, want %s %s", ri, row.Name, row.Placement, src.Name, src.Placement)
		}
		want := 2
		if ri < 3 {
			want = 3 // the third file has the first three rows only
		}
		if len(row.Figures) != want || len(row.Changes) != want-1 {
			t.Fatalf("%s %s: %d figures and %d changes, want %d and %d", row.Name, row.Placement, len(row.Figures), len(row.Changes), want, want-1)
		}
		for _, fig := range row.Figures {
			i := map[string]int{"old": 0, "new": 1, "part": 2}[fig.Input]
			s := src.Cells[i].Summary
			if fig.Median == nil || *fig.Median != s.Median || fig.N != s.N || fig.CILow == nil || *fig.CILow != s.CILow ||
				fig.CIHigh == nil || *fig.CIHigh != s.CIHigh || fig.Confidence == nil || fig.Interval != stats.IntervalBlocks {
				t.Errorf("%s %s %s: figure %+v, summary %+v", row.Name, row.Placement, fig.Input, fig, s)
			}
		}
		for _, ch := range row.Changes {
			if ch.Base != "old" || !ch.Tested || ch.Unit == nil || *ch.Unit != "blocks" || ch.Change == nil || ch.Low == nil ||
				ch.High == nil || ch.Confidence == nil || ch.P == nil || ch.NBase == 0 || ch.N == 0 {
				t.Fatalf("%s %s %s: change %+v", row.Name, row.Placement, ch.Input, ch)
			}
			if *ch.Low > *ch.Change || *ch.High < *ch.Change {
				t.Errorf("%s %s %s: the change %v is outside its interval [%v, %v]", row.Name, row.Placement, ch.Input, *ch.Change, *ch.Low, *ch.High)
			}
			if ch.Input == "new" && (math.Abs(*ch.Change-1) > 1e-9 || !ch.Significant || *ch.Low <= 0) {
				t.Errorf("%s %s: twice the time reads as %+v", row.Name, row.Placement, ch)
			}
			for _, n := range ch.Notes {
				if n == "" || strings.ContainsAny(n[:1], "0123456789") {
					t.Errorf("a note is not its text: %q", n)
				}
			}
		}
	}
}

// checkFootnotes: every footnote is where it applies, as its text.
func checkFootnotes(t *testing.T, c *compare.Comparison, doc formats.CompareDoc) {
	t.Helper()
	seen := map[string]bool{}
	for _, tb := range doc.Tables {
		rows := tb.Rows
		if tb.Geomean != nil {
			rows = append(rows, *tb.Geomean)
		}
		for _, r := range rows {
			for _, fig := range r.Figures {
				for _, n := range fig.Notes {
					seen[n] = true
				}
			}
			for _, ch := range r.Changes {
				for _, n := range ch.Notes {
					seen[n] = true
				}
			}
		}
	}
	if len(c.Notes) == 0 {
		t.Error("the test comparison has no footnotes to look for")
	}
	for _, n := range c.Notes {
		if !seen[n] {
			t.Errorf("footnote %q is nowhere in the JSON", n)
		}
	}
}

// checkContract: the field names are the contract scripts read.
func checkContract(t *testing.T, b []byte) {
	t.Helper()
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"alpha", "inputs", "tables", "phases", "attach", "shared", "env_diffs", "hints", "resolvable"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("no %q in the document", k)
		}
	}
	ch := raw["tables"].([]any)[0].(map[string]any)["rows"].([]any)[0].(map[string]any)["changes"].([]any)[0].(map[string]any)
	for _, k := range []string{"input", "base", "change", "low", "high", "confidence", "p", "unit", "significant", "notes"} {
		if _, ok := ch[k]; !ok {
			t.Errorf("no %q in a change", k)
		}
	}
}

// Two attaches compared: each target of the base against the same target
// of the other file, every figure with its whole-run values and the tested
// change of its windows inside its interval; a rate cut by a fifth reads
// as a resolved −20%.
func TestCompareJSONAttach(t *testing.T) {
	base := &result.Document{Attach: testdoc.Attach(false), Results: []result.Result{}}
	after := &result.Document{Attach: testdoc.Attach(false), Results: []result.Result{}}
	for i := range after.Attach.Targets {
		for j := range after.Attach.Targets[i].Windows {
			after.Attach.Targets[i].Windows[j].SwitchesPerS *= 0.8
		}
		after.Attach.Targets[i].SwitchesPerS.Value *= 0.8
	}
	c, err := compare.Compare([]compare.Input{{Label: "before", Doc: base}, {Label: "after", Doc: after}}, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := formats.CompareJSON(&buf, c); err != nil {
		t.Fatal(err)
	}
	var doc formats.CompareDoc
	dec := json.NewDecoder(bytes.NewReader(buf.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("%v\n%s", err, buf.String())
	}
	if len(doc.Attach) != len(base.Attach.Targets) || len(doc.Attach) == 0 {
		t.Fatalf("%d attach targets, the base has %d", len(doc.Attach), len(base.Attach.Targets))
	}
	for _, a := range doc.Attach {
		if a.Input != "after" || a.Target == "" || len(a.Figures) != 4 {
			t.Fatalf("target %+v", a)
		}
		for _, f := range a.Figures {
			if !f.Tested || f.Change == nil || f.Low == nil || f.High == nil || f.Confidence == nil || f.Windows == 0 || f.BaseWindows == 0 {
				t.Errorf("%s %s: %+v", a.Target, f.Figure, f)
				continue
			}
			if *f.Low > *f.Change || *f.High < *f.Change {
				t.Errorf("%s %s: the change %v is outside [%v, %v]", a.Target, f.Figure, *f.Change, *f.Low, *f.High)
			}
			switch f.Figure {
			case "switches per second":
				if math.Abs(*f.Change+0.2) > 1e-9 || !f.Resolved || math.Abs(f.Cur/f.Base-0.8) > 1e-9 {
					t.Errorf("%s: a fifth fewer switches reads as %+v", a.Target, f)
				}
			case "ns per switch":
				if math.Abs(*f.Change) > 1e-9 || f.Resolved {
					t.Errorf("%s: an unchanged cost reads as %+v", a.Target, f)
				}
			}
		}
	}
	var raw struct {
		Attach []struct {
			Figures []map[string]any `json:"figures"`
		} `json:"attach"`
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"figure", "base", "cur", "change", "low", "high", "confidence", "tested", "resolved", "base_windows", "windows"} {
		if _, ok := raw.Attach[0].Figures[0][k]; !ok {
			t.Errorf("no %q in an attach figure", k)
		}
	}
}
