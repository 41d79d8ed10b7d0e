package render

// engine.go: the table engine (internal/render/layout) under the names the
// views and their callers use. Every terminal table is a Table, and every
// view reaches the terminal through Fit.

import (
	"io"

	"github.com/ctxbench/ctxbench/internal/render/layout"
)

// DefaultWidth is the width of a view when the terminal's cannot be known.
const DefaultWidth = layout.DefaultWidth

// gap is the space between two columns of a Table.
const gap = layout.Gap

type (
	// Style is the colour and width a view is laid out for (layout.Style).
	Style = layout.Style
	// Col is one column of a Table (layout.Col).
	Col = layout.Col
	// Table is a terminal table that fits its Style's width (layout.Table).
	Table = layout.Table
	// Group heads a run of a Table's columns (layout.Group).
	Group = layout.Group
	// FitWriter lays out every line written to it (layout.FitWriter).
	FitWriter = layout.FitWriter
)

// NewTable starts a table with these columns.
func NewTable(cols ...Col) *Table { return layout.NewTable(cols...) }

// Fit returns a writer that lays out every line written to it for st
// (layout.Fit).
func Fit(w io.Writer, st Style) *FitWriter { return layout.Fit(w, st) }

// Width is the number of terminal columns s takes.
func Width(s string) int { return layout.Width(s) }

// FitLine is one line laid out for width (layout.FitLine).
func FitLine(line string, width int) []string { return layout.FitLine(line, width) }

// styleOf is the style a view written to w is laid out in.
func styleOf(w io.Writer) Style { return layout.StyleOf(w) }

// prose writes formatted lines laid out for st (layout.Prose).
func prose(w io.Writer, st Style, format string, a ...any) { layout.Prose(w, st, format, a...) }
