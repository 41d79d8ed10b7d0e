package result

import "github.com/ctxbench/ctxbench/internal/model"

// The order rows are shown in, and the rows a headline picks, belong to
// the vocabulary, not to a renderer: a rung or placement added to model
// takes its place in every table, the report and compare without a
// renderer's list to update (renderers import result, not model).

// RungOrder is the ladder's rungs as a document writes them, cheapest
// first (model.RungOrder).
func RungOrder() []string {
	out := make([]string, len(model.RungOrder))
	for i, r := range model.RungOrder {
		out[i] = string(r)
	}
	return out
}

// RungIndex is rung's place in RungOrder; a rung the vocabulary does not
// know (a newer file's) goes after every known one, reference rows
// included.
func RungIndex(rung string) int { return model.RungIndex(model.Rung(rung)) }

// PlacementOrder is the placements as a document writes them, in display
// order (model.AllPlacements): same-cpu, cross-cpu, unpinned.
func PlacementOrder() []string {
	out := make([]string, len(model.AllPlacements))
	for i, p := range model.AllPlacements {
		out[i] = string(p)
	}
	return out
}

// HeadlineRow is one rung of the ladder at a glance: the benchmark that
// stands for the rung with a pipe ping-pong (the floor and goroutines:
// their one handoff), and the one with a futex ping-pong where the rung
// has one ("" where it has none).
type HeadlineRow struct{ Rung, Pipe, Futex string }

// Headline is the ladder at a glance, like for like: one fixed mechanism
// per rung, a pipe ping-pong from threads to VMs and a futex ping-pong
// beside it, so that a step between two rows is a step of the rung, not of
// the mechanism. (The cheapest row per rung compared thread/yield with
// process/futex, and the minimum over ten container rows was biased low.)
// The report shows the rows a document holds; the names are the catalog's.
func Headline() []HeadlineRow {
	return []HeadlineRow{
		{string(model.Floor), "floor/asm-swap", ""},
		{string(model.Goroutine), "goroutine/chan-gomaxprocs1", ""},
		{string(model.Thread), "thread/pipe", "thread/futex"},
		{string(model.Process), "process/pipe", "process/futex"},
		{string(model.Container), "container/pipe-full", "container/futex-full"},
		{string(model.VM), "vm/switch-user", ""},
	}
}
