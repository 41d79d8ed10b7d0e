package session

// history.go: a run and the machine's history of sittings. Every measuring
// run is recorded (its cells' block medians under the environment's
// fingerprint) and every figure gets its reproducibility interval from the
// sittings recorded before it and itself. The store is opened once per run,
// before anything is measured (so --target-ci can aim at the interval the
// figures will carry), and written once after. It is a convenience, never a
// condition: when it cannot be read or written, the run goes on, its
// figures keep their precision intervals, and one line says why.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/store"
)

// MinOwnSittings is the fewest sittings from which a cell's own
// between-sitting component is preferred; a cell with fewer borrows the
// component pooled over the other cells of its placement that have enough
// (said in the figure's pooled_from), or, with none to borrow from, uses
// its own two (honest but wide: one degree of freedom).
const MinOwnSittings = 3

// ReproLevel is the confidence of every reproducibility interval: the
// level of every interval ctxbench states.
const ReproLevel = stats.Confidence

// history is one run's view of the machine's history: the store, opened
// once, and every sitting it held of this machine — of every build — when
// the run began. The noise (how far a sitting's figure moves) is learned
// per machine across builds; figures are compared per build.
type history struct {
	st    *store.Store // nil: the store could not be opened or read
	fp    string       // this run's fingerprint: the machine and the build under test
	desc  []byte
	past  map[store.CellKey][]store.Past // oldest first, every build of the machine; Past.Fingerprint is the build
	h     *result.History
	log   io.Writer
	cache map[string]stats.Between // learned's answers, by name and placement
}

// openHistory opens the store at path for the run whose tool, settings and
// environment d already holds (what its fingerprint is made of), and reads
// the sittings of every fingerprint with the same machine part. Failures
// are said in one line and noted.
func openHistory(ctx context.Context, path string, d *result.Document, log io.Writer) *history {
	f, fp, desc := result.FingerprintOf(d)
	mk := f.MachineKey()
	hs := &history{fp: fp, desc: desc, h: &result.History{Fingerprint: fp, Machine: mk}, log: log, cache: map[string]stats.Between{},
		past: map[store.CellKey][]store.Past{}}
	st, notes, err := store.Open(ctx, path)
	for _, n := range notes {
		fmt.Fprintf(log, "ctxbench: history: %s\n", n)
	}
	if err != nil {
		hs.fail("opened", err)
		return hs
	}
	hs.st = st
	machines, err := st.Every(ctx, nil)
	if err != nil {
		hs.fail("read", err) // the run is still recorded: what it measured is sound
		return hs
	}
	builds := map[string]bool{}
	sittings, thisBuild := map[int64]bool{}, map[int64]bool{}
	for _, m := range machines {
		if k, ok := result.MachineKeyOf([]byte(m.Description)); !ok || k != mk {
			continue
		}
		for key, ps := range m.Cells {
			for _, p := range ps {
				p.Fingerprint = m.Fingerprint
				hs.past[key] = append(hs.past[key], p)
				builds[m.Fingerprint] = true
				sittings[p.SittingID] = true
				if m.Fingerprint == fp {
					thisBuild[p.SittingID] = true
				}
			}
		}
	}
	for key := range hs.past {
		sort.SliceStable(hs.past[key], func(i, j int) bool { return hs.past[key][i].Started.Before(hs.past[key][j].Started) })
	}
	hs.h.Before, hs.h.MachineBefore, hs.h.Builds = len(thisBuild), len(sittings), len(builds)
	if !builds[fp] && len(builds) > 0 {
		hs.h.Builds++ // this run's build joins them
	}
	return hs
}

// emulatedHistory is the history's answer to a run under an emulator
// (qemu-user): its figures are the emulator's translation of the program,
// not this machine's costs, so the history neither reads the machine's
// sittings for it nor records it (figures learned from it would widen, or
// shift, every later interval of the machine).
func emulatedHistory(d *result.Document) *result.History {
	_, fp, _ := result.FingerprintOf(d)
	return &result.History{Fingerprint: fp, Note: "history not used: this " + d.Environment.Arch + " build ran emulated by " +
		d.Environment.Virtualization.Emulated + ", whose figures are not this machine's; nothing is read or recorded"}
}

func (hs *history) fail(what string, err error) {
	hs.h.Note = fmt.Sprintf("history not %s (%v); the intervals cover this sitting only", what, err)
	fmt.Fprintf(hs.log, "ctxbench: %s\n", hs.h.Note)
}

func (hs *history) close() {
	if hs.st != nil {
		hs.st.Close()
	}
}

// learned is the between-sitting spread a cell will be judged against,
// from the machine's sittings before this run (what --target-ci aims at,
// and what a run promises it will resolve); false when nothing is learned.
// The cell's CPUs are not known before it is planned: its best-learned CPU
// set stands for it.
func (hs *history) learned(name, placement string) (stats.Between, bool) {
	k := name + "\x00" + placement
	if b, ok := hs.cache[k]; ok {
		return b, b.OK
	}
	b, _ := choose(hs.past, hs.bestKey(name, placement), nil, measured)
	hs.cache[k] = b
	return b, b.OK
}

