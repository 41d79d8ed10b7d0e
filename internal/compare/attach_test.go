package compare_test

import (
	"testing"

	"github.com/ctxbench/ctxbench/internal/compare"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// Two attaches of the same targets: every figure is compared on its
// windows; a change made to one side's windows is found and resolved, the
// same file against itself shows none.
func TestCompareAttaches(t *testing.T) {
	doc := func(scale float64) *result.Document {
		a := testdoc.Attach(false)
		for i := range a.Targets {
			t := &a.Targets[i]
			t.SwitchesPerS.Value *= scale
			for j := range t.Windows {
				t.Windows[j].SwitchesPerS *= scale
			}
		}
		return &result.Document{Attach: a, Results: []result.Result{}}
	}
	c, err := compare.Compare([]compare.Input{{Label: "before", Doc: doc(1)}, {Label: "after", Doc: doc(1.5)}, {Label: "same", Doc: doc(1)}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Attach) != 4 { // two targets, each against two files
		t.Fatalf("%d attach changes: %+v", len(c.Attach), c.Attach)
	}
	for _, ch := range c.Attach {
		if len(ch.Figures) != 4 {
			t.Fatalf("%s: %d figures", ch.Target, len(ch.Figures))
		}
		rate := ch.Figures[0]
		switch {
		case ch.Input == "after" && ch.Target == "cgroup /ctxbench-pgdemo" && (!rate.Tested || !rate.Resolved || rate.Change < 0.4 || rate.Change > 0.6):
			t.Errorf("%s %s: %+v, want +50%% resolved", ch.Target, ch.Input, rate)
		case ch.Input == "same" && (rate.Resolved || rate.Change != 0):
			t.Errorf("%s against itself: %+v", ch.Target, rate)
		}
	}
}
