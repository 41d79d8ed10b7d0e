package formats

// compare_json.go: the comparison as one JSON document, for scripts and CI
// jobs that would otherwise parse the text table. It holds everything the
// text shows — every footnote resolved to its text where it applies, the
// hints and the environment differences — and the numbers unrounded.

import (
	"encoding/json"
	"io"
	"math"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/result"
)

// CompareDoc is the JSON form of a comparison. Times are in nanoseconds
// (per hop or per creation, as the table's unit says); changes are ratios
// new/base − 1 (0.07 = 7% slower). A number that does not exist — an
// interval a row has not got, a p-value without a test — is null, never
// made up.
type CompareDoc struct {
	Alpha float64 `json:"alpha"`
	// IgnorePlacement: rows were matched by benchmark name only.
	IgnorePlacement bool            `json:"ignore_placement"`
	Inputs          []CompareInput  `json:"inputs"` // the base first
	Tables          []CompareTable  `json:"tables"`
	Phases          []ComparePhases `json:"phases"`
	// Attach: two attaches (ctxbench attach) compared, target by target
	// (empty where the base is no attach).
	Attach []CompareAttach `json:"attach"`
	// Shared are the environment lines every input has in common;
	// EnvDiffs one line per attribute in which they differ.
	Shared   []string `json:"shared"`
	EnvDiffs []string `json:"env_diffs"`
	Hints    []string `json:"hints"`
	// Resolvable is the median over the rows of the change a comparison
	// like theirs finds in 80% of repetitions
	// (null without a tested change).
	Resolvable *float64 `json:"resolvable"`
}

// CompareInput is one result file.
type CompareInput struct {
	Label string `json:"label"`
	Path  string `json:"path"`
	// DryRun: its figures are synthetic, nothing was measured.
	DryRun bool `json:"dry_run"`
}

// CompareTable is one kind of figure.
type CompareTable struct {
	Title string       `json:"title"`
	Unit  string       `json:"unit"`
	Rows  []CompareRow `json:"rows"`
	// Geomean summarises the table (null with fewer than two rows): its
	// figures have no interval and its changes no test.
	Geomean *CompareRow `json:"geomean"`
	// Reproducible counts the changes tested against reproducibility
	// (unit "sittings").
	Reproducible int `json:"reproducible"`
}

// CompareRow is one benchmark (and placement) across the inputs: a figure
// per input that has it, and a change per input after the base that has
// it too.
type CompareRow struct {
	Name      string          `json:"name"`
	Placement string          `json:"placement,omitempty"` // "" with ignore_placement
	Figures   []CompareFigure `json:"figures"`
	Changes   []CompareChange `json:"changes"`
}

// CompareFigure is one input's median with its interval.
type CompareFigure struct {
	Input     string   `json:"input"`
	Placement string   `json:"placement,omitempty"`
	N         int      `json:"n"` // samples (rows, in a geomean)
	Median    *float64 `json:"median"`
	// CILow and CIHigh bound the median at Confidence; null where there
	// is no interval (too few samples, a geomean).
	CILow      *float64 `json:"ci_low"`
	CIHigh     *float64 `json:"ci_high"`
	Confidence *float64 `json:"confidence"`
	// Interval says what the interval was computed from: "block-median-interpolated"
	// or "samples".
	Interval        string                  `json:"interval_method,omitempty"`
	Blocks          int                     `json:"blocks,omitempty"`
	Reproducibility *result.Reproducibility `json:"reproducibility,omitempty"`
	Notes           []string                `json:"notes"`
}

// CompareChange is one input against the base.
type CompareChange struct {
	Input string `json:"input"`
	Base  string `json:"base"`
	// Change is the Hodges–Lehmann ratio − 1 (a geomean row: the geomean
	// of the medians' ratios − 1).
	Change *float64 `json:"change"`
	// Low and High bound it at Confidence; null without an interval.
	Low        *float64 `json:"low"`
	High       *float64 `json:"high"`
	Confidence *float64 `json:"confidence"`
	P          *float64 `json:"p"`
	// Unit is what was compared: "blocks", "samples" (a file without
	// blocks) or "sittings" (against reproducibility); N and NBase how
	// many of them on each side. Null for an untested (geomean) change.
	Unit  *string `json:"unit"`
	NBase int     `json:"n_base"`
	N     int     `json:"n"`
	// Significant: the interval excludes no change (text shows "~"
	// where it does not).
	Significant bool     `json:"significant"`
	Tested      bool     `json:"tested"`
	Resolvable  *float64 `json:"resolvable"`
	// HostAdjusted: the change is of the host-adjusted figures (both files
	// probed the host); MeasuredChange is then the ratio of the measured
	// medians − 1, shown beside.
	HostAdjusted   bool     `json:"host_adjusted,omitempty"`
	MeasuredChange *float64 `json:"measured_change,omitempty"`
	Notes          []string `json:"notes"`
}

