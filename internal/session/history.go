package session

// history.go: a run and the machine's history of sittings. Every measuring
// run is recorded (its cells' block medians under the environment's
// fingerprint) and every figure gets its reproducibility interval from the
// sittings recorded before it and itself. The store is a convenience, never
// a condition: when it cannot be read or written, the run goes on, its
// figures keep their precision intervals, and one line says why.

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/store"
)

// MinOwnSittings is the fewest sittings (this one included) from which a
// cell's own between-sitting component is preferred; a cell with fewer
// borrows the component pooled over the cells of its placement that have
// enough (said in the figure's pooled_from), or with none to borrow from
// uses its own two (a wide interval: one degree of freedom).
const MinOwnSittings = 3

// ReproLevel is the confidence of every reproducibility interval.
const ReproLevel = 0.95

// learn records the document's sittings in the store at path and gives
// every recorded figure its reproducibility interval. An aa document is
// several sittings (its runs, recorded in order, each learning from those
// before it); any other document is one.
func learn(ctx context.Context, path string, d *result.Document, log io.Writer) *result.History {
	_, fp, desc := result.FingerprintOf(d)
	h := &result.History{Fingerprint: fp}
	fail := func(what string, err error) *result.History {
		h.Note = fmt.Sprintf("history not %s (%v); the intervals cover this sitting only", what, err)
		fmt.Fprintf(log, "ctxbench: %s\n", h.Note)
		return h
	}
	st, notes, err := store.Open(ctx, path)
	for _, n := range notes {
		fmt.Fprintf(log, "ctxbench: history: %s\n", n)
	}
	if err != nil {
		return fail("read or recorded", err)
	}
	defer st.Close()
	past, err := st.History(ctx, fp)
	if err != nil {
		return fail("read", err)
	}
	if h.Before, err = st.Sittings(ctx, fp); err != nil {
		return fail("read", err)
	}
	sittings := [][]result.Result{d.Results}
	starts := []time.Time{d.StartedAt}
	if d.AA != nil {
		sittings = d.AA.Runs
		starts = starts[:0]
		at := d.StartedAt
		for k := range sittings {
			starts = append(starts, at)
			if k < len(d.AA.SittingSeconds) {
				at = at.Add(time.Duration(d.AA.SittingSeconds[k] * float64(time.Second)))
			}
		}
	}
	recording := true
	for k, rs := range sittings {
		cells := Cells(rs)
		if len(cells) == 0 {
			continue
		}
		for i := range rs {
			if key, ok := cellKey(&rs[i]); ok {
				rs[i].OneWayNS.Reproducibility = Reproduce(past, key, &rs[i])
			}
		}
		if recording {
			s := store.Sitting{Fingerprint: fp, Description: string(desc), Started: starts[k], Command: strings.Join(d.Command, " "), Cells: cells}
			if _, err := st.Record(ctx, s); err != nil {
				recording = false
				fail("recorded", err)
			} else {
				h.Recorded = true
			}
		}
		for _, c := range cells { // later sittings of an aa document learn from this one
			past[c.CellKey] = append(past[c.CellKey], store.Past{Started: starts[k], Cell: c})
		}
	}
	return h
}

// learnedBefore reads the history at path once, before a run measures, and
// gives the between-sitting component each cell will be judged against
// (what --target-ci aims at): the cell's own when it has MinOwnSittings
// earlier sittings, else its placement's pooled one. Nil when nothing is
// learned or the store cannot be read (learn says so at the end).
func learnedBefore(ctx context.Context, path string, d *result.Document) func(name, placement string) (stats.Between, bool) {
	_, fp, _ := result.FingerprintOf(d)
	st, _, err := store.Open(ctx, path)
	if err != nil {
		return nil
	}
	defer st.Close()
	past, err := st.History(ctx, fp)
	if err != nil || len(past) == 0 {
		return nil
	}
	return func(name, placement string) (stats.Between, bool) {
		best := stats.Between{}
		for k, ps := range past { // the cell's CPUs are not known here: its best-learned set
			if k.Name == name && k.Placement == placement {
				if b := stats.BetweenSittings(clean(ps)); b.OK && b.Sittings >= MinOwnSittings && b.DF > best.DF {
					best = b
				}
			}
		}
		if best.OK {
			return best, true
		}
		b := familyBetween(past, store.CellKey{Name: name, Placement: placement}, nil)
		return b, b.OK
	}
}

