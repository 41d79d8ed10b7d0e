package report_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/compare"
	text "github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/render/report"
	"github.com/ctxbench/ctxbench/internal/result"
)

// synthHistory is one machine, the fingerprint of d, with three cells:
// thread/pipe, nine sittings at irregular times stepping from 1.1 µs to
// 1.32 µs at the sixth (the third contended, the last without an interval,
// the second d's own sitting); process/pipe, one sitting without an
// interval; and thread/futex, six flat sittings within ±0.2%.
func synthHistory(d *result.Document) *text.History {
	fields, fp, _ := result.FingerprintOf(d)
	f := func(v float64) *float64 { return &v }
	var pipe []text.HistoryPoint
	t0 := d.StartedAt.Add(-time.Hour)
	at := t0
	for k := 0; k < 9; k++ {
		m := 1100.0
		switch {
		case k == 2:
			m = 1600 // contended: left out of the levels
		case k >= 5:
			m = 1320
		}
		pt := text.HistoryPoint{At: at, Median: m, Low: f(m * 0.98), High: f(m * 1.02), Confidence: 0.95, Blocks: 10, Contended: k == 2}
		if k == 8 {
			pt.Low, pt.High = nil, nil
		}
		pipe = append(pipe, pt)
		at = at.Add(time.Duration(1+k*k) * time.Hour) // a burst, then longer and longer gaps; the second is d's
	}
	step := text.HistoryStep{At: pipe[5].At, Change: 0.2, Low: 0.15, High: 0.25, Confidence: 0.95, Before: 4, After: 4}
	var futex []text.HistoryPoint
	for k := 0; k < 6; k++ {
		futex = append(futex, text.HistoryPoint{At: t0.Add(time.Duration(k) * 24 * time.Hour), Median: 800 * (1 + 0.002*float64(k%3-1)),
			Low: f(790), High: f(810), Confidence: 0.95, Blocks: 10})
	}
	return &text.History{Store: "/tmp/h.db", Machines: []text.HistoryMachine{{Fingerprint: fp, Fields: fields, First: t0, Cells: []text.HistoryCell{
		{Name: "thread/pipe", Placement: "same-cpu", CPUs: "0", Points: pipe, Steps: []text.HistoryStep{step}, Searched: true},
		{Name: "process/pipe", Placement: "same-cpu", CPUs: "0", Points: []text.HistoryPoint{{At: t0, Median: 2000, Confidence: 0.95, Blocks: 4}},
			Steps: []text.HistoryStep{}},
		{Name: "thread/futex", Placement: "same-cpu", CPUs: "0", Points: futex, Steps: []text.HistoryStep{}, Searched: true},
	}}}}
}

