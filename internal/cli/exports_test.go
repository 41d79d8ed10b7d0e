package cli

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// A document with creation and memory sections (the default ladder's)
// writes each beside the CSV, in its own columns, and all of them into the
// one Markdown file; a switches-only document writes the one CSV.
func TestLadderExportsEverySection(t *testing.T) {
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Spawn) == 0 || len(d.Memory) == 0 {
		t.Fatal("the test document has no creation or memory section")
	}
	dir := t.TempDir()
	mf := &measureFlags{exportCSV: filepath.Join(dir, "ladder.csv"), exportMarkdown: filepath.Join(dir, "ladder.md")}
	var stdout, stderr bytes.Buffer
	if _, err := saveExports(d, mf.exports(d), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct {
		first string
		rows  int
	}{
		"ladder.csv":          {"name,rung,placement", len(d.Results)},
		"ladder-creation.csv": {"name,kind,per_create_ns_median", len(d.Spawn)},
		"ladder-memory.csv":   {"name,kind,contexts", len(d.Memory)},
	} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil || len(recs) != want.rows+1 || !strings.HasPrefix(string(b), want.first) {
			t.Errorf("%s: %d records (want %d), err %v, starts %q", name, len(recs), want.rows+1, err, strings.SplitN(string(b), "\n", 2)[0])
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "ladder.md"))
	for _, want := range []string{"## Creation", "## Memory", "`" + d.Spawn[0].Name + "`", "`" + d.Memory[0].Name + "`"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("the Markdown export lacks %q", want)
		}
	}

	d.Spawn, d.Memory = nil, nil
	dir = t.TempDir()
	mf.exportCSV = filepath.Join(dir, "switches")
	if _, err := saveExports(d, mf.exports(d), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("a switches-only document wrote %d files", len(ents))
	}
	if got := sectionPath("out/switches", "memory"); got != "out/switches-memory.csv" {
		t.Errorf("sectionPath of a path without an extension = %q", got)
	}
}
