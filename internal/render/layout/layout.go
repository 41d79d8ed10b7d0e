// Package layout is the one table engine of every terminal view: a Table
// fits the width it is given — its foldable columns leave, in their order,
// and are named in one line under it (--wide shows them; the JSON and the
// report always have them); then its Wrap columns wrap inside their cells —
// and Fit lays out the prose around it, word-wrapped with a hanging indent.
// No line ends in a space, and no line is wider than the width.
//
// It knows nothing of ctxbench: the views (internal/render) say what is in
// the cells. Hand-written rather than text/tabwriter: tabwriter aligns
// cells but knows no width limit, and cannot leave a column out or wrap a
// cell.
package layout

import (
	"io"
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

// limit is the width a table or a line must fit: unlimited with Wide.
func (s Style) limit() int {
	if s.Wide {
		return 1 << 30
	}
	return s.Columns()
}

// StyleOf is the style a view written to w is laid out in: the FitWriter's
// when w is one (the command line wraps every terminal view in one, so the
// width travels with the writer to views that take no Style), else the
// default (100 columns, no colour).
func StyleOf(w io.Writer) Style {
	if f, ok := w.(*FitWriter); ok {
		return f.st
	}
	return Style{}
}
