package render

// compare_attach.go: two attaches compared (ctxbench attach, before and
// after a change): per target, each figure of the base and of the other
// file, and the change of the windows' values with its interval.

import (
	"fmt"
	"io"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/units"
)

// attachFigureText formats a figure of an attach by its name.
func attachFigureText(figure string, v float64) string {
	switch figure {
	case "switches per second":
		return units.Rate(v)
	case "ns per switch":
		return units.Time(v)
	}
	return share(v)
}

func writeAttachChanges(w io.Writer, c *compare.Comparison) {
	st := styleOf(w)
	for _, ac := range c.Attach {
		prose(w, st, "\n%s, %s against %s (the change of its windows' figures, other over base, with its interval):\n", ac.Target, ac.Input, c.Inputs[0].Label)
		t := NewTable(Col{Head: "FIGURE"}, Col{Head: "BASE", Right: true}, Col{Head: "THIS", Right: true},
			Col{Head: "CHANGE", Right: true}, Col{Head: "INTERVAL", Right: true, Fold: 1}, Col{Head: "WINDOWS", Right: true, Fold: 2})
		t.Indent = 2
		for _, d := range ac.Figures {
			change, iv := "—", "—"
			if d.Tested {
				change = units.SignedPercent(100*d.Change, 1)
				if !d.Resolved {
					change = MarkUnresolved.Symbol + change
				}
				iv = fmt.Sprintf("[%s, %s]%s", units.SignedPercent(100*d.Lo, 1), units.SignedPercent(100*d.Hi, 1), atLevel(d.Confidence))
			}
			t.Row(d.Figure, attachFigureText(d.Figure, d.Base), attachFigureText(d.Figure, d.Cur), change, iv,
				fmt.Sprintf("%d, %d", d.BaseWindows, d.CurWindow))
		}
		t.Write(w, st)
	}
}
