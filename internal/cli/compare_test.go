package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// writeDoc saves a fake document into dir and returns its path.
func writeDoc(t *testing.T, dir, name string, o testdoc.Options) string {
	t.Helper()
	d, err := testdoc.Doc(o)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := d.Save(p, nil); err != nil {
		t.Fatal(err)
	}
	return p
}

// badFiles are result files that must be refused as bad input.
func badFiles(t *testing.T, dir string) map[string]string {
	good, err := testdoc.Doc(testdoc.Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := good.Encode()
	files := map[string]string{
		"not-json.json":   "this is not JSON\n",
		"truncated.json":  string(enc[:len(enc)/2]),
		"no-schema.json":  `{"results": []}`,
		"schema-99.json":  strings.Replace(string(enc), fmt.Sprintf(`"schema_version": %d`, result.SchemaVersion), `"schema_version": 99`, 1),
		"no-results.json": fmt.Sprintf(`{"schema_version": %d}`, result.SchemaVersion),
		"n-mismatch.json": strings.Replace(string(enc), `"n": 20`, `"n": 21`, 1),
		"wrong-type.json": fmt.Sprintf(`{"schema_version": %d, "results": "many"}`, result.SchemaVersion),
	}
	paths := map[string]string{}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		paths[name] = p
	}
	paths["missing.json"] = filepath.Join(dir, "does-not-exist.json")
	return paths
}

func assertOneLine(t *testing.T, stderr string) {
	t.Helper()
	if n := strings.Count(strings.TrimRight(stderr, "\n"), "\n"); n != 0 || stderr == "" {
		t.Errorf("want exactly one line on stderr, got %q", stderr)
	}
	if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
		t.Errorf("stderr has a stack trace: %q", stderr)
	}
}

func TestCompareRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	good := writeDoc(t, dir, "good.json", testdoc.Options{Seed: 1})
	for name, p := range badFiles(t, dir) {
		for _, args := range [][]string{{"compare", good, p}, {"report", p, "-o", filepath.Join(dir, "r.html")}} {
			code, _, stderr := run(t, args...)
			if code != ExitUsage {
				t.Errorf("%s %s: exit status %d, want %d (stderr %q)", args[0], name, code, ExitUsage, stderr)
			}
			assertOneLine(t, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("a report was written from a bad file")
	}
}

// A well-formed file holding a value no measurement produces is refused by
// compare and report alike: exit status 2 and one line that names the file,
// the row and the field.
func TestCompareAndReportRefuseImpossibleValues(t *testing.T) {
	dir := t.TempDir()
	good := writeDoc(t, dir, "good.json", testdoc.Options{Seed: 1})
	one := 1.0
	for _, c := range []struct {
		name  string
		spoil func(d *result.Document)
		field string // what the line must say after the file's name
	}{
		{"negative-median", func(d *result.Document) { d.Results[3].OneWayNS.Median = -3 },
			"results[3] (thread/pipe same-cpu): one_way_ns.median is -3, not a time"},
		{"zero-median", func(d *result.Document) { d.Results[0].OneWayNS.Median = 0 },
			"results[0] (floor/asm-swap same-cpu): one_way_ns.median is 0, not a time"},
		{"ci-low-above", func(d *result.Document) { d.Results[4].OneWayNS.CILow = d.Results[4].OneWayNS.Median * 1.5 },
			"results[4] (thread/pipe cross-cpu): one_way_ns.ci_low is"},
		{"ci-high-below", func(d *result.Document) { d.Results[4].OneWayNS.CIHigh = d.Results[4].OneWayNS.Median / 2 },
			"results[4] (thread/pipe cross-cpu): one_way_ns.ci_high is"},
		{"repro-beside", func(d *result.Document) {
			m := d.Results[3].OneWayNS.Median
			d.Results[3].OneWayNS.Reproducibility = &result.Reproducibility{Low: m / 3, High: m / 2, Confidence: 0.95, Sittings: 4}
		}, "results[3] (thread/pipe same-cpu): one_way_ns.reproducibility ["},
		{"n-not-samples", func(d *result.Document) { d.Results[1].OneWayNS.N = 3 },
			"results[1] (goroutine/chan-gomaxprocs1 same-cpu): one_way_ns.n is 3 but there are 20 samples"},
		{"blocks-not-block-info", func(d *result.Document) { d.Results[2].Blocks = 4 },
			"results[2] (goroutine/chan-gomaxprocsN cross-cpu): blocks is 4 but block_info lists 10 blocks"},
		{"block-samples-short", func(d *result.Document) { d.Results[2].BlockInfo[9].Samples = 1 },
			"results[2] (goroutine/chan-gomaxprocsN cross-cpu): block_info holds 19 samples in all but there are 20 samples"},
		{"negative-switches", func(d *result.Document) { m := -one; d.Results[6].SwitchesPerHop = &m },
			"results[6] (thread/futex same-cpu): switches_per_hop is -1, not a count"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := testdoc.Doc(testdoc.Options{Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			c.spoil(d)
			enc, err := json.MarshalIndent(d, "", "  ") // not Save: it writes what it is given
			if err != nil {
				t.Fatal(err)
			}
			bad := filepath.Join(dir, c.name+".json")
			if err := os.WriteFile(bad, enc, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, args := range [][]string{{"compare", good, bad}, {"report", "x=" + bad, "-o", filepath.Join(dir, "r.html")}} {
				code, out, stderr := run(t, args...)
				if code != ExitUsage {
					t.Errorf("%s: exit status %d, want %d (stderr %q)", args[0], code, ExitUsage, stderr)
				}
				assertOneLine(t, stderr)
				if want := "ctxbench: " + bad + ": " + c.field; !strings.HasPrefix(stderr, want) {
					t.Errorf("%s: stderr %q, want %q…", args[0], stderr, want)
				}
				if out != "" {
					t.Errorf("%s: wrote %q from a bad file", args[0], out)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("a report was written from a bad file")
	}
}

func TestCompareFlags(t *testing.T) {
	dir := t.TempDir()
	a := writeDoc(t, dir, "a.json", testdoc.Options{Seed: 1})
	for _, args := range [][]string{
		{"compare", a, a, "--alpha", "0"},
		{"compare", a, a, "--alpha", "1.5"},
		{"compare", a, a, "--format", "xml"},
		{"compare", a, a, "--fail-on-regression", "lots"},
		{"compare", a, a, "--fail-on-regression", "-5"},
		{"compare"},
		{"compare", "x=" + a, "x=" + a},
		{"compare", "=" + a},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage {
			t.Errorf("%v: exit status %d, want %d (stderr %q)", args, code, ExitUsage, stderr)
		}
		assertOneLine(t, stderr)
	}
}

func TestCompareRegression(t *testing.T) {
	dir := t.TempDir()
	base := writeDoc(t, dir, "base.json", testdoc.Options{Seed: 1})
	slow := writeDoc(t, dir, "slow.json", testdoc.Options{Seed: 1, Scale: 2})
	same := writeDoc(t, dir, "same.json", testdoc.Options{Seed: 1, Redraw: 7})
	same2 := writeDoc(t, dir, "same2.json", testdoc.Options{Seed: 1, Redraw: 8})

	code, out, stderr := run(t, "compare", "old="+base, "new="+slow, "--fail-on-regression", "10%")
	if code != ExitRegression {
		t.Fatalf("2x slowdown with --fail-on-regression 10%%: exit status %d, want %d; stderr %q", code, ExitRegression, stderr)
	}
	assertOneLine(t, stderr)
	if !strings.Contains(out, "+100") || !strings.Contains(out, " old ") {
		t.Errorf("the table is missing or unlabelled:\n%s", out)
	}
	if code, _, _ := run(t, "compare", base, slow, "--fail-on-regression", "150"); code != ExitOK {
		t.Errorf("a 100%% slowdown failed a 150%% threshold (status %d)", code)
	}
	if code, _, _ := run(t, "compare", slow, base, "--fail-on-regression", "0"); code != ExitOK {
		t.Errorf("a speed-up counted as a regression (status %d)", code)
	}
	code, out, _ = run(t, "compare", same, same2, "--fail-on-regression", "0")
	if code != ExitOK {
		t.Errorf("two draws of one distribution: status %d\n%s", code, out)
	}
	if !strings.Contains(out, "≈ [") {
		t.Errorf("no ≈ (not resolved) in a comparison of two draws:\n%s", out)
	}
	// Without the flag, a regression is reported but the status is 0.
	if code, _, _ := run(t, "compare", base, slow); code != ExitOK {
		t.Errorf("status %d without --fail-on-regression", code)
	}
}

func TestCompareFormats(t *testing.T) {
	dir := t.TempDir()
	base := writeDoc(t, dir, "base.json", testdoc.Options{Seed: 1})
	slow := writeDoc(t, dir, "slow.json", testdoc.Options{Seed: 1, Scale: 2})
	code, out, stderr := run(t, "compare", base, slow, "--format", "csv")
	if code != ExitOK || !strings.HasPrefix(out, "table,figure_unit,name,placement,input,samples,blocks,") {
		t.Errorf("csv: status %d, output %q", code, out)
	}
	if !strings.Contains(stderr, "dry run") {
		t.Errorf("csv: the warnings are not on stderr: %q", stderr)
	}
	code, out, _ = run(t, "compare", base, slow, "--format", "markdown")
	if code != ExitOK || !strings.Contains(out, "| benchmark | placement |") {
		t.Errorf("markdown: status %d, output %q", code, out)
	}
	// JSON: one document on stdout holding what the text shows, nothing
	// on stderr (its notes and warnings are in it); the regression gate
	// works as with text.
	code, out, stderr = run(t, "compare", "old="+base, "new="+slow, "--format", "json", "--fail-on-regression", "10")
	if code != ExitRegression {
		t.Errorf("json: status %d, want %d (stderr %q)", code, ExitRegression, stderr)
	}
	var doc formats.CompareDoc
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		t.Fatalf("json: %v\n%s", err, out)
	}
	if dec.More() {
		t.Error("json: more than one document on stdout")
	}
	if len(doc.Inputs) != 2 || doc.Inputs[0].Label != "old" || doc.Inputs[0].Path != base || doc.Inputs[1].Path != slow || !doc.Inputs[1].DryRun {
		t.Errorf("json: inputs %+v", doc.Inputs)
	}
	if len(doc.Tables) == 0 || len(doc.Tables[0].Rows) == 0 || len(doc.Hints) == 0 {
		t.Fatalf("json: no table rows or hints:\n%s", out)
	}
	for _, r := range doc.Tables[0].Rows {
		if len(r.Figures) != 2 || r.Figures[0].Median == nil || r.Figures[0].CILow == nil || r.Figures[0].CIHigh == nil {
			t.Errorf("json: %s %s figures %+v", r.Name, r.Placement, r.Figures)
			continue
		}
		if len(r.Changes) != 1 {
			t.Errorf("json: %s %s changes %+v", r.Name, r.Placement, r.Changes)
			continue
		}
		ch := r.Changes[0]
		if ch.Input != "new" || ch.Base != "old" || ch.Change == nil || math.Abs(*ch.Change-1) > 1e-9 || ch.Low == nil || ch.High == nil ||
			ch.Confidence == nil || ch.P == nil || ch.Unit == nil || *ch.Unit != "blocks" || !ch.Significant {
			t.Errorf("json: %s %s: twice the time reads as %+v", r.Name, r.Placement, ch)
		}
	}
	if strings.Contains(stderr, "warning") || strings.Contains(stderr, "note") {
		t.Errorf("json: notes and warnings went to stderr: %q", stderr)
	}
	code, out, _ = run(t, "compare", "--ignore-placement", base, slow)
	if code != ExitUsage {
		t.Errorf("--ignore-placement with two placements per benchmark: status %d\n%s", code, out)
	}
}

func TestReport(t *testing.T) {
	dir := t.TempDir()
	a := writeDoc(t, dir, "a.json", testdoc.Options{Seed: 1, Experiments: true})
	b := writeDoc(t, dir, "b.json", testdoc.Options{Seed: 2})
	out := filepath.Join(dir, "r.html")
	code, _, stderr := run(t, "report", "laptop="+a, "server="+b, "-o", out)
	if code != ExitOK {
		t.Fatalf("status %d: %s", code, stderr)
	}
	html, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<!DOCTYPE html>", "laptop", "server", `id="ladder"`, `id="compare"`} {
		if !bytes.Contains(html, []byte(want)) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if code, _, stderr := run(t, "report", a); code != ExitUsage {
		t.Errorf("report without -o: status %d", code)
	} else {
		assertOneLine(t, stderr)
	}
	code, stdout, _ := run(t, "report", a, "-o", "-")
	if code != ExitOK || !strings.HasPrefix(stdout, "<!DOCTYPE html>") {
		t.Errorf("report -o -: status %d", code)
	}
	// Nothing but the report is left in the directory.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
