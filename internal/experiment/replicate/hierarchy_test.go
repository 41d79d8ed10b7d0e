package replicate

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/experiment/ladder"
	"github.com/ctxbench/ctxbench/internal/render"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/units"
)

// The published hierarchy stores the multiple the ladder stores and prints
// for the same row — the median of the per-round ratios — not a ratio of
// the medians of its own. Here the baseline's and the thread row's block
// medians pair round by round into ratios of 1.75 once and about 1.9
// otherwise, while the ratio of the rows' medians is 1.75, outside the
// per-round interval.
func TestHierarchyMultipleIsTheLaddersFigure(t *testing.T) {
	row := func(name string, blockMedians []float64) result.Result {
		var v []float64
		var info []result.BlockInfo
		for k, m := range blockMedians {
			v = append(v, m*0.999, m, m*1.001)
			info = append(info, result.BlockInfo{Round: k, Samples: 3})
		}
		return result.Result{Name: name, Placement: "same-cpu", Samples: v, BlockInfo: info,
			OneWayNS: result.Figure{Summary: stats.SummarizeBlocks(v, result.BlockSizes(info))}}
	}
	base, thread := disagreeingRounds()
	b, th := row("goroutine/chan-gomaxprocs1", base), row("thread/pipe", thread)
	b.Rung, th.Rung = "goroutine", "thread"
	d := &result.Document{Results: []result.Result{b, th}}
	d.Derived = ladder.Derive(d.Results)
	d.Derived.Hierarchy, d.Derived.Claims = Hierarchy(d)

	r := d.Results[1]
	iv := r.MultipleInterval
	if iv == nil {
		t.Fatal("the ladder set no interval: the rows' blocks pair round by round")
	}
	ofMedians := r.OneWayNS.Median / d.Results[0].OneWayNS.Median
	if iv.Holds(ofMedians) {
		t.Fatalf("the simulation does not separate the estimators: the ratio of medians %.3f lies in [%.3f, %.3f]", ofMedians, iv.Low, iv.High)
	}
	var h *result.HierarchyRow
	for i := range d.Derived.Hierarchy {
		if d.Derived.Hierarchy[i].Name == "thread/pipe" {
			h = &d.Derived.Hierarchy[i]
		}
	}
	if h == nil || h.Multiple == nil {
		t.Fatalf("the hierarchy's thread row has no multiple: %+v", h)
	}
	if *h.Multiple != iv.Median {
		t.Errorf("the hierarchy stores %.3f for thread/pipe, the ladder %.3f [%.3f, %.3f]: not one figure", *h.Multiple, iv.Median, iv.Low, iv.High)
	}
	for _, rep := range HierarchyReplications(d) {
		if strings.HasSuffix(rep.Name, "OS thread") && rep.Values["multiple_of_goroutine"] != iv.Median {
			t.Errorf("the hierarchy experiment reports %.3f for the thread row, the ladder %.3f", rep.Values["multiple_of_goroutine"], iv.Median)
		}
	}
	// The table prints the figure stored beside it.
	var out bytes.Buffer
	render.Hierarchy(render.Fit(&out, render.Style{Wide: true}), d)
	l := lineOf(t, out.String(), "OS thread")
	if !strings.Contains(l, units.Multiple(*h.Multiple)) || strings.Contains(l, units.Multiple(ofMedians)) {
		t.Errorf("the table's OS thread row does not print the stored %s (the ratio of medians is %s):\n%s", units.Multiple(*h.Multiple), units.Multiple(ofMedians), l)
	}
}

// disagreeingRounds are two rows' block medians over eleven rounds whose
// per-round ratios (1.75 once, 1.90 five times, 1.94 five times) have a
// median and interval the ratio of the two rows' medians (1.75) lies
// outside: round 0 is 100 and 175, rounds 1–5 100 and 190, rounds 6–10 90
// and 175.
func disagreeingRounds() (base, other []float64) {
	for k := range 11 {
		switch {
		case k == 0:
			base, other = append(base, 100), append(other, 175)
		case k <= 5:
			base, other = append(base, 100), append(other, 190)
		default:
			base, other = append(base, 90), append(other, 175)
		}
	}
	return base, other
}

// The published table's numbers are its text: each row's low and high
// (what the report draws) are the figures its text states, so the picture
// and the table never disagree; and Hierarchy carries them into every row.
func TestHierarchyNumbersAreItsText(t *testing.T) {
	for _, h := range hierarchyTable {
		text, ok := strings.CutSuffix(strings.ReplaceAll(h.Published, ",", ""), " ns")
		if !ok {
			t.Fatalf("%s: %q is not in ns", h.Abstraction, h.Published)
		}
		a, b, isRange := strings.Cut(text, "-")
		lo, err1 := strconv.ParseFloat(a, 64)
		hi, err2 := lo, error(nil)
		if isRange {
			hi, err2 = strconv.ParseFloat(b, 64)
		}
		if err1 != nil || err2 != nil || lo != h.Low || hi != h.High || h.Low <= 0 || h.High < h.Low {
			t.Errorf("%s: %q, numbers %v–%v", h.Abstraction, h.Published, h.Low, h.High)
		}
	}
	rows, _ := Hierarchy(&result.Document{})
	for i, r := range rows {
		if r.PublishedLowNS == nil || r.PublishedHighNS == nil || *r.PublishedLowNS != hierarchyTable[i].Low || *r.PublishedHighNS != hierarchyTable[i].High {
			t.Errorf("%s: the derived row does not carry the published numbers", r.Abstraction)
		}
	}
}
