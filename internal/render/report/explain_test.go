package report_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

func ptr(v float64) *float64 { return &v }

// explainRow is the HTML of one explained row's block.
func explainRow(t *testing.T, html, name string) string {
	t.Helper()
	i := strings.Index(html, `<div class="explain"><b>`+name+`</b>`)
	if i < 0 {
		t.Fatalf("no explain row %q", name)
	}
	j := strings.Index(html[i:], "</details>")
	return html[i : i+j]
}

// A run on the untraced scale shows a second bar and an untraced column,
// the probes' cost per firing with its level, and a marked phase faded and
// explained; a hop across CPUs is drawn as two lanes, the waker's above,
// the wakee's below, the time between as a band from one to the other, in
// the order of the phases.
func TestExplainUntracedScaleAndLanes(t *testing.T) {
	d := doc(t, testdoc.Options{Seed: 1})
	for i := range d.Results {
		r := &d.Results[i]
		switch {
		case r.Name == "thread/pipe" && r.Placement == "same-cpu":
			r.Explain = &result.Explain{TracedOneWayNS: 5900, UntracedOneWayNS: 3400, TracedMeanNS: 6000, UntracedMeanNS: 3500, Closure: 0.95,
				ProbeNsPerFiring: &result.Interval{Median: 41.2, Low: 37, High: 46.1, Confidence: 0.9785, Rounds: 10}, FiringsPerHop: 21.3, UntracedClosure: ptr(0.97),
				Phases: []result.ExplainPhase{
					{Name: "write(): copy into the pipe", NsPerHop: 2000, PerHop: 1, Firings: 10, UntracedNs: ptr(1588)},
					{Name: "wakeup: psi", NsPerHop: 30, PerHop: 1, Firings: 1, UntracedNs: ptr(-11.2), UntracedUnreliable: true},
					{Name: "pick next task", NsPerHop: 3670, PerHop: 1, Firings: 10, UntracedNs: ptr(3258)}}}
		case r.Name == "thread/pipe" && r.Placement == "cross-cpu":
			r.Explain = &result.Explain{TracedOneWayNS: 7000, UntracedOneWayNS: 5000, TracedMeanNS: 7000, Closure: 1, Probes: "light",
				Phases: []result.ExplainPhase{
					{Name: "write() up to the wakeup", NsPerHop: 1000, PerHop: 1, CPU: "waker"},
					{Name: "the IPI in flight", NsPerHop: 2000, PerHop: 1, CPU: "between"},
					{Name: "schedule, switch, return", NsPerHop: 4000, PerHop: 1, CPU: "wakee"}}}
		}
	}
	html := string(render(t, []compare.Input{{Label: "x", Path: "x.json", Doc: d}}))

	same := explainRow(t, html, "thread/pipe same-cpu")
	for _, want := range []string{"41.2 ns per firing [37.0, 46.1] at 97.9%, 21.3 firings per hop", "on the untraced scale to 97% of the untraced hop",
		"<th class=\"num\">untraced</th>", ">1.59 µs<", "-11.2 ns †", `class="ph1 unsure"`, "† not trustworthy on the untraced scale"} {
		if !strings.Contains(same, want) {
			t.Errorf("the same-cpu row lacks %q:\n%s", want, same)
		}
	}
	if n := strings.Count(same, `class="phasebar"`); n != 2 {
		t.Errorf("the same-cpu row has %d bars, want the traced and the untraced", n)
	}

	cross := explainRow(t, html, "thread/pipe cross-cpu")
	if strings.Count(cross, `class="phasebar"`) != 1 || strings.Contains(cross, ">untraced<") || !strings.Contains(cross, "the light probe set") {
		t.Errorf("the cross-cpu row (no untraced scale, light probes):\n%s", cross)
	}
	if !strings.Contains(cross, ">waker CPU<") || !strings.Contains(cross, ">wakee CPU<") || !strings.Contains(cross, "<th>cpu</th>") {
		t.Errorf("no lanes or cpu column:\n%s", cross)
	}
	// The waker's phase in the upper lane, then the band from the upper
	// lane down to the lower, then the wakee's phase in the lower lane.
	waker := regexp.MustCompile(`<rect x="([\d.]+)" y="2" width="([\d.]+)" height="22" class="ph\d"/>`).FindStringSubmatch(cross)
	band := regexp.MustCompile(`<path d="M([\d.]+) 2L([\d.]+) 44L[\d.]+ 66L[\d.]+ 24Z" class="ph\d"/>`).FindStringSubmatch(cross)
	wakee := regexp.MustCompile(`<rect x="([\d.]+)" y="44" width="[\d.]+" height="22" class="ph\d"/>`).FindStringSubmatch(cross)
	if waker == nil || band == nil || wakee == nil {
		t.Fatalf("lanes: waker %v, band %v, wakee %v in\n%s", waker, band, wakee, cross)
	}
	f := func(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.15 } // coordinates are written to a tenth
	if end := f(waker[1]) + f(waker[2]); !near(end, f(band[1])) || !near(f(band[2]), f(wakee[1])) || f(band[1]) >= f(band[2]) {
		t.Errorf("lanes out of time order: waker %v, band %v, wakee %v", waker[1:], band[1:], wakee[1:])
	}
}

// The report's capture summary names lost hops only where the buffer lost
// some.
func TestCaptureSummaryLost(t *testing.T) {
	for _, lost := range []uint64{0, 7} {
		d := doc(t, testdoc.Options{Seed: 1, Capture: true})
		for i := range d.Results {
			if e := d.Results[i].Explain; e != nil {
				e.Capture.Counts.Lost = lost
			}
		}
		page := string(sectionHTML(render(t, []compare.Input{{Label: "a", Path: "a.json", Doc: d}}), "explain"))
		switch {
		case page == "":
			t.Fatal("no explain section")
		case lost == 0 && strings.Contains(page, "lost"):
			t.Error("nothing was lost, yet the summary says hops were")
		case lost > 0 && !strings.Contains(page, "1.18k copied out, 7 lost (the buffer full), 160 kept"):
			t.Error("7 hops lost, not said")
		}
	}
}
