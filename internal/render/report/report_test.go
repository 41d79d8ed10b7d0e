package report_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/render/report"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

func doc(t *testing.T, o testdoc.Options) *result.Document {
	t.Helper()
	d, err := testdoc.Doc(o)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// inputs are two fake runs: a full one with every section, and a second
// machine whose ladder is twice as slow.
func inputs(t *testing.T) []compare.Input {
	a := doc(t, testdoc.Options{Seed: 1, Experiments: true})
	b := doc(t, testdoc.Options{Seed: 1, Scale: 2, Only: []model.Placement{model.SameCPU, model.CrossCPU}})
	b.Environment.Hostname = "otherhost"
	b.Environment.Kernel = "6.12.0-other"
	return []compare.Input{{Label: "fast", Path: "fast.json", Doc: a}, {Label: "slow", Path: "slow.json", Doc: b}}
}

func render(t *testing.T, in []compare.Input) []byte {
	t.Helper()
	var buf bytes.Buffer
	var cmp *compare.Comparison
	if len(in) > 1 {
		c, err := compare.Compare(in, compare.Options{Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		cmp = c
	}
	if err := report.Render(&buf, in, cmp, report.Options{Generator: "ctxbench test"}); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// sectionHTML is the HTML of one section of a report, by its id ("" if none).
func sectionHTML(page []byte, id string) []byte {
	m := regexp.MustCompile(`(?s)<section id="` + regexp.QuoteMeta(id) + `">.*?</section>`).Find(page)
	return m
}

// keep narrows a document to the ladder rows of these benchmarks at these
// placements ("name placement"), for goldens small enough to read.
func keep(d *result.Document, rows ...string) *result.Document {
	var rs []result.Result
	for _, r := range d.Results {
		for _, k := range rows {
			if r.Name+" "+r.Placement == k {
				rs = append(rs, r)
			}
		}
	}
	d.Results = rs
	return d
}

// The report's goldens are small named cases, one section each: a reader
// sees what one input becomes. Checks of meaning are the other tests.
func TestGolden(t *testing.T) {
	one := func() *result.Document { return keep(doc(t, testdoc.Options{Seed: 1}), "thread/pipe same-cpu") }
	pair := func(scale float64) *result.Document {
		return keep(doc(t, testdoc.Options{Seed: 1, Scale: scale}), "thread/pipe same-cpu", "thread/pipe cross-cpu")
	}
	exp := func() *result.Document {
		d := doc(t, testdoc.Options{Seed: 1, Experiments: true})
		d.Results = nil
		d.Rings, d.Spawn, d.Memory = d.Rings[:min(2, len(d.Rings))], d.Spawn[:min(2, len(d.Spawn))], d.Memory[:min(2, len(d.Memory))]
		return d
	}
	in := func(ds ...*result.Document) []compare.Input {
		var out []compare.Input
		for i, d := range ds {
			n := string(rune('a'+i)) + ".json"
			out = append(out, compare.Input{Label: n, Path: "/tmp/x/" + n, Doc: d})
		}
		return out
	}
	cases := []struct {
		name     string
		inputs   []compare.Input
		sections []string
	}{
		{"one-row", in(one()), []string{"overview", "runs", "ladder"}},
		{"two-placements", in(pair(1)), []string{"ladder", "glance"}},
		{"compare-two", in(pair(1), pair(2)), []string{"compare"}},
		{"experiments", in(exp()), []string{"rings", "spawn", "memory"}},
		{"load", in(loadDoc(t, false)), []string{"load"}},
	}
	for _, c := range cases {
		page := render(t, c.inputs)
		for _, id := range c.sections {
			got := sectionHTML(page, id)
			if got == nil {
				t.Errorf("%s: no section %q", c.name, id)
				continue
			}
			testdoc.Golden(t, "report/"+c.name+"."+id+".html", append(got, '\n'))
		}
	}
}

func TestDeterministic(t *testing.T) {
	if !bytes.Equal(render(t, inputs(t)), render(t, inputs(t))) {
		t.Fatal("two renderings of the same documents differ")
	}
}

// The report must not be able to fetch anything: no external URL in any
// src or href, no script, and a CSP that forbids fetches.
func TestSelfContained(t *testing.T) {
	html := string(render(t, inputs(t)))
	if strings.Contains(strings.ToLower(html), "<script") {
		t.Error("the report contains a script")
	}
	for _, m := range regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(html, -1) {
		v := m[2]
		if !strings.HasPrefix(v, "#") && v != "data:," {
			t.Errorf("%s=%q can fetch something", m[1], v)
		}
	}
	if strings.Contains(html, "@import") || strings.Contains(html, "url(") {
		t.Error("the style sheet can fetch something")
	}
	csp := report.CSP()
	if !strings.Contains(html, `http-equiv="Content-Security-Policy" content="`+csp+`"`) {
		t.Error("no Content-Security-Policy meta tag")
	}
	if !strings.HasPrefix(csp, "default-src 'none';") {
		t.Errorf("CSP %q does not forbid everything by default", csp)
	}
}

// Every section the documents have data for is drawn, with the labels of
// the figures in tooltips.
func TestShowsEverything(t *testing.T) {
	in := inputs(t)
	html := string(render(t, in))
	for _, want := range []string{
		`id="ladder"`, `id="rings"`, `id="spawn"`, `id="memory"`, `id="pools"`, `id="replications"`,
		`id="compare"`, `id="warnings"`, `id="environment"`, "DRY RUN",
		"against the number of contexts", "against the working set", "95% of peak", "switches per query",
		"thread creation ~17 µs", "a goroutine needs 2 KiB", "the published figure mixed placements",
		"kernel differs", "otherhost", "6.12.0-other",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report does not show %q", want)
		}
	}
	// One ladder row (one chart) per result of every run.
	rows := 0
	for _, i := range in {
		rows += len(i.Doc.Results)
	}
	// (+1: the ladder repeats its axis below the table.)
	want := rows + len(in[0].Doc.Spawn) + len(in[0].Doc.Memory) + 1
	if got := strings.Count(html, `<td class="chart"><svg`); got != want {
		t.Errorf("%d forest rows, want %d", got, want)
	}
	// Every ladder figure's label is in a tooltip.
	for _, r := range in[0].Doc.Results {
		if !strings.Contains(html, "<title>"+escape(r.Label.String())) {
			t.Errorf("no tooltip with the label of %s %s", r.Name, r.Placement)
		}
	}
	// The slow run is twice as slow: the comparison must say so.
	if !strings.Contains(html, `class="num worse">`+escape("+100.0%")) {
		t.Error("the comparison does not show the 2x slowdown as significant")
	}
}

func escape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

// An explained run shows its hop as a stacked bar of phases, the steps and
// the judged claims, and a model that did not close says so.
func TestExplainSection(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1})
	for i := range d.Results {
		if d.Results[i].Name != "thread/pipe" || d.Results[i].Placement != "same-cpu" {
			continue
		}
		d.Results[i].Explain = &result.Explain{Method: "raw tracepoints only", Model: "pipe hop, same CPU", Blocks: 10,
			TracedOneWayNS: 5900, UntracedOneWayNS: 3400, TracedMeanNS: 6000, ProbeCost: 0.7, ProbeCostLow: 0.6, ProbeCostHigh: 0.9, Closure: 0.8,
			Phases: []result.ExplainPhase{{Name: "write(): copy into the pipe", NsPerHop: 2000, PerHop: 1}, {Name: "pick next task", NsPerHop: 2800, PerHop: 1}}}
		d.Results[i].Warnings = append(d.Results[i].Warnings, result.Warning{Code: "explain-closure", Message: "the phases sum to 80% of the traced hop"})
	}
	d.Derived.Explain = &result.ExplainDerived{
		Steps:  []result.ExplainStep{{What: "thread → process (pipe)", From: "thread/pipe", To: "process/pipe", FromNS: 3400, ToNS: 3600, Change: 0.06, ChangeLow: 0.01, ChangeHigh: 0.1, Resolved: true, Phases: []result.ExplainDelta{{Name: "context switch: switch_mm up to a TLB flush", DeltaNS: 290}}}},
		Claims: []result.ExplainClaim{{Rung: "process", Claim: "TLB must be flushed (different address space)", Verdict: "refuted", Evidence: "the PCID kept the entries"}},
	}
	html := string(render(t, []compare.Input{{Label: "x", Path: "x.json", Doc: d}}))
	for _, want := range []string{`id="explain"`, "Where the time goes", `class="phasebar"`, "write(): copy into the pipe", "pick next task",
		"thread → process (pipe)", "switch_mm up to a TLB flush", "refuted", "TLB must be flushed", "the phases sum to 80% of the traced hop"} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if strings.Contains(string(render(t, inputs(t)[:1])), `id="explain"`) {
		t.Error("a run without explain data has an explain section")
	}
}

// At a glance compares one fixed mechanism per rung: the thread row is
// thread/pipe (with thread/futex beside it), never the cheapest thread
// row, and each figure carries its interval.
func TestGlanceIsLikeForLike(t *testing.T) {
	html := string(render(t, inputs(t)[:1]))
	i := strings.Index(html, `id="glance"`)
	j := strings.Index(html[i:], "</section>")
	if i < 0 || j < 0 {
		t.Fatal("no glance section")
	}
	g := html[i : i+j]
	for _, want := range []string{"like for like", "thread/pipe", "thread/futex", "process/pipe", "pipe ping-pong", "futex ping-pong", "[", "–"} {
		if !strings.Contains(g, want) {
			t.Errorf("the glance lacks %q", want)
		}
	}
	for _, not := range []string{"thread/yield", "futex-spin", "container/pipe-ns"} {
		if strings.Contains(g, not) {
			t.Errorf("the glance shows %q: a mechanism chosen by its speed", not)
		}
	}
}

// Only noise warnings are the "~ varied a lot" of a ladder row; any other
// warning (warm-up dropped, target interval missed) is a note in its own
// words.
func TestOnlyNoiseIsVariedALot(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1})
	r := &d.Results[0]
	r.Warnings = []result.Warning{
		{Code: "warmup", Message: "the first 2 measured sample(s) of every block were still warming up"},
		{Code: "target-ci", Message: "did not reach the target interval: budget spent"},
		{Code: "noise-cv", Message: "high variation (CV 14%)"},
	}
	html := string(render(t, []compare.Input{{Label: "x", Path: "x.json", Doc: d}}))
	titles := regexp.MustCompile(`<span class="noise" title="([^"]*)">~</span>`).FindAllStringSubmatch(html, -1)
	if len(titles) != 1 || titles[0][1] != escape("high variation (CV 14%)") {
		t.Fatalf("the ~ marks: %q", titles)
	}
	notes := html[strings.Index(html, `id="ladder"`):]
	notes = notes[:strings.Index(notes, "</section>")]
	for _, want := range []string{"still warming up", "did not reach the target interval"} {
		if !strings.Contains(notes, `<li id="ladder-note-`) || !strings.Contains(notes, want) {
			t.Errorf("the warning %q is not a note of the ladder", want)
		}
	}
	if !strings.Contains(html, "~ 1 figure varied a lot") {
		t.Error("the noisy row is not counted once")
	}
}

