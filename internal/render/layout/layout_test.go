package layout

import (
	"bytes"
	"strings"
	"testing"
)

func write(t *Table, st Style) (string, []string) {
	var b bytes.Buffer
	left := t.Write(&b, st)
	return b.String(), left
}

// every line fits and none ends in a space.
func fits(t *testing.T, out string, width int) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if Width(l) > width {
			t.Errorf("a line of %d columns, wider than %d: %q", Width(l), width, l)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("a line ends in a space: %q", l)
		}
	}
}

func sample() *Table {
	t := NewTable(Col{Head: "NAME"}, Col{Head: "FIGURE", Right: true}, Col{Head: "EXTRA", Fold: 2}, Col{Head: "MORE", Fold: 1},
		Col{Head: "NOTE", Wrap: true, Min: 10})
	t.Row("thread/pipe", "2.88 µs", "extra cell one", "more cell one", "a long note that has to wrap inside its own column when narrow")
	t.Row("process/pipe", "12.0 µs", "extra two", "more two", "short")
	return t
}

// A table too wide leaves its foldable columns in Fold order and names
// them under itself; --wide leaves nothing out and wraps nothing.
func TestFoldThenWrap(t *testing.T) {
	out, left := write(sample(), Style{Wide: true})
	if len(left) != 0 || strings.Count(out, "\n") != 3 {
		t.Fatalf("--wide left out %v or wrapped:\n%s", left, out)
	}
	for _, width := range []int{40, 60, 80} {
		out, left := write(sample(), Style{Width: width})
		fits(t, out, width)
		for i, h := range left {
			if want := []string{"MORE", "EXTRA"}[i]; h != want {
				t.Errorf("at %d: left out %v, want MORE before EXTRA", width, left)
			}
		}
		if len(left) > 0 && !strings.Contains(out, "(left out to fit") {
			t.Errorf("at %d: %v left out without saying so:\n%s", width, left, out)
		}
		for _, w := range strings.Fields("a long note that has to wrap inside its own column when narrow") {
			if !strings.Contains(out, w) {
				t.Errorf("at %d: the note lost %q:\n%s", width, w, out)
			}
		}
	}
}

// A wrapped cell's continuation lines stay in its column: every line of
// the table has its gutters where the head line has them.
func TestWrapStaysInItsColumn(t *testing.T) {
	out, _ := write(sample(), Style{Width: 40})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	note := strings.Index(lines[0], "NOTE")
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "(left out") {
			break
		}
		if r := []rune(l); len(r) > note && strings.TrimSpace(string(r[note-2:note])) != "" {
			t.Errorf("the note column does not start at %d: %q", note, l)
		}
	}
}

// Groups print benchstat's header: the first group's label at its first
// column, the others centred over theirs, " │ " between groups on the
// header lines (which end in " │") and three spaces between them on rows.
func TestGroups(t *testing.T) {
	tb := &Table{Cols: []Col{{}, {}, {Head: "ns/hop"}, {Head: "ns/hop"}, {Head: "vs base"}},
		Groups: []Group{{Head: "switch ladder", Cols: 2}, {Head: "a", Cols: 1}, {Head: "b", Cols: 2}}}
	tb.Row("thread/pipe", "same-cpu", "2.88 µs ±1%", "2.89 µs ±1%", "≈ [-1.1%, +1.7%] n=10")
	out, _ := write(tb, Style{Wide: true})
	want := "" +
		"switch ladder           │      a      │                 b                  │\n" +
		"                        │ ns/hop      │ ns/hop       vs base               │\n" +
		"thread/pipe    same-cpu   2.88 µs ±1%   2.89 µs ±1%  ≈ [-1.1%, +1.7%] n=10\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	if w := tb.Width(); w != Width(strings.Split(out, "\n")[0]) {
		t.Errorf("Width() = %d, the header line is %d", w, Width(strings.Split(out, "\n")[0]))
	}
}

func TestFitLineHangs(t *testing.T) {
	got := FitLine("warning: "+strings.Repeat("word ", 20), 40)
	for _, l := range got[1:] {
		if !strings.HasPrefix(l, strings.Repeat(" ", len("warning: "))) {
			t.Errorf("not hung under the text after the lead: %q", l)
		}
	}
	fits(t, strings.Join(got, "\n"), 40)
	if got := FitLine("short  ", 40); len(got) != 1 || got[0] != "short" {
		t.Errorf("a short line: %q", got)
	}
}

func TestWidthSkipsColour(t *testing.T) {
	if w := Width(Style{Color: true}.Paint("31", "✗ flagged")); w != 9 {
		t.Errorf("Width of a painted string = %d, want 9", w)
	}
}
