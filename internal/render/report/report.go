// Package report renders result documents as one self-contained HTML file:
// the switch ladder on a log scale, ring curves, the creation and memory
// ladders, connection-pool curves, the published experiments, a comparison
// when there are several runs, each cell's trend over its machine's
// sittings when asked (history.go), every warning and flag, and the
// environment of each run side by side.
//
// The file opens offline and fetches nothing: the CSS is inline, every
// chart is inline SVG drawn here in Go, there is no script at all, and a
// Content-Security-Policy meta tag forbids any fetch should a future change
// add one by mistake (bojand/ghz's report, which loads its charts from CDNs,
// is the counterexample). Tooltips are SVG <title> elements, which browsers
// show without script. The output is deterministic (no clock, sorted maps),
// so it is golden-tested.
package report

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/units"
)

//go:embed report.css
var css string

//go:embed report.html.tmpl
var page string

// Options shape the report.
type Options struct {
	Title string
	// Generator names the program that wrote the report (no clock: the
	// report of the same files is the same bytes).
	Generator string
	// History, when not nil, adds the History section: each of its cells
	// over the sittings of its machine (ctxbench report --history). The
	// caller chooses the cells; an empty History says nothing is recorded.
	History *render.History
}

// runView is one input document as the report shows it.
type runView struct {
	Tag      string // A, B, C...
	Index    int
	Label    string
	Path     string
	Doc      *result.Document
	HostLine string
	Started  string
	Duration string
	DryRun   bool
}

type view struct {
	Title     string
	CSP       string
	Generator string
	Runs      []*runView
	Multi     bool
	DryRun    bool
	Overview  *overview
	Glances   []*glance
	Ladder    *forest
	// LadderMarks are the legends of the marks the ladder's rows carry.
	LadderMarks []string
	// The legends of marks the template prints, from the table of marks.
	FlaggedLegend, UntrustedLegend string
	VMLines                        []string // the VM decomposition, per run
	Rings                          []ringView
	Loads                          []loadView
	Spawn                          *forest
	Memory                         *forest
	Pools                          []poolView
	Repl                           []replView
	Explain                        []explainRun
	Attach                         []attachRun
	Compare                        *compareView
	History                        *historyView
	Warnings                       []warnView
	Env                            envView
	Legend                         []legendItem
	Sections                       []navItem
	FlagCount                      int
}

type navItem struct{ ID, Title string }

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"add":  func(a, b int) int { return a + b },
	"ns":   units.Time,
	"pct":  units.Change,
	"dict": func(id string, notes any) map[string]any { return map[string]any{"id": id, "notes": notes} },
}).Parse(strings.NewReplacer("/*CSS*/", css, "/*CSP*/", CSP()).Replace(page)))

// CSP is the Content-Security-Policy of the report: nothing may be fetched
// or run; the one inline style sheet is allowed by its hash; the favicon is
// an empty data: URL so that browsers do not ask the server for one.
func CSP() string {
	sum := sha256.Sum256([]byte(css))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
}