// A ring's net with an interval is shown as the interval's median (the net
// taken block by block), not raw median − overhead median beside it.
func TestRingNetIsTheFigureOfItsInterval(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1, Experiments: true})
	d.Rings = d.Rings[:1]
	d.Rings[0].NetNS = 200
	d.Rings[0].NetInterval = &result.Interval{Median: 150, Low: 140, High: 160, Confidence: 0.75, Rounds: 4}
	html := string(render(t, []compare.Input{{Label: "x", Path: "x.json", Doc: d}}))
	if !strings.Contains(html, "150 ns [140 ns, 160 ns] @75%") || strings.Contains(html, "200 ns [140 ns, 160 ns]") {
		t.Error("the ring's net is not the median of its interval, with its level")
	}
}

// A stackless row carries the § every table puts after its name, with the
// mark's legend as its note, once however many rows carry it.
func TestStacklessMarked(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1})
	n := 0
	for i := range d.Results {
		if d.Results[i].Placement == "same-cpu" && n < 2 {
			d.Results[i].Label.Stackless = true
			n++
		}
	}
	out := string(render(t, []compare.Input{{Label: "a", Path: "a.json", Doc: d}}))
	if got := strings.Count(out, " §</code>"); got != n {
		t.Errorf("%d benchmark names marked §, want %d", got, n)
	}
	if got := strings.Count(out, "§ stackless: resumes a heap frame"); got != 1 {
		t.Errorf("the § legend is in the notes %d times, want once", got)
	}
}

