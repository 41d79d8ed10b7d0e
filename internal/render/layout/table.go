package layout

// table.go: a Table's columns, how it gives way when too wide (columns fold
// away, prose cells wrap), and how its lines are printed.

import (
	"fmt"
	"io"
	"strings"
)

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

// Group heads a run of consecutive columns with one label printed above
// their heads, as benchstat heads each input's columns: the first group's
// label starts at its first column (widening it where longer), every other
// group's is centred over its columns (widening the last where longer).
// Between groups the header lines print " │ " and the rows three spaces,
// and each header line ends with " │".
type Group struct {
	Head string
	Cols int
}

// Table is a terminal table that fits its Style's width.
type Table struct {
	Cols []Col
	// Groups, when set, head the columns in runs (their Cols add up to
	// len(Cols)).
	Groups []Group
	// Indent is the spaces every line of the table begins with (inside
	// the width it fits).
	Indent  int
	rows    [][]string
	printed strings.Builder
}

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

// Printed is what the last Write printed: a view's legend explains the
// marks in it (MarkSet.Only), not those of columns left out.
func (t *Table) Printed() string { return t.printed.String() }

// Width is the width of the table's widest line laid out whole (--wide):
// a view that has another form for a narrow terminal (compare's long
// table) asks it before writing.
func (t *Table) Width() int {
	l := t.layout(1 << 30)
	w := t.Indent + t.total(l)
	if len(t.Groups) > 0 {
		w += Width(" │")
	}
	return w
}

// Gap is the space between two columns; groupGap between two groups.
const (
	Gap      = 2
	groupGap = 3
)

// laidOut is a table laid out for a width: the columns shown, their
// widths, and the heads of those left out.
type laidOut struct {
	show   []bool
	widths []int
	left   []string
}

// Write lays the table out for st and writes it; it returns the heads of
// the columns it left out (and says so in one line under the table).
func (t *Table) Write(w io.Writer, st Style) []string {
	l := t.layout(st.limit() - t.Indent)
	t.printed.Reset()
	emit := func(lines ...string) {
		for _, s := range lines {
			s = strings.TrimRight(strings.Repeat(" ", t.Indent)+s, " ")
			t.printed.WriteString(s + "\n")
			fmt.Fprintln(w, s)
		}
	}
	if len(t.Groups) > 0 {
		emit(t.groupLine(l))
	}
	heads := make([]string, len(t.Cols))
	headed := len(t.Groups) > 0
	for i, c := range t.Cols {
		heads[i] = c.Head
		headed = headed || c.Head != ""
	}
	if headed {
		emit(t.lines(l, heads, true)...)
	}
	for _, r := range t.rows {
		emit(t.lines(l, r, false)...)
	}
	if len(l.left) > 0 {
		for _, s := range wrapWords(fmt.Sprintf("(left out to fit %d columns: %s; --wide shows them, and the JSON and the report hold them)",
			st.Columns(), strings.Join(l.left, ", ")), st.Columns(), " ") {
			fmt.Fprintln(w, s)
		}
	}
	return l.left
}

// natural is each column's width with nothing wrapped: its widest cell or
// its head, and for the first and last column of a group, what its label
// needs.
func (t *Table) natural(show []bool) []int {
	nat := make([]int, len(t.Cols))
	for i, c := range t.Cols {
		nat[i] = Width(c.Head)
		for _, r := range t.rows {
			nat[i] = max(nat[i], Width(r[i]))
		}
	}
	for g, first := range t.groupStarts() {
		cols := t.groupCols(g, first, show)
		if len(cols) == 0 {
			continue
		}
		label := Width(t.Groups[g].Head)
		if g == 0 {
			nat[cols[0]] = max(nat[cols[0]], label)
			continue
		}
		if span := t.span(nat, cols); label > span {
			nat[cols[len(cols)-1]] += label - span
		}
	}
	return nat
}

// layout fits the table in limit columns: while it is too wide, the Wrap
// columns narrow (those whose NarrowAt allows it yet), then the next
// foldable column leaves, until it fits or nothing more can give way.
func (t *Table) layout(limit int) laidOut {
	show := make([]bool, len(t.Cols))
	for i, c := range t.Cols {
		show[i] = c.Head != "" || len(t.rows) > 0 && t.anyCell(i)
	}
	l := laidOut{show: show}
	for {
		l.widths = t.natural(show)
		if t.total(l) <= limit {
			return l
		}
		next := t.nextFold(show, 1<<30)
		t.narrow(&l, limit, next+1)
		if t.total(l) <= limit {
			return l
		}
		i := t.foldIndex(show)
		if i < 0 {
			return l
		}
		show[i] = false
		l.left = append(l.left, t.Cols[i].Head)
	}
}

func (t *Table) anyCell(i int) bool {
	for _, r := range t.rows {
		if r[i] != "" {
			return true
		}
	}
	return false
}

