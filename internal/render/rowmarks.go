package render

import "github.com/ctxbench/ctxbench/internal/result"

// A row mark is one symbol with one meaning, put after a row's name in
// every table that shows the row (text, Markdown, the report) and
// explained once under it. Each mark is decided from the result's typed
// fields, never from its label's words.
type rowMark struct{ symbol, legend string }

var (
	markExit = rowMark{"‡", "per exit and re-entry of a VM (a world switch out of the guest and back), not per hop between two contexts."}

	markStackless = rowMark{"§", "stackless: resumes a heap frame and switches no stack (C++20 coroutines, futures, promises, asyncio) — a tier apart from stack switches, not cheaper than the floor's register swap."}
)

// rowMarks are the marks of one row, in a fixed order.
func rowMarks(r result.Result) []rowMark {
	var ms []rowMark
	if isExit(r) {
		ms = append(ms, markExit)
	}
	if r.Label.Stackless {
		ms = append(ms, markStackless)
	}
	return ms
}

// MarkedName is a row's name followed by its marks ("runtime/node-promise §").
func MarkedName(r result.Result) string {
	s := r.Name
	for _, m := range rowMarks(r) {
		s += " " + m.symbol
	}
	return s
}

// MarkLegends explains, once each, the marks the rows carry.
func MarkLegends(rs []result.Result) []string {
	seen := map[string]bool{}
	var out []string
	for _, want := range []rowMark{markExit, markStackless} {
		for _, r := range rs {
			for _, m := range rowMarks(r) {
				if m == want && !seen[m.symbol] {
					seen[m.symbol] = true
					out = append(out, m.symbol+" "+m.legend)
				}
			}
		}
	}
	return out
}
