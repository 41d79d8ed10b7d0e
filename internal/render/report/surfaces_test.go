package report_test

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/compare"
	text "github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/formats"
	"github.com/ctxbench/ctxbench/internal/render/report"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// One document with a 75%-level row, a derived figure (a multiple) whose
// ratio of medians lies outside its own round-by-round interval, a flagged
// row and an impossible value (a negative memory difference), rendered
// through every surface: each shows the level, the figure of the interval
// (never the figure outside it), the flag with its caveat, and no
// impossible figure.
func TestEverySurfaceShowsWhatWasMeasured(t *testing.T) {
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	lvl := &d.Results[1] // goroutine/chan-gomaxprocs1: a runtime-like row at 75%
	lvl.OneWayNS.Confidence = 0.75
	der := &d.Results[3] // thread/pipe same-cpu: its multiple beside an interval that does not hold the ratio
	ratio := 99.0
	der.Multiple = &ratio
	der.MultipleInterval = &result.Interval{Median: 14.2, Low: 13.9, High: 14.6, Confidence: 0.95, Rounds: 10}
	flg := &d.Results[4]
	flg.Flags = append(flg.Flags, result.Flag{Code: "switch-count", Message: "0.92 switches per hop, fewer than one: some hand-offs completed without the waiter sleeping"})
	if len(d.Memory) == 0 {
		t.Fatal("the test document has no memory rows")
	}
	d.Memory[0].KernelBytes = -50688 // −49.5 KiB: the counter moved by less than its noise

	var ladder, md, csvb, mem, memCSV, memMD, html bytes.Buffer
	text.Ladder(&ladder, d, text.Style{})
	text.Memory(&mem, d)
	for _, f := range []struct {
		w  *bytes.Buffer
		fn func(*bytes.Buffer) error
	}{
		{&md, func(b *bytes.Buffer) error { return formats.Markdown(b, d) }},
		{&csvb, func(b *bytes.Buffer) error { return formats.CSV(b, d) }},
		{&memCSV, func(b *bytes.Buffer) error { return formats.MemoryCSV(b, d) }},
		{&memMD, func(b *bytes.Buffer) error { return formats.MemoryMarkdown(b, d) }},
		{&html, func(b *bytes.Buffer) error {
			return report.Render(b, []compare.Input{{Label: "a", Path: "a.json", Doc: d}}, nil, report.Options{Generator: "test"})
		}},
	} {
		if err := f.fn(f.w); err != nil {
			t.Fatal(err)
		}
	}
	line := func(s, name string) string {
		for _, l := range strings.Split(s, "\n") {
			if strings.Contains(l, name+" ") || strings.Contains(l, name+"`") {
				return l
			}
		}
		t.Fatalf("no line for %s in:\n%s", name, s)
		return ""
	}

	// The level, where the figure is.
	for name, s := range map[string]string{"ladder": ladder.String(), "markdown": md.String()} {
		if l := line(s, lvl.Name); !strings.Contains(l, "@75%") {
			t.Errorf("%s: the 75%% interval is not marked where the figure is:\n%s", name, l)
		}
	}
	recs, err := csv.NewReader(&csvb).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	if got := recs[2][col["one_way_ns_ci_confidence"]]; got != "0.75" {
		t.Errorf("CSV: the 75%% row's ci confidence is %q", got)
	}
	// The derived figure is the figure of its interval.
	for name, s := range map[string]string{"ladder": ladder.String(), "markdown": md.String()} {
		l := line(s, der.Name)
		if strings.Contains(l, "99×") || !strings.Contains(l, "14×") {
			t.Errorf("%s: the multiple is not the figure of its interval [13.9, 14.6]:\n%s", name, l)
		}
	}
	// The flag and its caveat.
	for name, s := range map[string]string{"ladder": ladder.String(), "html": html.String()} {
		if !strings.Contains(s, "some hand-offs completed without the waiter sleeping") {
			t.Errorf("%s does not carry the flag's caveat", name)
		}
	}
	if !strings.Contains(recs[5][col["flags"]], "switch-count") {
		t.Errorf("CSV: the flagged row's flags are %q", recs[5][col["flags"]])
	}
	// No impossible figure.
	for name, s := range map[string]string{"memory": mem.String(), "memory markdown": memMD.String(), "memory csv": memCSV.String(), "html": html.String()} {
		for _, bad := range []string{"−49.5", "-49.5", "-50688"} {
			if strings.Contains(s, bad) {
				t.Errorf("%s shows the impossible figure %s", name, bad)
			}
		}
	}
	if l := line(mem.String(), d.Memory[0].Name); !strings.Contains(l, "n/a") {
		t.Errorf("memory: the negative KERNEL is not marked n/a:\n%s", l)
	}
}