// nextFold is the lowest Fold of a column still shown, below bound
// (bound when there is none).
func (t *Table) nextFold(show []bool, bound int) int {
	next := bound
	for i, c := range t.Cols {
		if show[i] && c.Fold > 0 && c.Fold < next {
			next = c.Fold
		}
	}
	return next
}

// foldIndex is the column to leave out next (the shown one of lowest
// Fold), or -1.
func (t *Table) foldIndex(show []bool) int {
	pick := -1
	for i, c := range t.Cols {
		if show[i] && c.Fold > 0 && (pick < 0 || c.Fold < t.Cols[pick].Fold) {
			pick = i
		}
	}
	return pick
}

// narrow wraps the Wrap columns whose NarrowAt is below bound until the
// table fits, one column of width at a time from the widest, none below
// its minimum.
func (t *Table) narrow(l *laidOut, limit, bound int) {
	for t.total(*l) > limit {
		pick := -1
		for i, c := range t.Cols {
			if !l.show[i] || !c.Wrap || c.NarrowAt >= bound || l.widths[i] <= minOf(c) {
				continue
			}
			if pick < 0 || l.widths[i] > l.widths[pick] {
				pick = i
			}
		}
		if pick < 0 {
			return
		}
		l.widths[pick]--
	}
}

// total is the width of the columns shown with the gaps between them.
func (t *Table) total(l laidOut) int {
	n, prev := 0, -1
	for i, s := range l.show {
		if !s {
			continue
		}
		if prev >= 0 {
			n += len(t.sep(prev, i, false))
		}
		n += l.widths[i]
		prev = i
	}
	return n
}

// sep is what stands between shown columns a and b (a before b): a gap,
// or between two groups " │ " on a header line and spaces on a row.
func (t *Table) sep(a, b int, header bool) string {
	if t.groupOf(a) == t.groupOf(b) {
		return strings.Repeat(" ", Gap)
	}
	if header {
		return " │ "
	}
	return strings.Repeat(" ", groupGap)
}

// groupStarts are the first column of each group.
func (t *Table) groupStarts() []int {
	var out []int
	n := 0
	for _, g := range t.Groups {
		out = append(out, n)
		n += g.Cols
	}
	return out
}

// groupOf is the group of column i (0 without groups).
func (t *Table) groupOf(i int) int {
	n := 0
	for g, gr := range t.Groups {
		n += gr.Cols
		if i < n {
			return g
		}
	}
	return 0
}

// groupCols are the shown columns of group g, which starts at first
// (all of them when show is nil).
func (t *Table) groupCols(g, first int, show []bool) []int {
	var cols []int
	for i := first; i < first+t.Groups[g].Cols && i < len(t.Cols); i++ {
		if show == nil || show[i] {
			cols = append(cols, i)
		}
	}
	return cols
}

// span is the width of these columns with the gaps between them.
func (t *Table) span(widths []int, cols []int) int {
	n := 0
	for k, i := range cols {
		if k > 0 {
			n += Gap
		}
		n += widths[i]
	}
	return n
}

// groupLine is the line of group labels above the heads.
func (t *Table) groupLine(l laidOut) string {
	var b strings.Builder
	for g, first := range t.groupStarts() {
		cols := t.groupCols(g, first, l.show)
		if len(cols) == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(" │ ")
		}
		span := t.span(l.widths, cols)
		label := t.Groups[g].Head
		if g == 0 {
			b.WriteString(pad(label, span, false))
		} else {
			left := max(span-Width(label), 0) / 2
			b.WriteString(pad(strings.Repeat(" ", left)+label, span, false))
		}
	}
	return b.String() + " │"
}

// lines are the printed lines of one row (or of the heads): one, or more
// where a Wrap cell wraps inside its column.
func (t *Table) lines(l laidOut, cells []string, header bool) []string {
	parts := make([][]string, len(cells))
	height := 1
	for i, s := range cells {
		if !l.show[i] {
			continue
		}
		parts[i] = []string{s}
		if t.Cols[i].Wrap && Width(s) > l.widths[i] {
			parts[i] = wrapWords(s, l.widths[i], "")
		}
		height = max(height, len(parts[i]))
	}
	out := make([]string, height)
	for k := range height {
		var b strings.Builder
		prev := -1
		for i, p := range parts {
			if !l.show[i] {
				continue
			}
			if prev >= 0 {
				b.WriteString(t.sep(prev, i, header))
			}
			prev = i
			s := ""
			if k < len(p) {
				s = p[k]
			}
			b.WriteString(pad(s, l.widths[i], t.Cols[i].Right))
		}
		if header && len(t.Groups) > 0 {
			b.WriteString(" │")
		}
		out[k] = b.String()
	}
	return out
}

// pad is s in a cell of width w, aligned left or right.
func pad(s string, w int, right bool) string {
	p := strings.Repeat(" ", max(w-Width(s), 0))
	if right {
		return p + s
	}
	return s + p
}