func renderHistory(t *testing.T, in []compare.Input, h *text.History) string {
	t.Helper()
	var buf bytes.Buffer
	if err := report.Render(&buf, in, nil, report.Options{Generator: "ctxbench test", History: h}); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// section is the HTML of the section with id, "" when there is none.
func section(html, id string) string {
	i := strings.Index(html, `<section id="`+id+`">`)
	if i < 0 {
		return ""
	}
	j := strings.Index(html[i:], "</section>")
	return html[i : i+j]
}

// trends splits the History section into its charts, each with the
// captions under it.
func trends(sec string) []string {
	parts := strings.Split(sec, `<div class="trend">`)
	return parts[1:]
}

// The History section draws every sitting, the step as one marker at its
// first sitting with its change, the levels either side of it, each
// sitting's interval where it has one, and the notes of the cells without
// a trend; the machine is titled as ctxbench history prints it.
func TestReportHistorySection(t *testing.T) {
	in := inputs(t)[:1]
	h := synthHistory(in[0].Doc)
	html := renderHistory(t, in, h)
	sec := section(html, "history")
	if sec == "" || !strings.Contains(html, `<a href="#history">History</a>`) {
		t.Fatal("no History section, or no link to it")
	}
	lines := text.HistoryMachineLines(&h.Machines[0])
	if !strings.Contains(sec, "<h3>"+escape(lines[1])+` <span class="tag">A</span></h3>`) || !strings.Contains(sec, escape(lines[0])) {
		t.Errorf("the machine is not titled by its fields and run A:\n%s", sec[:min(len(sec), 3000)])
	}
	ch := trends(sec)
	if len(ch) != 3 {
		t.Fatalf("%d charts, want 3", len(ch))
	}
	for i, c := range h.Machines[0].Cells {
		if n := strings.Count(ch[i], `<g class="sitting">`); n != len(c.Points) {
			t.Errorf("%s: %d sittings drawn, want %d", c.Name, n, len(c.Points))
		}
	}
	pipe, one, flat := ch[0], ch[1], ch[2]
	if n := strings.Count(pipe, `<g class="step">`); n != 1 || !strings.Contains(pipe, `class="knee-label">`+escape("+20.0%")+`</text>`) {
		t.Errorf("%d step markers, or no +20.0%% on it", n)
	}
	if n := strings.Count(pipe, `<div class="sub">step at `+h.Machines[0].Cells[0].Steps[0].At.UTC().Format("2006-01-02 15:04")+" UTC: "); n != 1 || !strings.Contains(pipe, escape("+20.0% [+15.0%, +25.0%] at 95% (4 sittings before, 4 after)")) {
		t.Errorf("the step's caption: %d", n)
	}
	// The levels either side: the geometric means of the clean sittings
	// (the contended 1.6 µs is not one of them).
	for _, want := range []string{"level of 4 sitting(s): 1.10 µs", "level of 4 sitting(s): 1.32 µs"} {
		if !strings.Contains(pipe, want) {
			t.Errorf("no %q", want)
		}
	}
	if n := strings.Count(pipe, `class="wh"`); n != 8 {
		t.Errorf("%d intervals drawn, want 8 (the last sitting has none)", n)
	}
	if !strings.Contains(pipe, `class="mk hollow"`) || !strings.Contains(pipe, "1 contended sitting(s)") {
		t.Error("the contended sitting is not hollow and counted")
	}
	if !strings.Contains(pipe, "the sitting of run A of this report") {
		t.Error("the report's own sitting is not marked")
	}
	// The marker is at the first sitting of the new level.
	if sx, px := stepX(t, pipe), sittingX(t, pipe, 5); sx != px {
		t.Errorf("the step marker is at x=%v, its first sitting at x=%v", sx, px)
	}
	if !strings.Contains(pipe, `class="tick">`+in[0].Doc.StartedAt.UTC().Format("2006-01-02")+`</text>`) {
		t.Error("the first sitting's date is not under the axis")
	}
	// The dates under the axis never overlap (a date is about 60 pixels).
	dates := regexp.MustCompile(`<text x="([^"]*)" y="[^"]*" text-anchor="middle" class="tick">\d{4}-\d\d-\d\d</text>`).FindAllStringSubmatch(pipe, -1)
	for i := 1; i < len(dates); i++ {
		a, _ := strconv.ParseFloat(dates[i-1][1], 64)
		b, _ := strconv.ParseFloat(dates[i][1], 64)
		if b-a < 64 {
			t.Errorf("dates at x=%v and x=%v overlap", a, b)
		}
	}
	if len(dates) < 2 {
		t.Errorf("%d dates under the axis of sittings over six days", len(dates))
	}
	if strings.Count(one, `<g class="sitting">`) != 1 || strings.Contains(one, `class="wh"`) || !strings.Contains(one, "one sitting: no trend yet") ||
		!strings.Contains(one, "(no interval recorded)") {
		t.Error("the one-sitting cell is not one point without an interval, with its note")
	}
	if strings.Contains(flat, `class="step"`) || !strings.Contains(flat, "no step in 6 clean sittings") {
		t.Error("the flat cell has a step, or does not say it has none")
	}
}

// A flat series is drawn flat: ±0.2% does not fill the panel.
func TestReportHistoryFlatIsFlat(t *testing.T) {
	in := inputs(t)[:1]
	flat := trends(section(renderHistory(t, in, synthHistory(in[0].Doc)), "history"))[2]
	var ys []float64
	for _, m := range regexp.MustCompile(`(?s)<g class="sitting">.*?<circle cx="[^"]*" cy="([^"]*)"`).FindAllStringSubmatch(flat, -1) {
		y, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		ys = append(ys, y)
	}
	if len(ys) != 6 {
		t.Fatalf("%d medians found", len(ys))
	}
	lo, hi := ys[0], ys[0]
	for _, y := range ys {
		lo, hi = min(lo, y), max(hi, y)
	}
	if hi-lo > 15 { // the panel's plot is 146 pixels high
		t.Errorf("±0.2%% spans %v pixels", hi-lo)
	}
}

// Without --history no section; with an empty history, the section says
// nothing is recorded.
func TestReportHistoryAbsentOrEmpty(t *testing.T) {
	in := inputs(t)[:1]
	if html := renderHistory(t, in, nil); strings.Contains(html, `id="history"`) || strings.Contains(html, "#history") {
		t.Error("a report without a history has a History section")
	}
	sec := section(renderHistory(t, in, &text.History{Store: "/tmp/h.db"}), "history")
	if sec == "" || !strings.Contains(sec, "No cell of these files is recorded in /tmp/h.db") || strings.Contains(sec, "<svg") {
		t.Errorf("an empty history: %q", sec)
	}
}

func stepX(t *testing.T, chart string) string {
	t.Helper()
	m := regexp.MustCompile(`<g class="step"><title>[^<]*</title><line x1="([^"]*)"`).FindStringSubmatch(chart)
	if m == nil {
		t.Fatal("no step marker")
	}
	return m[1]
}

// sittingX is the x of the i-th sitting's median.
func sittingX(t *testing.T, chart string, i int) string {
	t.Helper()
	ms := regexp.MustCompile(`(?s)<g class="sitting">.*?<circle cx="([^"]*)"`).FindAllStringSubmatch(chart, -1)
	if i >= len(ms) {
		t.Fatalf("no sitting %d", i)
	}
	return ms[i][1]
}