// A captured slow hop is drawn as CPU lanes on one time axis beside a
// typical hop on the same axis, coloured by cause, with the other task
// named, the capture's cost stated and slow against typical with
// intervals; across CPUs each lane says whose CPU it is.
func TestCaptureSection(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 4, Capture: true})
	html := string(render(t, []compare.Input{{Label: "captured", Path: "captured.json", Doc: d}}))
	for _, want := range []string{
		"The slow hops", "the slowest captured hop as CPU lanes on one time axis", "a typical hop as CPU lanes on the same time axis",
		"kworker/1:1 (pid 77)", "own cost: &#43;12.1%", `class="c-other-task"`, `class="c-own-work"`,
		"CPU 0 waker", "CPU 1 woken", "another task ran", "[&#43;18.0 µs, &#43;44.0 µs]",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report does not show %q", want)
		}
	}
}

// The overview groups rows in the vocabulary's order of rungs
// (result.RungOrder), whatever order the document holds them in, and a
// rung the vocabulary does not know comes after every known one.
func TestOverviewRungOrder(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1})
	slices.Reverse(d.Results)
	extra := d.Results[0]
	extra.Name, extra.Rung = "unikernel/x", "unikernel"
	d.Results = append(d.Results, extra)
	page := string(sectionHTML(render(t, []compare.Input{{Label: "a", Path: "a.json", Doc: d}}), "overview"))
	type drawn struct{ at, rung int }
	var rows []drawn
	for _, r := range d.Results {
		i := strings.Index(page, "<title>"+r.Name+" "+r.Placement+":")
		if i < 0 {
			t.Fatalf("the overview does not draw %s %s", r.Name, r.Placement)
		}
		rows = append(rows, drawn{i, result.RungIndex(r.Rung)})
	}
	slices.SortFunc(rows, func(a, b drawn) int { return a.at - b.at })
	for i := 1; i < len(rows); i++ {
		if rows[i].rung < rows[i-1].rung {
			t.Fatalf("a row of rung %d is drawn after one of rung %d: not the vocabulary's order", rows[i].rung, rows[i-1].rung)
		}
	}
	if last := rows[len(rows)-1]; last.rung != result.RungIndex("unikernel") {
		t.Errorf("the unknown rung is not last")
	}
}