// Render writes the report of the inputs (at least one) to w, with cmp,
// the comparison of the inputs when there are several (nil: none shown).
func Render(w io.Writer, inputs []compare.Input, cmp *compare.Comparison, o Options) error {
	if len(inputs) == 0 {
		return fmt.Errorf("report: no result files")
	}
	if o.Title == "" {
		o.Title = "ctxbench report"
	}
	v := &view{Title: o.Title, CSP: CSP(), Generator: o.Generator, Multi: len(inputs) > 1,
		FlaggedLegend:   render.MarkFlagged.Symbol + " " + render.MarkFlagged.Legend,
		UntrustedLegend: render.MarkUntrusted.Symbol + " " + render.MarkUntrusted.Legend}
	v.Runs = runViews(inputs)
	for _, rv := range v.Runs {
		v.DryRun = v.DryRun || rv.DryRun
	}
	v.build(cmp, o)
	v.Sections = v.sections()
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// runViews are the inputs as the report shows them: tagged A, B, C...
func runViews(inputs []compare.Input) []*runView {
	var out []*runView
	for i, in := range inputs {
		d := in.Doc
		rv := &runView{Tag: tag(i), Index: i, Label: runLabel(in), Path: filepath.Base(in.Path), Doc: d, HostLine: d.Environment.HostLine(),
			DryRun: d.Settings.DryRun}
		if !d.StartedAt.IsZero() {
			rv.Started = d.StartedAt.UTC().Format("2006-01-02 15:04:05 UTC")
			if d.FinishedAt.After(d.StartedAt) {
				rv.Duration = d.FinishedAt.Sub(d.StartedAt).Round(1e9).String()
			}
		}
		out = append(out, rv)
	}
	return out
}

// build makes every section of the report from its runs (the comparison
// where there are several, the history where asked).
func (v *view) build(cmp *compare.Comparison, o Options) {
	v.Overview = buildOverview(v.Runs)
	for _, rv := range v.Runs {
		if g := buildGlance([]*runView{rv}); g != nil {
			g.Run = rv.Tag
			v.Glances = append(v.Glances, g)
		}
	}
	v.Ladder = ladderForest(v.Runs)
	v.LadderMarks = ladderMarks(v.Runs)
	for _, rv := range v.Runs {
		for _, l := range render.VMLines(rv.Doc) {
			if len(v.Runs) > 1 {
				l = rv.Tag + ": " + l
			}
			v.VMLines = append(v.VMLines, l)
		}
	}
	v.Rings = ringViews(v.Runs)
	v.Loads = loadViews(v.Runs)
	v.Spawn = spawnForest(v.Runs)
	v.Memory = memoryForest(v.Runs)
	v.Pools = poolViews(v.Runs)
	v.Repl = replViews(v.Runs)
	v.Explain = explainViews(v.Runs)
	v.Attach = attachViews(v.Runs)
	if len(v.Runs) > 1 && cmp != nil {
		if cv := buildCompare(cmp); len(cv.Tables) > 0 {
			v.Compare = cv
		}
	}
	v.History = buildHistory(o.History, v.Runs)
	v.Warnings = warnViews(v.Runs)
	for _, w := range v.Warnings {
		v.FlagCount += len(w.Flags)
	}
	v.Env = buildEnv(v.Runs)
	for _, p := range result.PlacementOrder() {
		if isLevel(p) && !anyAt(v.Runs, p) {
			continue // a level of the topology is in the legend where a row ran at it
		}
		cls, shape := placementClass(p)
		v.Legend = append(v.Legend, legendItem{Class: cls, Shape: shape, Text: p, Swatch: swatch(cls, shape)})
	}
}

// sections are the report's sections that have something to show, in the
// order the page holds them, for its navigation.
func (v *view) sections() []navItem {
	out := []navItem{{"runs", "Runs"}}
	add := func(has bool, id, title string) {
		if has {
			out = append(out, navItem{id, title})
		}
	}
	add(v.Ladder != nil, "ladder", "Ladder")
	add(len(v.Rings) > 0, "rings", "Rings")
	add(len(v.Loads) > 0, "load", "Under load")
	add(v.Spawn != nil, "spawn", "Creation")
	add(v.Memory != nil, "memory", "Memory")
	add(len(v.Pools) > 0, "pools", "Pools")
	add(len(v.Repl) > 0, "replications", "Published experiments")
	add(len(v.Explain) > 0, "explain", "Where the time goes")
	add(len(v.Attach) > 0, "attach", "In place")
	add(v.Compare != nil, "compare", "Comparison")
	add(v.History != nil, "history", "History")
	return append(out, navItem{"warnings", "Warnings"}, navItem{"environment", "Environment"})
}

// runLabel names a run: the label given (LABEL=FILE), else the file's
// name without its directory, which may be a temporary path that means
// nothing to a reader.
func runLabel(in compare.Input) string {
	if in.Label == "" || in.Label == in.Path {
		return filepath.Base(in.Path)
	}
	return in.Label
}

// ladderMarks are the legends of every mark the ladder's rows of runs
// carry, and of the marks of its columns, from the one table of marks.
func ladderMarks(runs []*runView) []string {
	var rs []result.Result
	for _, rv := range runs {
		rs = append(rs, rv.Doc.Results...)
	}
	ms := render.MarkSet{}
	for _, r := range rs {
		ms.Name(r)
		if r.SwitchesPerHop != nil {
			if r.Verification.Verified {
				ms.Use(render.MarkVerified)
			} else {
				ms.Use(render.MarkFlagged)
			}
		}
		if rp := r.OneWayNS.Reproducibility; rp != nil && len(rp.PooledFrom) > 0 {
			ms.Use(render.MarkPooled)
		}
		if strings.HasPrefix(render.MultipleCell(r, docOf(runs, r)), render.MarkUnresolved.Symbol) {
			ms.Use(render.MarkUnresolved)
		}
		if strings.Contains(render.MultipleCell(r, docOf(runs, r)), "@") {
			ms.Use(render.MarkLevel)
		}
	}
	return ms.Legends()
}

// docOf is the document of runs that holds r.
func docOf(runs []*runView, r result.Result) *result.Document {
	for _, rv := range runs {
		for _, x := range rv.Doc.Results {
			if x.Name == r.Name && x.Placement == r.Placement {
				return rv.Doc
			}
		}
	}
	return runs[0].Doc
}

func tag(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("R%d", i+1)
}

// glance is the ladder in one line per rung, like for like: the rows of
// result.Headline (one fixed mechanism per rung, and why) that the runs
// hold.
type glance struct {
	Run  string
	Cols []glanceCol
	Rows []glanceRow
}

type glanceCol struct{ Run, Placement, PClass, Mechanism string }

type glanceRow struct {
	Rung  string
	Cells []glanceCell
}

type glanceCell struct {
	Value, Interval, Name, Head string
	Flagged                     bool
}

// headlineName is the benchmark of a headline row in a pipe or a futex
// column ("" where the rung has none).
func headlineName(t result.HeadlineRow, futex bool) string {
	if futex {
		return t.Futex
	}
	return t.Pipe
}

func buildGlance(runs []*runView) *glance {
	g := &glance{}
	headline := result.Headline()
	find := func(rv *runView, name, pl string) *result.Result {
		for i := range rv.Doc.Results {
			if r := &rv.Doc.Results[i]; r.Name == name && r.Placement == pl && r.OneWayNS.N > 0 {
				return r
			}
		}
		return nil
	}
	type colKey struct {
		run   int
		pl    string
		futex bool
	}
	var cols []colKey
	for i, rv := range runs {
		for _, pl := range result.PlacementOrder() {
			for _, futex := range []bool{false, true} {
				has := false
				for _, t := range headline {
					name := headlineName(t, futex)
					has = has || (name != "" && find(rv, name, pl) != nil)
				}
				if has {
					cols = append(cols, colKey{i, pl, futex})
				}
			}
		}
	}
	if len(cols) == 0 {
		return nil
	}
	for _, c := range cols {
		cls, _ := placementClass(c.pl)
		mech := "pipe ping-pong (floor and goroutines: their handoff)"
		if c.futex {
			mech = "futex ping-pong"
		}
		g.Cols = append(g.Cols, glanceCol{Run: runs[c.run].Tag, Placement: c.pl, PClass: cls, Mechanism: mech})
	}
	for _, t := range headline {
		row := glanceRow{Rung: t.Rung}
		measured := false
		for _, c := range cols {
			name := headlineName(t, c.futex)
			r := (*result.Result)(nil)
			if name != "" {
				r = find(runs[c.run], name, c.pl)
			}
			head := c.pl + ", " + map[bool]string{false: "pipe", true: "futex"}[c.futex]
			if r == nil {
				row.Cells = append(row.Cells, glanceCell{Value: "—", Head: head})
				continue
			}
			measured = true
			s := r.OneWayNS
			row.Cells = append(row.Cells, glanceCell{Value: units.Time(s.Median), Interval: fmt.Sprintf("[%s – %s]", units.Time(s.CILow), units.Time(s.CIHigh)),
				Name: r.Name, Flagged: len(r.Flags) > 0, Head: head})
		}
		if measured {
			g.Rows = append(g.Rows, row)
		}
	}
	return g
}

type replView struct {
	Run *runView
	result.Replication
	ValueList []string
}

func replViews(runs []*runView) []replView {
	var out []replView
	for _, rv := range runs {
		for _, r := range rv.Doc.Replications {
			v := replView{Run: rv, Replication: r}
			keys := make([]string, 0, len(r.Values))
			for k := range r.Values {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				v.ValueList = append(v.ValueList, k+" = "+units.Digits(r.Values[k], 6))
			}
			out = append(out, v)
		}
	}
	return out
}

// compareView is the comparison of every run against the first.
type compareView struct {
	Alpha float64
	// HostLegend is MarkHost's legend where a change was host-adjusted.
	HostLegend string
	Heads      []string
	Tables     []compareTable
	Notes      []string
	Diffs      []string
	Hints      []string
	Synthet    []string
}

type compareTable struct {
	Title, Unit string
	Rows        []compareRow
}

type compareRow struct {
	Name, Placement string
	Geo             bool
	Cells           []compareCell
}

type compareCell struct {
	Value, Delta, Class string
	IsDelta             bool
	Notes               []int
}

func buildCompare(c *compare.Comparison) *compareView {
	v := &compareView{Alpha: c.Alpha, Notes: c.Notes, Diffs: c.EnvDiffs, Hints: c.Hints, Synthet: c.Synthetic}
	for i, in := range c.Inputs {
		v.Heads = append(v.Heads, tag(i)+" · "+in.Label)
	}
	for _, t := range c.Tables {
		// A table no two runs share compares nothing: the sections above
		// show it.
		shared := false
		for _, r := range t.Rows {
			for _, d := range r.Deltas {
				shared = shared || d.Tested
			}
		}
		if !shared {
			continue
		}
		ct := compareTable{Title: t.Title, Unit: t.Unit}
		for _, r := range render.CompareRows(t) {
			geo := r == t.Geomean
			cr := compareRow{Name: r.Name, Placement: r.Placement, Geo: geo}
			for i, cell := range r.Cells {
				cc := compareCell{Value: "—", Notes: cell.Notes}
				if cell.Present {
					cc.Value = units.Time(cell.Summary.Median)
					if ci := compare.CIPercent(cell.Summary); !geo && !math.IsNaN(ci) {
						cc.Value += " " + render.SpanPercent(cell.Summary.Median, cell.Summary.CILow, cell.Summary.CIHigh) + render.LevelMark(cell.Summary.Confidence)
					} else if !geo {
						cc.Value += " ± ∞"
					}
				}
				cr.Cells = append(cr.Cells, cc)
				if i == 0 {
					continue
				}
				d := r.Deltas[i]
				dc := compareCell{IsDelta: true, Notes: d.Notes}
				change := units.SignedPercent(100*d.Change, 1)
				interval := "[" + units.SignedPercent(100*d.Lo, 1) + ", " + units.SignedPercent(100*d.Hi, 1) + "]"
				if d.HostAdjusted {
					interval += " " + render.MarkHost.Symbol
					v.HostLegend = render.MarkHost.Symbol + " " + render.MarkHost.Legend
				}
				switch {
				case !d.Present:
				case !d.Tested:
					dc.Delta = change
				case !d.Significant:
					dc.Delta, dc.Class = render.MarkUnresolved.Symbol+" "+interval, "same"
				case d.Change > 0:
					dc.Delta, dc.Class = change+" "+interval, "worse"
				default:
					dc.Delta, dc.Class = change+" "+interval, "better"
				}
				cr.Cells = append(cr.Cells, dc)
			}
			ct.Rows = append(ct.Rows, cr)
		}
		v.Tables = append(v.Tables, ct)
	}
	return v
}

// warnView is everything a reader of one run must know.
type warnView struct {
	Run      *runView
	Warnings []result.Warning
	Flags    []string
	Failures []result.Failure
	Skipped  []result.Failure
}

func warnViews(runs []*runView) []warnView {
	var out []warnView
	for _, rv := range runs {
		w := warnView{Run: rv, Warnings: rv.Doc.Warnings, Failures: rv.Doc.Failures, Skipped: rv.Doc.Skipped}
		for _, r := range rv.Doc.Results {
			for _, f := range r.Flags {
				w.Flags = append(w.Flags, fmt.Sprintf("%s %s: %s — %s", r.Name, r.Placement, f.Code, f.Message))
			}
		}
		for _, r := range rv.Doc.Rings {
			for _, f := range r.Flags {
				w.Flags = append(w.Flags, fmt.Sprintf("%s ring of %d, %s, %s: %s — %s", r.Kind, r.Tasks, units.ShortBytes(float64(r.WorkingSetB)), r.Placement, f.Code, f.Message))
			}
		}
		out = append(out, w)
	}
	return out
}

// envView is the environment of every run, one column per run; a value
// that differs from the first run's is marked.
type envView struct {
	Heads []string
	Rows  []envRow
}

type envRow struct {
	Key   string
	Cells []envCell
}

type envCell struct {
	Value string
	Diff  bool
}

func buildEnv(runs []*runView) envView {
	v := envView{}
	for _, rv := range runs {
		v.Heads = append(v.Heads, rv.Tag+" · "+rv.Label)
	}
	for _, r := range envRows {
		er := envRow{Key: r.key}
		for i, rv := range runs {
			val := r.get(rv.Doc)
			er.Cells = append(er.Cells, envCell{Value: val, Diff: i > 0 && val != er.Cells[0].Value})
		}
		v.Rows = append(v.Rows, er)
	}
	return v
}

// envRows are the environment's rows: a key, and how a document gives
// its value.
var envRows = []struct {
	key string
	get func(*result.Document) string
}{
	{"host", func(d *result.Document) string { return d.Environment.Hostname }},
	{"cpu", func(d *result.Document) string {
		c := d.Environment.CPU
		return fmt.Sprintf("%s (%s family %d model %d stepping %d, microcode %s)", c.Model, c.Vendor, c.Family, c.ModelID, c.Stepping, orDash(c.Microcode))
	}},
	{"cpus", func(d *result.Document) string {
		c := d.Environment.CPU
		return fmt.Sprintf("%d logical, online %s, allowed %v; %d thread(s) per core, SMT active %v", c.Logical, c.Online, c.Allowed, c.ThreadsPerCore, c.SMTActive)
	}},
	{"core types", func(d *result.Document) string {
		c := d.Environment.CPU
		if !c.Hybrid {
			return "one (not hybrid)"
		}
		var p []string
		for _, t := range c.CoreTypes {
			p = append(p, fmt.Sprintf("%s %v", t.Name, t.CPUs))
		}
		return strings.Join(p, "; ")
	}},
	{"caches", func(d *result.Document) string {
		var p []string
		for _, c := range d.Environment.CPU.Caches {
			p = append(p, fmt.Sprintf("L%d %s %s", c.Level, strings.ToLower(c.Type), units.ShortBytes(float64(c.SizeBytes))))
		}
		return strings.Join(p, ", ")
	}},
	{"cpufreq governor", func(d *result.Document) string {
		return orText(d.Environment.CPU.Governor, "none (the hypervisor or firmware controls frequency)")
	}},
	{"tsc", func(d *result.Document) string {
		t := d.Environment.CPU.TSC
		s := fmt.Sprintf("constant %v, nonstop %v, usable %v", t.Constant, t.Nonstop, t.Usable)
		if t.HzMeasured > 0 {
			s += ", " + units.Fixed(t.HzMeasured/1e9, 3) + " GHz measured"
		}
		return s
	}},
	{"virtualization", func(d *result.Document) string { return d.Environment.Virtualization.Label }},
	{"kvm", func(d *result.Document) string {
		k := d.Environment.Virtualization.KVM
		s := fmt.Sprintf("backend %s, /dev/kvm %v, usable %v", orDash(k.Backend), k.Device, k.Usable)
		if k.Reason != "" {
			s += " (" + k.Reason + ")"
		}
		return s
	}},
	{"kernel", func(d *result.Document) string { return d.Environment.Kernel + " " + d.Environment.KernelBuild }},
	{"mitigations", func(d *result.Document) string { return orDash(strings.Join(render.Mitigations(d.Environment), "; ")) }},
	{"clocksource", func(d *result.Document) string { return d.Environment.Clocksource }},
	{"cgroups", func(d *result.Document) string {
		g := d.Environment.Cgroup
		return fmt.Sprintf("%s; cpu controller %s; own cpu cgroup %q (depth %d)", orDash(g.Version), orDash(g.CPUController), g.Own, g.Depth)
	}},
	{"scheduler", func(d *result.Document) string {
		s := d.Environment.Scheduler
		return fmt.Sprintf("%s, autogroup %v", orDash(s.Policy), s.Autogroup)
	}},
	{"idle", func(d *result.Document) string {
		i := d.Environment.Idle
		return fmt.Sprintf("driver %s, governor %s", orDash(i.Driver), orDash(i.Governor))
	}},
	{"perf events", func(d *result.Document) string {
		p := d.Environment.Perf
		s := fmt.Sprintf("software %v, hardware %v, perf_event_paranoid %d", p.Software, p.Hardware, p.Paranoid)
		if p.Reason != "" {
			s += " (" + p.Reason + ")"
		}
		return s
	}},
	{"load at start", func(d *result.Document) string {
		l := d.Environment.Load
		return fmt.Sprintf("%s / %s, %d runnable of %d", units.Fixed(l.Load1, 2), units.Fixed(l.Load5, 2), l.Runnable, l.Procs)
	}},
	{"steal during run", func(d *result.Document) string {
		s := d.Environment.Steal
		return fmt.Sprintf("%s steal, %s busy over %s s", units.Percent(s.Percent, 1), units.Percent(s.BusyPercent, 0), units.Fixed(s.Seconds, 0))
	}},
	{"kernel command line", func(d *result.Document) string { return d.Environment.Cmdline }},
	{"ctxbench", func(d *result.Document) string {
		t := d.Tool
		return fmt.Sprintf("%s %s (%s, cgo %v, %s)", t.Name, t.Version, t.GoVersion, t.Cgo, orDash(t.CC))
	}},
	{"settings", func(d *result.Document) string {
		s := d.Settings
		x := fmt.Sprintf("preset %s, %d samples per figure, %d per block, %d warm-up, %s per sample, CPUs %v, seed %d",
			s.Preset, s.Runs, s.SamplesPerBlock, s.Warmup, units.Time(float64(s.MinTimeNS)), s.CPUs, s.Seed)
		if s.DryRun {
			x += ", DRY RUN"
		}
		return x
	}},
	{"command", func(d *result.Document) string { return strings.Join(d.Command, " ") }},
}

func orDash(s string) string { return orText(s, "—") }

func orText(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}

// anyAt reports whether a row of runs ran at placement p.
func anyAt(runs []*runView, p string) bool {
	for _, rv := range runs {
		for _, r := range rv.Doc.Results {
			if r.Placement == p {
				return true
			}
		}
	}
	return false
}
