package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	if !strings.Contains(out, "~ [") {
		t.Errorf("no ~ in a comparison of two draws:\n%s", out)
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
	if code != ExitOK || !strings.HasPrefix(out, "table,unit,name,placement,input,") {
		t.Errorf("csv: status %d, output %q", code, out)
	}
	if !strings.Contains(stderr, "dry run") {
		t.Errorf("csv: the warnings are not on stderr: %q", stderr)
	}
	code, out, _ = run(t, "compare", base, slow, "--format", "markdown")
	if code != ExitOK || !strings.Contains(out, "| benchmark | placement |") {
		t.Errorf("markdown: status %d, output %q", code, out)
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