// Cells are the figures of one sitting the history keeps: every row with a
// median and at least two blocks (a one-block row has no block medians to
// learn from).
func Cells(rs []result.Result) []store.Cell {
	var out []store.Cell
	for i := range rs {
		r := &rs[i]
		key, ok := cellKey(r)
		if !ok {
			continue
		}
		meds := stats.BlockMedians(r.Samples, result.BlockSizes(r.BlockInfo))
		if len(meds) < 2 {
			continue
		}
		s := r.OneWayNS
		out = append(out, store.Cell{CellKey: key, Median: s.Median, CILow: s.CILow, CIHigh: s.CIHigh, Confidence: s.Confidence,
			BlockMedians: meds, Iterations: r.IterationsPerSample, Contended: hasFlag(r, "contended")})
	}
	return out
}

func cellKey(r *result.Result) (store.CellKey, bool) {
	if r.OneWayNS.Median <= 0 || r.Explain != nil {
		return store.CellKey{}, false // an explained row's figure is measured beside probes
	}
	return store.CellKey{Name: r.Name, Placement: r.Placement, CPUs: result.CellCPUs(r)}, true
}

// Reproduce is the reproducibility interval of r, whose cell is key, given
// the cell histories recorded before r's sitting: from the cell's own
// sittings when it has MinOwnSittings (r's included), else from the pooled
// component of the cells of its placement that have, else nil (not learned).
func Reproduce(past map[store.CellKey][]store.Past, key store.CellKey, r *result.Result) *result.Reproducibility {
	own := clean(past[key])
	cur := stats.BlockMedians(r.Samples, result.BlockSizes(r.BlockInfo))
	if len(cur) >= 2 && !hasFlag(r, "contended") {
		own = append(own, cur)
	}
	b := stats.BetweenSittings(own)
	var pooled []string
	if b.Sittings < MinOwnSittings || !b.OK {
		// The family's spread, when it rests on more sittings than the
		// cell's own two (whose t quantile with one degree of freedom is
		// honest but very wide).
		if p := familyBetween(past, key, &pooled); p.OK && (!b.OK || p.DF > b.DF) {
			b = p
		} else {
			pooled = nil
		}
	}
	if !b.OK {
		return nil
	}
	s := r.OneWayNS
	rep, ok := stats.Reproducibility(s.Median, s.CILow, s.CIHigh, s.Confidence, s.Blocks, b, ReproLevel)
	if !ok {
		return nil
	}
	return &result.Reproducibility{Low: rep.Low, High: rep.High, Confidence: rep.Confidence, Sittings: rep.Sittings,
		BetweenCV: rep.BetweenCV, PooledFrom: pooled, Component: b}
}

// familyBetween pools the between-sitting components of the other cells of
// key's placement that have MinOwnSittings sittings; names, when not nil,
// receives the cells pooled.
func familyBetween(past map[store.CellKey][]store.Past, key store.CellKey, names *[]string) stats.Between {
	keys := make([]store.CellKey, 0, len(past))
	for k := range past {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].Name+keys[i].CPUs < keys[j].Name+keys[j].CPUs })
	var family []stats.Between
	for _, k := range keys {
		if k.Name == key.Name || k.Placement != key.Placement {
			continue
		}
		if fb := stats.BetweenSittings(clean(past[k])); fb.OK && fb.Sittings >= MinOwnSittings {
			family = append(family, fb)
			if names != nil {
				*names = append(*names, k.Name+" "+k.Placement)
			}
		}
	}
	return stats.PoolBetween(family)
}

// clean is a cell's uncontended sittings' block medians: a contended block
// is no clean measurement of the machine, and neither is a sitting that
// had one.
func clean(ps []store.Past) [][]float64 {
	var out [][]float64
	for _, p := range ps {
		if !p.Contended && len(p.BlockMedians) >= 2 {
			out = append(out, slices.Clone(p.BlockMedians))
		}
	}
	return out
}

func hasFlag(r *result.Result, code string) bool {
	return slices.ContainsFunc(r.Flags, func(f result.Flag) bool { return f.Code == code })
}
