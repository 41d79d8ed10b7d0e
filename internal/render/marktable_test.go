package render_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

var levelMarkRe = regexp.MustCompile(` @\d+(\.\d)?%`)

// The one table of marks holds every surface to one meaning per mark:
// its symbols are distinct; every view that shows a symbol of the table
// shows that mark's legend, word for word; and no legend is written
// anywhere but in the table (marks.go), so no view can explain a mark in
// words of its own.
func TestOneTableOfMarks(t *testing.T) {
	seen := map[string]bool{}
	for _, m := range render.Marks {
		if m.Symbol == "" || m.Legend == "" || seen[m.Symbol] {
			t.Errorf("mark %q: empty, or a symbol two marks use", m.Symbol)
		}
		seen[m.Symbol] = true
	}
	d := fake(t)
	noisy := &d.Results[1]
	noisy.Warnings = append(noisy.Warnings, result.Warning{Code: "noise-cv", Message: "high variation"})
	exp, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := testdoc.Doc(testdoc.Options{Seed: 1, Scale: 1.001})
	if err != nil {
		t.Fatal(err)
	}
	c, err := compare.Compare([]compare.Input{{Label: "a", Doc: d}, {Label: "b", Doc: b}}, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	inplace := &result.Document{Attach: testdoc.Attach(false), Results: []result.Result{}}
	later := &result.Document{Attach: testdoc.Attach(false), Results: []result.Result{}}
	for i := range later.Attach.Targets {
		for j := range later.Attach.Targets[i].Windows {
			later.Attach.Targets[i].Windows[j].SwitchesPerS *= 0.9
		}
	}
	attachCmp, err := compare.Compare([]compare.Input{{Label: "a", Doc: inplace}, {Label: "b", Doc: later}}, compare.Options{Alpha: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	views := map[string]func(w io.Writer){
		"ladder":         func(w io.Writer) { render.Ladder(w, d, render.Style{}) },
		"markdown":       func(w io.Writer) { _ = formats.Markdown(w, d) },
		"hierarchy":      func(w io.Writer) { render.Hierarchy(w, exp) },
		"spawn":          func(w io.Writer) { render.Spawn(w, exp) },
		"memory":         func(w io.Writer) { render.Memory(w, exp) },
		"rings":          func(w io.Writer) { render.Rings(w, exp, render.Style{}) },
		"compare":        func(w io.Writer) { _ = render.CompareText(w, c) },
		"attach":         func(w io.Writer) { render.Attach(w, inplace) },
		"compare-attach": func(w io.Writer) { _ = render.CompareText(w, attachCmp) },
		"compare-md": func(w io.Writer) {
			_ = formats.CompareMarkdown(w, c)
		},
	}
	// Every other command's view, from the documents of TestViews.
	for _, vc := range viewCases(t) {
		if _, ok := views[vc.name]; !ok {
			show := vc.show
			views[vc.name] = func(w io.Writer) { show(w, render.Style{Wide: true}) }
		}
	}
	for name, show := range views {
		var buf bytes.Buffer
		show(render.Fit(&buf, render.Style{Wide: true})) // unwrapped: a legend is one line
		out := buf.String()
		for _, m := range render.Marks {
			if m.Symbol == "@" {
				if !levelMarkRe.MatchString(out) {
					continue
				}
			} else if !strings.Contains(out, m.Symbol) {
				continue
			}
			legend := m.Symbol + " " + m.Legend
			if strings.Count(out, m.Symbol) == strings.Count(legend, m.Symbol)*strings.Count(out, legend) {
				continue // the symbol is only in its legend
			}
			if !strings.Contains(out, legend) && !strings.Contains(out, strings.ReplaceAll(legend, "|", `\|`)) {
				t.Errorf("%s shows %s without its legend:\n%s", name, m.Symbol, out)
			}
		}
	}
	// The legends are written in marks.go only.
	for _, dir := range []string{".", "report", "formats", "layout"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		tmpl, _ := filepath.Glob(filepath.Join(dir, "*.tmpl"))
		for _, f := range append(files, tmpl...) {
			if strings.HasSuffix(f, "_test.go") || filepath.Base(f) == "marks.go" {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range render.Marks {
				if len(m.Legend) > 30 && bytes.Contains(src, []byte(m.Legend[:30])) {
					t.Errorf("%s writes the legend of %s itself: take it from the table of marks", f, m.Symbol)
				}
			}
		}
	}
}
