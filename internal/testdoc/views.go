package testdoc

// views.go: the checks every terminal view's test makes of its text: it
// fits its width, and its tables stay tables.

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Fits fails for a line of out wider than width columns or ending in a
// space. ANSI colour sequences take no width.
func Fits(t testing.TB, what, out string, width int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if n := termWidth(l); n > width {
			t.Errorf("%s line %d is %d columns, wider than %d: %q", what, i+1, n, width, l)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("%s line %d ends in a space: %q", what, i+1, l)
		}
	}
}

func termWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '\x1b' {
			if j := strings.IndexByte(s[i:], 'm'); j >= 0 {
				i += j + 1
				continue
			}
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// Aligned fails unless every table of out whose head line holds head keeps
// its columns for at least rows lines under that line: between every two
// heads (a run of two spaces or more on the head line) the head line and
// each of those lines have two blank columns in common, where a table's
// gutter is. Cells that ran together, or a row wrapped onto ragged lines,
// close no common gutter. It fails too where no line holds head between
// gutters (a head line whose columns ran together is prose).
func Aligned(t testing.TB, what, out, head string, rows int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	found := false
	for i, l := range lines {
		gutters := headGutters(l)
		if !strings.Contains(l, head) || len(gutters) == 0 {
			continue // prose that names the head is no head line
		}
		found = true
		n := 0
		for _, r := range lines[i+1:] {
			next, ok := keep(gutters, r)
			if !ok {
				break
			}
			gutters = next
			n++
		}
		if n < rows {
			t.Errorf("%s: the table headed %q keeps its columns for %d line(s) under its head, want %d or more:\n%s", what, strings.TrimSpace(l), n,
				rows, strings.Join(lines[i:min(len(lines), i+rows+2)], "\n"))
		}
	}
	if !found {
		t.Errorf("%s: no table headed %q:\n%s", what, head, out)
	}
}

// gutter is a run of columns between two heads, and which of them are
// blank on every line so far.
type gutter struct {
	start int
	blank []bool
}

// headGutters are the runs of two or more spaces between two heads of a
// head line (all blank, on the head line). A rule "│" between groups of
// columns (compare's header) is a gutter's, not a head's.
func headGutters(head string) []gutter {
	head = strings.TrimRight(strings.ReplaceAll(head, "│", " "), " ")
	var out []gutter
	start, seen := -1, false
	for i, c := range append([]rune(head), 'x') {
		if c == ' ' {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 && seen && i-start >= 2 {
			g := gutter{start: start, blank: make([]bool, i-start)}
			for k := range g.blank {
				g.blank[k] = true
			}
			out = append(out, g)
		}
		start, seen = -1, true
	}
	return out
}

// keep narrows each gutter to the columns that are blank on line too; ok
// is false when a gutter has no two adjacent blank columns left (or the
// line is empty: the table ended).
func keep(gutters []gutter, line string) ([]gutter, bool) {
	if strings.TrimSpace(line) == "" {
		return nil, false
	}
	r := []rune(line)
	out := make([]gutter, len(gutters))
	for i, g := range gutters {
		out[i] = gutter{start: g.start, blank: make([]bool, len(g.blank))}
		two := false
		for k, blank := range g.blank {
			at := g.start + k
			out[i].blank[k] = blank && (at >= len(r) || r[at] == ' ')
			two = two || (k > 0 && out[i].blank[k] && out[i].blank[k-1])
		}
		if !two {
			return nil, false
		}
	}
	return out, true
}
