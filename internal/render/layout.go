package render

// layout.go: how every terminal view fits the width it is given. A view is
// tables (Table) and prose (lines of legend, footnotes, warnings). A table
// that is too wide first leaves out the columns its renderer marked as
// foldable, in their order, and says which in one line under it (--wide
// shows them; the JSON and the report always have them); then wraps the
// columns marked Wrap inside their cell. Prose is word-wrapped with a
// hanging indent (Fit). No line ends in a space.
//
// Hand-written rather than text/tabwriter: tabwriter aligns cells but knows
// no width limit, and cannot leave a column out or wrap a cell.

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// DefaultWidth is the width of a view when the terminal's cannot be known
// (output to a file or a pipe, no COLUMNS).
const DefaultWidth = 100

// minWidth is the narrowest width a view is laid out for: below it, words
// would be cut rather than wrapped.
const minWidth = 40

// Style controls terminal output: colour, and the width the view must fit
// (0: DefaultWidth). Wide lays views out at their natural width, wrapping
// and leaving out nothing (--wide).
type Style struct {
	Color bool
	Width int
	Wide  bool
}

// Paint colours text with an ANSI SGR code when the style has colour.
func (s Style) Paint(code, text string) string {
	if !s.Color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// Columns is the width views are laid out for.
func (s Style) Columns() int {
	switch {
	case s.Width <= 0:
		return DefaultWidth
	case s.Width < minWidth:
		return minWidth
	}
	return s.Width
}

// tableWidth is the width a table must fit: unlimited with Wide.
func (s Style) tableWidth() int {
	if s.Wide {
		return 1 << 30
	}
	return s.Columns()
}

// styleOf is the style a view written to w is laid out in: the FitWriter's
// when w is one (the command line wraps every terminal view in one, so the
// width travels with the writer to renderers that take no Style), else the
// default (100 columns, no colour).
func styleOf(w io.Writer) Style {
	if f, ok := w.(*FitWriter); ok {
		return f.st
	}
	return Style{}
}

// Col is one column of a Table.
type Col struct {
	Head string
	// Right aligns the column's cells to the right (figures).
	Right bool
	// Fold > 0: the column may be left out when the table does not fit;
	// columns leave in increasing Fold order. 0: always shown.
	Fold int
	// Wrap: a long cell wraps inside the column (prose: claims, notes).
	Wrap bool
	// Min is the least width a Wrap column is narrowed to (default 12).
	Min int
	// NarrowAt: a Wrap column is narrowed only once every column with a
	// lower Fold has left (0: before any leaves; a large value: only once
	// all have).
	NarrowAt int
}

// minOf is the least width of a Wrap column: its Min (default 12), and
// never narrower than its head.
func minOf(c Col) int {
	m := c.Min
	if m == 0 {
		m = 12
	}
	return max(m, Width(c.Head))
}

// Table is a terminal table that fits its Style's width.
type Table struct {
	Cols []Col
	// Indent is the spaces every line of the table begins with (inside
	// the width it fits).
	Indent  int
	rows    [][]string
	printed strings.Builder
}

// Printed is what the last Write printed: a view's legend explains the
// marks in it (MarkSet.Only), not those of columns left out.
func (t *Table) Printed() string { return t.printed.String() }

// NewTable starts a table with these columns.
func NewTable(cols ...Col) *Table { return &Table{Cols: cols} }

// Row adds a row; missing trailing cells are empty.
func (t *Table) Row(cells ...string) {
	r := make([]string, len(t.Cols))
	copy(r, cells)
	t.rows = append(t.rows, r)
}

// Len is the number of rows.
func (t *Table) Len() int { return len(t.rows) }

// gap is the space between two columns.
const gap = 2

// Write lays the table out for st and writes it; it returns the heads of
// the columns it left out (and says so in one line under the table).
func (t *Table) Write(w io.Writer, st Style) []string {
	nat := make([]int, len(t.Cols))
	for i, c := range t.Cols {
		nat[i] = Width(c.Head)
		for _, r := range t.rows {
			nat[i] = max(nat[i], Width(r[i]))
		}
	}
	show := make([]bool, len(t.Cols))
	for i := range show {
		show[i] = nat[i] > 0 || t.Cols[i].Head != ""
	}
	total := func(widths []int) int {
		n, k := 0, 0
		for i, s := range show {
			if s {
				n += widths[i]
				k++
			}
		}
		return n + gap*max(k-1, 0)
	}
	limit := st.tableWidth() - t.Indent
	var left []string
	// fold leaves out the next foldable column below the priority bound;
	// false when there is none.
	fold := func(below int) bool { // below: only columns whose Fold is lower
		next := -1
		for i, c := range t.Cols {
			if show[i] && c.Fold > 0 && c.Fold < below && (next < 0 || c.Fold < t.Cols[next].Fold) {
				next = i
			}
		}
		if next < 0 {
			return false
		}
		show[next] = false
		left = append(left, t.Cols[next].Head)
		return true
	}
	// narrow wraps the Wrap columns whose NarrowAt is below bound until
	// the table fits, one column of width at a time from the widest, none
	// below its minimum.
	narrow := func(widths []int, bound int) {
		for total(widths) > limit {
			pick := -1
			for i, c := range t.Cols {
				if !show[i] || !c.Wrap || c.NarrowAt >= bound || widths[i] <= minOf(c) {
					continue
				}
				if pick < 0 || widths[i] > widths[pick] {
					pick = i
				}
			}
			if pick < 0 {
				return
			}
			widths[pick]--
		}
	}
	const never = 1 << 30
	var widths []int
	for {
		widths = append(widths[:0], nat...)
		if total(widths) <= limit {
			break
		}
		next := never // the Fold of the next column to leave
		for i, c := range t.Cols {
			if show[i] && c.Fold > 0 && c.Fold < next {
				next = c.Fold
			}
		}
		narrow(widths, next+1)
		if total(widths) <= limit || !fold(never) {
			break
		}
	}
	line := func(cells []string) {
		var parts [][]string
		for i, s := range cells {
			if !show[i] {
				parts = append(parts, nil)
				continue
			}
			if t.Cols[i].Wrap && Width(s) > widths[i] {
				parts = append(parts, wrapWords(s, widths[i], ""))
			} else {
				parts = append(parts, []string{s})
			}
		}
		height := 1
		for _, p := range parts {
			height = maxInt(height, len(p))
		}
		for k := range height {
			var b strings.Builder
			first := true
			for i, p := range parts {
				if !show[i] {
					continue
				}
				if !first {
					b.WriteString(strings.Repeat(" ", gap))
				}
				first = false
				s := ""
				if k < len(p) {
					s = p[k]
				}
				pad := strings.Repeat(" ", maxInt(widths[i]-Width(s), 0))
				if t.Cols[i].Right {
					b.WriteString(pad + s)
				} else {
					b.WriteString(s + pad)
				}
			}
			l := strings.TrimRight(strings.Repeat(" ", t.Indent)+b.String(), " ")
			t.printed.WriteString(l + "\n")
			fmt.Fprintln(w, l)
		}
	}
	t.printed.Reset()
	heads := make([]string, len(t.Cols))
	headed := false
	for i, c := range t.Cols {
		heads[i] = c.Head
		headed = headed || c.Head != ""
	}
	if headed {
		line(heads)
	}
	for _, r := range t.rows {
		line(r)
	}
	if len(left) > 0 {
		for _, l := range wrapWords(fmt.Sprintf("(left out to fit %d columns: %s; --wide shows them, and the JSON and the report hold them)",
			st.Columns(), strings.Join(left, ", ")), st.Columns(), " ") {
			fmt.Fprintln(w, l)
		}
	}
	return left
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Width is the number of terminal columns s takes: its runes, less ANSI
// colour sequences. Every character ctxbench prints is one column wide.
func Width(s string) int {
	n := 0
	for i := 0; i < len(s); {
		if s[i] == '\x1b' {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			i += j + 1
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		n++
	}
	return n
}

// wrapWords breaks s into lines of at most width columns at spaces; lines
// after the first start with indent. A word longer than a line (a path, a
// URL) is cut: the view's width is a promise.
func wrapWords(s string, width int, indent string) []string {
	var out []string
	cur, empty := "", true
	for _, word := range strings.Fields(s) {
		if !empty && Width(cur)+1+Width(word) > width {
			out = append(out, cur)
			cur, empty = indent, true
		}
		if !empty {
			cur += " "
		}
		for Width(cur)+Width(word) > width && Width(cur) < width {
			cut := cutAt(word, width-Width(cur))
			out = append(out, cur+cut)
			word = word[len(cut):]
			cur = indent
		}
		cur += word
		empty = false
	}
	return append(out, strings.TrimRight(cur, " "))
}

// cutAt is the longest prefix of s that is at most n columns (at least one
// rune), ending after a "/" or "-" where one lies in its second half, so a
// name breaks between its parts.
func cutAt(s string, n int) string {
	k, end := 0, len(s)
	for i := range s {
		if k >= max(n, 1) {
			end = i
			break
		}
		k++
	}
	if j := strings.LastIndexAny(s[:end], "/-"); j >= 0 && j+1 >= end/2 && j+1 < end {
		return s[:j+1]
	}
	return s[:end]
}

// Fit returns a writer that lays out every line written to it for st:
// trailing spaces dropped, and a line wider than st.Columns() word-wrapped
// with a hanging indent (under the text after a footnote number, a
// "warning:", a mark or a "NAME:" lead, else two columns in). Tables are
// laid out by Table before they reach it; Fit is for prose, and the
// guarantee that no line of a view is wider than its terminal. Call Flush
// when done.
func Fit(w io.Writer, st Style) *FitWriter { return &FitWriter{w: w, width: st.tableWidth(), st: st} }

// FitWriter is Fit's writer.
type FitWriter struct {
	w     io.Writer
	width int
	st    Style
	buf   []byte
}

func (f *FitWriter) Write(p []byte) (int, error) {
	f.buf = append(f.buf, p...)
	for {
		i := strings.IndexByte(string(f.buf), '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(f.buf[:i])
		f.buf = f.buf[i+1:]
		for _, l := range FitLine(line, f.width) {
			if _, err := io.WriteString(f.w, l+"\n"); err != nil {
				return 0, err
			}
		}
	}
}

// Style is the style the view is laid out in.
func (f *FitWriter) Style() Style { return f.st }

// Flush writes a last line that had no newline.
func (f *FitWriter) Flush() error {
	if len(f.buf) == 0 {
		return nil
	}
	line := string(f.buf)
	f.buf = nil
	ls := FitLine(line, f.width)
	_, err := io.WriteString(f.w, strings.Join(ls, "\n"))
	return err
}

// FitLine is one line laid out for width: itself without trailing spaces
// when it fits, else its words wrapped with a hanging indent.
func FitLine(line string, width int) []string {
	line = strings.TrimRight(line, " \t")
	if Width(line) <= width {
		return []string{line}
	}
	body := strings.TrimLeft(line, " ")
	lead := len(line) - len(body)
	hang := lead + 2
	if first, _, ok := strings.Cut(body, " "); ok {
		fw := Width(first)
		switch {
		case strings.HasPrefix(first, "[") && strings.HasSuffix(first, "]") && fw <= 6, // a footnote "[12]"
			fw <= 2, // a mark: "‡", "′", "~:"
			strings.HasSuffix(first, ":") && fw <= 12: // "warning:", "fix:", "±REPRO:"
			hang = lead + fw + 1
		}
	}
	hang = min(hang, width/3)
	out := wrapWords(body, width-lead, strings.Repeat(" ", max(hang-lead, 0)))
	for i := range out {
		out[i] = strings.Repeat(" ", lead) + out[i]
	}
	return out
}