// recorded is the latest figure of a cell on this machine (any build, any
// CPUs), and how many sittings recorded it.
func (hs *history) recorded(name, placement string) (experiment.RecordedFigure, bool) {
	var latest store.Past
	n := 0
	for k, ps := range hs.past {
		if k.Name != name || k.Placement != placement {
			continue
		}
		for _, p := range ps {
			n++
			if p.Median > 0 && p.Started.After(latest.Started) {
				latest = p
			}
		}
	}
	if latest.Median <= 0 {
		return experiment.RecordedFigure{}, false
	}
	return experiment.RecordedFigure{MedianNS: latest.Median, Sittings: n, At: latest.Started.UTC().Format(time.RFC3339)}, true
}

// bestKey is the recorded cell of name and placement with the most
// sittings, whatever its CPUs: before a cell is planned its CPUs are not
// known, and its best-learned CPU set stands for it.
func (hs *history) bestKey(name, placement string) store.CellKey {
	key := store.CellKey{Name: name, Placement: placement}
	for c, ps := range hs.past {
		if c.Name == name && c.Placement == placement && len(ps) > len(hs.past[key]) {
			key = c
		}
	}
	return key
}

// learn gives every figure of the document its reproducibility interval
// and, where the blocks were probed, its host-adjusted figure, and records
// the document's sittings. An aa document is several sittings (its runs,
// recorded in order, each learning from those before it); any other
// document is one.
func (hs *history) learn(ctx context.Context, d *result.Document) *result.History {
	sittings, starts := sittingsOf(d)
	hm := hs.hostModel(sittings)
	if hm.state != nil {
		d.HostState = hm.state
	}
	recorded := 0
	for k, rs := range sittings {
		cells := Cells(rs)
		for i := range rs {
			key, ok := cellKey(&rs[i])
			if !ok {
				continue
			}
			rs[i].OneWayNS.Reproducibility = Reproduce(hs.past, key, hs.fp, &rs[i], measured)
			rs[i].HostAdjusted = hm.adjust(hs.past, key, hs.fp, &rs[i])
		}
		if len(cells) == 0 {
			continue
		}
		if hs.st != nil {
			s := store.Sitting{Fingerprint: hs.fp, Description: string(hs.desc), Started: starts[k], Command: strings.Join(d.Command, " "), Cells: cells}
			if _, err := hs.st.Record(ctx, s); err != nil {
				hs.fail("recorded", err)
				hs.st.Close()
				hs.st = nil
			} else {
				recorded++
			}
		}
		for _, c := range cells { // later sittings of an aa document learn from this one
			hs.past[c.CellKey] = append(hs.past[c.CellKey], store.Past{Started: starts[k], Cell: c, Fingerprint: hs.fp})
		}
	}
	hs.h.Recorded = recorded > 0
	if recorded == 0 && hs.h.Note == "" {
		hs.h.Note = "nothing recorded: no figure was taken in two or more blocks (a one-block figure has no block medians to learn from)"
	}
	return hs.h
}

// sittingsOf is a document's sittings and their start times: an aa
// document's runs, each starting when the one before it ended, or the
// document's one sitting.
func sittingsOf(d *result.Document) ([][]result.Result, []time.Time) {
	if d.AA == nil {
		return [][]result.Result{d.Results}, []time.Time{d.StartedAt}
	}
	var starts []time.Time
	at := d.StartedAt
	for k := range d.AA.Runs {
		starts = append(starts, at)
		if k < len(d.AA.SittingSeconds) {
			at = at.Add(time.Duration(d.AA.SittingSeconds[k] * float64(time.Second)))
		}
	}
	return d.AA.Runs, starts
}

// Import records a result file's sittings in st as the run that wrote it
// would have (ctxbench history --import): the same fingerprint, start
// times, command and cells. A sitting of the fingerprint already recorded
// at the same start time is not recorded again, so importing a file twice,
// or the file of a run that recorded itself, adds nothing. It returns how
// many sittings it wrote. A dry run is refused: its figures are synthetic.
func Import(ctx context.Context, st *store.Store, d *result.Document) (int, error) {
	if d.Settings.DryRun {
		return 0, errors.New("a dry run: its figures are synthetic")
	}
	if emu := d.Environment.Virtualization.Emulated; emu != "" {
		return 0, errors.New("a run emulated by " + emu + ": its figures are not a machine's")
	}
	_, fp, desc := result.FingerprintOf(d)
	past, err := st.History(ctx, fp)
	if err != nil {
		return 0, err
	}
	had := map[int64]bool{} // by Unix nanoseconds, as the store keeps times
	for _, ps := range past {
		for _, p := range ps {
			had[p.Started.UnixNano()] = true
		}
	}
	sittings, starts := sittingsOf(d)
	n := 0
	for k, rs := range sittings {
		cells := Cells(rs)
		if len(cells) == 0 || had[starts[k].UnixNano()] {
			continue
		}
		s := store.Sitting{Fingerprint: fp, Description: string(desc), Started: starts[k], Command: strings.Join(d.Command, " "), Cells: cells}
		if _, err := st.Record(ctx, s); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
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
			BlockMedians: meds, BlockProbes: result.BlockProbes(r.BlockInfo), Iterations: r.IterationsPerSample, Contended: r.Contended()})
	}
	return out
}