// The overview's published bands are drawn from the numbers the hierarchy
// carries, never from its text: a row whose text is not a figure still
// gets its band, and a row without numbers (an older file) gets none, even
// where its text reads as one.
func TestOverviewPublishedFromNumbers(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1})
	lo, hi := 1000.0, 3000.0
	d.Derived.Hierarchy = []result.HierarchyRow{
		{Abstraction: "OS thread", Published: "a few microseconds", Name: "thread/pipe", Placement: "same-cpu", PublishedLowNS: &lo, PublishedHighNS: &hi},
		{Abstraction: "process", Published: "5,000-10,000 ns", Name: "process/pipe", Placement: "same-cpu"},
	}
	page := string(sectionHTML(render(t, []compare.Input{{Label: "a", Path: "a.json", Doc: d}}), "overview"))
	if !strings.Contains(page, "<title>published: OS thread — a few microseconds") {
		t.Error("no band for the row that carries its numbers")
	}
	if strings.Contains(page, "published: process") {
		t.Error("a band read off the text of a row without numbers")
	}
}

// loadDoc is a load file: testdoc's series (one level behind its
// schedule, one flagged), with a level's wake-ups captured when asked.
func loadDoc(t *testing.T, capture bool) *result.Document {
	d := doc(t, testdoc.Options{Seed: 5})
	d.Results = nil
	d.Derived = nil
	d.Loads = testdoc.Loads(capture)
	return d
}