// ComparePhases is one explained row of the base against another file,
// phase by phase on the kernel's clock (ns per hop; 0 where a side lacks
// the phase).
type ComparePhases struct {
	Name      string         `json:"name"`
	Placement string         `json:"placement"`
	Input     string         `json:"input"`
	Phases    []ComparePhase `json:"phases"`
}

// ComparePhase is one phase of ComparePhases; on a hop across CPUs, CPU
// is its side. Where both files have the untraced scale, the phase on it
// too (absent otherwise: 0 would read as a figure).
type ComparePhase struct {
	Phase          string   `json:"phase"`
	CPU            string   `json:"cpu,omitempty"`
	BaseNS         float64  `json:"base_ns"`
	NS             float64  `json:"ns"`
	BaseUntracedNS *float64 `json:"base_untraced_ns,omitempty"`
	UntracedNS     *float64 `json:"untraced_ns,omitempty"`
}

// CompareAttach is one target of the base's attach against the same
// target in another file.
type CompareAttach struct {
	Target  string                `json:"target"`
	Input   string                `json:"input"`
	Figures []CompareAttachFigure `json:"figures"`
}

// CompareAttachFigure is one figure of CompareAttach: "switches per
// second", "ns per switch", "share lost" (a fraction of the target's CPU
// time) or "run-queue wait per second". Base and Cur are the whole runs'
// values; Change (other/base − 1) and its interval are of the windows'
// values where Tested (the Hodges–Lehmann ratio), else the whole runs'
// ratio with no interval. Resolved: the interval excludes no change.
type CompareAttachFigure struct {
	Figure      string   `json:"figure"`
	Base        float64  `json:"base"`
	Cur         float64  `json:"cur"`
	Change      *float64 `json:"change"`
	Low         *float64 `json:"low"`
	High        *float64 `json:"high"`
	Confidence  *float64 `json:"confidence"`
	Tested      bool     `json:"tested"`
	Resolved    bool     `json:"resolved"`
	BaseWindows int      `json:"base_windows"`
	Windows     int      `json:"windows"`
}

