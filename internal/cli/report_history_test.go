package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/store"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// historySection is the History section of the report at path, "" when
// it has none.
func historySection(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	i := strings.Index(html, `<section id="history">`)
	if i < 0 {
		return ""
	}
	return html[i : i+strings.Index(html[i:], "</section>")]
}

// addOtherMachine records, beside plantedStore's machine, a sitting of
// another fingerprint whose one cell no result file holds.
func addOtherMachine(t *testing.T, path string) {
	t.Helper()
	ctx := context.Background()
	st, _, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := store.Sitting{Fingerprint: "00000000feedface", Description: `{"host":"elsewhere"}`, Started: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		Command: "ctxbench run", Cells: []store.Cell{{CellKey: store.CellKey{Name: "other/cell", Placement: "same-cpu", CPUs: "0"},
			Median: 500, CILow: 490, CIHigh: 510, Confidence: 0.95, BlockMedians: []float64{500, 500}, Iterations: 1000}}}
	if _, err := st.Record(ctx, s); err != nil {
		t.Fatal(err)
	}
}

// report --history=PATH draws the files' cells from the store at PATH:
// every sitting, the planted step, the machine of run A; not a cell the
// files do not hold, nor a machine with none of theirs.
func TestReportHistory(t *testing.T) {
	path, at := plantedStore(t)
	addOtherMachine(t, path)
	dir := t.TempDir()
	a := writeDoc(t, dir, "a.json", testdoc.Options{Seed: 1})
	out := filepath.Join(dir, "r.html")
	code, _, stderr := run(t, "report", a, "-o", out, "--history="+path)
	if code != ExitOK || strings.Contains(stderr, "no History section") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	sec := historySection(t, out)
	for _, want := range []string{"host testhost", `<span class="tag">A</span>`, "thread/pipe same-cpu CPUs 0", "process/pipe same-cpu CPUs 0",
		"step at " + at.Format("2006-01-02 15:04") + " UTC: &#43;", "no step in 12 clean sittings", "<code>" + path + "</code>"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the History section lacks %q", want)
		}
	}
	if n := strings.Count(sec, `<g class="sitting">`); n != 24 {
		t.Errorf("%d sittings drawn, want 24 (12 of each cell)", n)
	}
	if n := strings.Count(sec, `<g class="step">`); n != 1 {
		t.Errorf("%d steps drawn, want 1", n)
	}
	if strings.Contains(sec, "other/cell") || strings.Contains(sec, "elsewhere") {
		t.Error("the section shows a cell no file holds")
	}

	// Files without those cells: the section says so.
	b := writeDoc(t, dir, "b.json", testdoc.Options{Seed: 1, Only: []model.Placement{model.CrossCPU}})
	if code, _, stderr := run(t, "report", b, "-o", out, "--history="+path); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if sec := historySection(t, out); !strings.Contains(sec, "No cell of these files is recorded") || strings.Contains(sec, "<svg") {
		t.Errorf("a history without the files' cells: %q", sec)
	}
}

// --history alone reads the history ctxbench history reads, and takes no
// value from the next word: a file after it is a file of the report.
func TestReportHistoryDefault(t *testing.T) {
	path, _ := plantedStore(t)
	t.Setenv(envHistory, path)
	dir := t.TempDir()
	a := writeDoc(t, dir, "a.json", testdoc.Options{Seed: 1})
	out := filepath.Join(dir, "r.html")
	if code, _, stderr := run(t, "report", "-o", out, "--history", a); code != ExitOK {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if !strings.Contains(historySection(t, out), "thread/pipe same-cpu CPUs 0") {
		t.Error("--history did not read the default history")
	}
}

// A history that cannot be read (a directory, a path with nothing there)
// leaves the section out: the report is written, exit 0, and one line on
// stderr says why. Nothing is created at a missing path. --history= with
// no TARGET is bad input.
func TestReportHistoryUnreadable(t *testing.T) {
	dir := t.TempDir()
	a := writeDoc(t, dir, "a.json", testdoc.Options{Seed: 1})
	missing := filepath.Join(dir, "none", "h.db")
	for _, target := range []string{t.TempDir(), missing} {
		out := filepath.Join(dir, "r.html")
		os.Remove(out)
		code, _, stderr := run(t, "report", a, "-o", out, "--history="+target)
		if code != ExitOK {
			t.Fatalf("%s: exit %d, stderr %q", target, code, stderr)
		}
		var why []string
		for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
			if !strings.HasPrefix(l, "report of 1 result file(s) written to ") {
				why = append(why, l)
			}
		}
		if len(why) != 1 || !strings.HasPrefix(why[0], "ctxbench: report: no History section: ") || !strings.Contains(why[0], target) {
			t.Errorf("%s: stderr %q, want one line saying why", target, stderr)
		}
		if sec := historySection(t, out); sec != "" {
			t.Errorf("%s: the report has a History section", target)
		}
	}
	if _, err := os.Stat(filepath.Dir(missing)); err == nil {
		t.Error("a report created a history")
	}
	code, _, stderr := run(t, "report", a, "-o", filepath.Join(dir, "r.html"), "--history=")
	if code != ExitUsage {
		t.Errorf("--history=: exit %d", code)
	}
	assertOneLine(t, stderr)
}