// The load section's table: one row per level; each percentile's interval
// on a line of its own under its value (side by side, the table was wider
// than a laptop's page); a level behind its schedule says so and why, with
// its note; every cell names its column, for the narrow layout where the
// heads are hidden.
func TestLoadTable(t *testing.T) {
	d := loadDoc(t, true)
	page := string(sectionHTML(render(t, []compare.Input{{Label: "load", Path: "load.json", Doc: d}}), "load"))
	table := regexp.MustCompile(`(?s)<table class="data loads">.*?</table>`).FindString(page)
	if table == "" {
		t.Fatalf("no levels' table:\n%s", page)
	}
	rows := regexp.MustCompile(`(?s)<tbody>.*</tbody>`).FindString(table)
	s := d.Loads[0]
	if n := strings.Count(rows, "<tr>"); n != len(s.Levels) {
		t.Errorf("%d rows, want one per level (%d)", n, len(s.Levels))
	}
	for _, l := range s.Levels {
		if !strings.Contains(rows, `<td data-h="level">`+l.LevelName()+`</td>`) {
			t.Errorf("no row for level %s", l.LevelName())
		}
	}
	if !strings.Contains(rows, `3.36 µs<div class="sub">[3.29 µs, 3.43 µs]</div>`) {
		t.Errorf("the wake-up p50's interval is not under its value:\n%s", rows)
	}
	behind := s.Levels[len(s.Levels)-1]
	if !strings.Contains(rows, "behind: "+behind.StatusReason) || !strings.Contains(rows, `href="#load0-note-2"`) {
		t.Errorf("the level behind its schedule does not say why, with its note:\n%s", rows)
	}
	for _, td := range regexp.MustCompile(`<td[^>]*>`).FindAllString(rows, -1) {
		if !strings.Contains(td, "data-h=") && td != "<td>" {
			t.Errorf("a cell without its column's name: %s", td)
		}
	}
	if !strings.Contains(page, "its slow wake-ups, captured") {
		t.Error("the captured level's wake-ups are not shown")
	}
}

// The style sheet the page holds is the one its CSP allows: html/template
// elides comments from a style sheet, so a comment in report.css would
// change the page's sheet, its hash would no longer match, and the
// browser would drop every style without a word.
func TestStyleMatchesItsHash(t *testing.T) {
	page := string(render(t, inputs(t)))
	m := regexp.MustCompile(`(?s)<style>(.*?)</style>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("no style sheet")
	}
	sum := sha256.Sum256([]byte(m[1]))
	if want := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(report.CSP(), want) {
		t.Errorf("the page's style sheet hashes to %s, which its CSP does not allow: %s", want, report.CSP())
	}
}

// Every mark of the overview is named in text that prints — beside it in
// the laptop's drawing, on the line above it in the phone's — not only in
// a tooltip, so a printed or pasted report tells its dots apart; with
// several files each name carries its file's tag.
func TestOverviewNamesEveryMark(t *testing.T) {
	in := inputs(t)
	page := string(sectionHTML(render(t, in), "overview"))
	for i, input := range in {
		for _, r := range input.Doc.Results {
			name := string(rune('A'+i)) + " · " + r.Name + " " + r.Placement
			if n := strings.Count(page, `class="row-label">`+name+`</text>`); n != 2 {
				t.Errorf("%q is named %d times, want once in each drawing", name, n)
			}
		}
	}
	if !strings.Contains(page, `class="overview overview-narrow"`) {
		t.Error("no drawing for a phone")
	}
}