// CompareJSON writes the comparison as one indented JSON document
// (CompareDoc).
func CompareJSON(w io.Writer, c *compare.Comparison) error {
	b, err := json.MarshalIndent(CompareDocOf(c), "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// CompareDocOf is the comparison as CompareJSON writes it.
func CompareDocOf(c *compare.Comparison) CompareDoc {
	d := CompareDoc{Alpha: c.Alpha, IgnorePlacement: c.IgnorePlacement, Inputs: []CompareInput{}, Tables: []CompareTable{},
		Phases: []ComparePhases{}, Attach: []CompareAttach{}, Shared: strs(c.Shared), EnvDiffs: strs(c.EnvDiffs), Hints: strs(c.Hints), Resolvable: finiteOrNull(c.Resolvable())}
	dry := map[string]bool{}
	for _, l := range c.Synthetic {
		dry[l] = true
	}
	for _, in := range c.Inputs {
		d.Inputs = append(d.Inputs, CompareInput{Label: in.Label, Path: in.Path, DryRun: dry[in.Label]})
	}
	// Footnotes are numbered from 1 in the comparison; here each is its
	// text where it applies, so nothing refers to a numbering.
	text := func(notes []int) []string {
		out := []string{}
		for _, n := range notes {
			if n >= 1 && n <= len(c.Notes) {
				out = append(out, c.Notes[n-1])
			}
		}
		return out
	}
	for _, t := range c.Tables {
		jt := CompareTable{Title: t.Title, Unit: t.Unit, Rows: []CompareRow{}, Reproducible: t.Reproducible}
		for _, r := range t.Rows {
			jt.Rows = append(jt.Rows, compareRow(c, r, false, text))
		}
		if t.Geomean != nil {
			g := compareRow(c, t.Geomean, true, text)
			jt.Geomean = &g
		}
		d.Tables = append(d.Tables, jt)
	}
	for _, pc := range c.Phases {
		jp := ComparePhases{Name: pc.Name, Placement: pc.Placement, Input: pc.Input, Phases: []ComparePhase{}}
		for _, p := range pc.Phases {
			cp := ComparePhase{Phase: p.Phase, CPU: p.CPU, BaseNS: p.BaseNS, NS: p.CurNS}
			if pc.Untraced {
				base, cur := p.BaseUntracedNS, p.CurUntracedNS
				cp.BaseUntracedNS, cp.UntracedNS = &base, &cur
			}
			jp.Phases = append(jp.Phases, cp)
		}
		d.Phases = append(d.Phases, jp)
	}
	for _, ac := range c.Attach {
		ja := CompareAttach{Target: ac.Target, Input: ac.Input, Figures: []CompareAttachFigure{}}
		for _, f := range ac.Figures {
			jf := CompareAttachFigure{Figure: f.Figure, Base: f.Base, Cur: f.Cur, Tested: f.Tested, Resolved: f.Resolved,
				BaseWindows: f.BaseWindows, Windows: f.CurWindow}
			if f.Base > 0 || f.Tested {
				jf.Change = finiteOrNull(f.Change)
			}
			if f.Tested {
				jf.Low, jf.High, jf.Confidence = finiteOrNull(f.Lo), finiteOrNull(f.Hi), finiteOrNull(f.Confidence)
			}
			ja.Figures = append(ja.Figures, jf)
		}
		d.Attach = append(d.Attach, ja)
	}
	return d
}

func compareRow(c *compare.Comparison, r *compare.Row, geo bool, text func([]int) []string) CompareRow {
	row := CompareRow{Name: r.Name, Placement: r.Placement, Figures: []CompareFigure{}, Changes: []CompareChange{}}
	for i, cell := range r.Cells {
		if !cell.Present {
			continue
		}
		s := cell.Summary
		fig := CompareFigure{Input: c.Inputs[i].Label, Placement: cell.Placement, N: s.N, Median: finiteOrNull(s.Median),
			Interval: s.Interval, Blocks: s.Blocks, Reproducibility: cell.Repro, Notes: text(cell.Notes)}
		// As the text table: a summary without a stated confidence has
		// no interval (it shows "± ∞"), and a geomean has none either.
		if !geo && s.Confidence > 0 {
			fig.CILow, fig.CIHigh, fig.Confidence = finiteOrNull(s.CILow), finiteOrNull(s.CIHigh), finiteOrNull(s.Confidence)
		}
		row.Figures = append(row.Figures, fig)
	}
	for i := 1; i < len(r.Deltas); i++ {
		dl := r.Deltas[i]
		if !dl.Present {
			continue
		}
		ch := CompareChange{Input: c.Inputs[i].Label, Base: c.Inputs[0].Label, Change: finiteOrNull(dl.Change),
			Significant: dl.Significant, Tested: dl.Tested, Notes: text(dl.Notes)}
		if dl.Tested {
			unit := dl.Unit
			ch.Unit, ch.NBase, ch.N = &unit, dl.N1, dl.N2
			ch.P = finiteOrNull(dl.P)
			// As formatDelta: a test that could not form an interval
			// leaves its bounds and confidence zero.
			if !(dl.Lo == 0 && dl.Hi == 0 && dl.Confidence == 0) {
				ch.Low, ch.High, ch.Confidence = finiteOrNull(dl.Lo), finiteOrNull(dl.Hi), finiteOrNull(dl.Confidence)
				ch.Resolvable = finiteOrNull(dl.Resolvable)
			}
			if dl.HostAdjusted {
				ch.HostAdjusted, ch.MeasuredChange = true, finiteOrNull(dl.MeasuredChange)
			}
		}
		row.Changes = append(row.Changes, ch)
	}
	return row
}

// finiteOrNull is v, or null where v is not a number JSON can hold (NaN
// says "none" in the comparison).
func finiteOrNull(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// strs keeps an empty list an empty array in the JSON.
func strs(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