func cellKey(r *result.Result) (store.CellKey, bool) {
	if r.OneWayNS.Median <= 0 || r.Explain != nil {
		return store.CellKey{}, false // an explained row's figure is measured beside probes
	}
	return store.CellKey{Name: r.Name, Placement: r.Placement, CPUs: result.CellCPUs(r)}, true
}

// figureOf is how a recorded sitting's figure is read: as measured, or
// with the host's state taken out.
type figureOf func(p store.Past) (stats.SittingFigure, bool)

// measured is a recorded sitting's figure as measured.
func measured(p store.Past) (stats.SittingFigure, bool) {
	f := stats.SittingFigure{Median: p.Median, CILow: p.CILow, CIHigh: p.CIHigh, Confidence: p.Confidence, Blocks: len(p.BlockMedians)}
	return f, f.Median > 0
}

// Reproduce is the reproducibility interval of r, whose cell is key and
// whose build is build, given the machine's cell histories recorded before
// r's sitting (nil: nothing learned), reading figures with fig. The
// interval's spread includes r's own sitting (choose); Prior, the spread
// from the sittings before it alone, is what compare tests r against, so
// that a change is never judged by a spread it inflated itself.
func Reproduce(past map[store.CellKey][]store.Past, key store.CellKey, build string, r *result.Result, fig figureOf) *result.Reproducibility {
	s := r.OneWayNS
	return reproduce(past, key, build, stats.FigureOf(s.Summary), r.Contended(), fig)
}

func reproduce(past map[store.CellKey][]store.Past, key store.CellKey, build string, f stats.SittingFigure, contended bool, fig figureOf) *result.Reproducibility {
	var cur *stats.Sitting
	if !contended {
		cur = &stats.Sitting{SittingFigure: f, Build: build}
	}
	b, pooled := choose(past, key, cur, fig)
	if !b.OK {
		return nil
	}
	rep, ok := stats.Reproducibility(f.Median, f.CILow, f.CIHigh, f.Confidence, f.Blocks, b, ReproLevel)
	if !ok {
		return nil
	}
	out := &result.Reproducibility{Low: rep.Low, High: rep.High, Confidence: rep.Confidence, Sittings: rep.Sittings,
		BetweenCV: rep.BetweenCV, PooledFrom: pooled, Component: b}
	if prior, _ := choose(past, key, nil, fig); prior.OK {
		out.Prior = &prior
	}
	return out
}

// choose is the between-sitting spread of the cell key on this machine:
// from the cell's own uncontended sittings of every build (cur, this
// sitting, among them when given) when there are MinOwnSittings of them,
// else the spread pooled over the other cells of its placement (the same
// benchmark on other CPUs included) when that rests on more degrees of
// freedom than the cell's own, else the cell's own (few sittings: wide).
// pooled names the cells a pooled spread came from.
func choose(past map[store.CellKey][]store.Past, key store.CellKey, cur *stats.Sitting, fig figureOf) (stats.Between, []string) {
	own := clean(past[key], fig)
	if cur != nil {
		own = append(own, *cur)
	}
	b := stats.BetweenSittings(own)
	if b.OK && b.Sittings >= MinOwnSittings {
		return b, nil
	}
	keys := make([]store.CellKey, 0, len(past))
	for k := range past {
		if k != key && k.Placement == key.Placement {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, c := keys[i], keys[j]
		return a.Name < c.Name || a.Name == c.Name && a.CPUs < c.CPUs
	})
	var family []stats.Between
	var names []string
	for _, k := range keys {
		if fb := stats.BetweenSittings(clean(past[k], fig)); fb.OK && fb.Sittings >= MinOwnSittings {
			family = append(family, fb)
			n := k.Name + " " + k.Placement
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	if p := stats.PoolBetween(family); p.OK && (!b.OK || p.DF > b.DF) {
		return p, names
	}
	return b, nil
}

// clean is a cell's uncontended sittings as fig reads them, each with its
// build: a sitting that had a contended block is no clean measurement of
// the machine, and one of fewer than two blocks has no precision interval
// to compare with.
func clean(ps []store.Past, fig figureOf) []stats.Sitting {
	var out []stats.Sitting
	for _, p := range ps {
		if p.Contended || len(p.BlockMedians) < 2 {
			continue
		}
		if f, ok := fig(p); ok {
			out = append(out, stats.Sitting{SittingFigure: f, Build: p.Fingerprint})
		}
	}
	return out
}
