package compare

import (
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// sitting makes one run's result for a cell: 10 blocks of 4 samples at
// level × (1 + block offset), the offsets a fixed pattern shifted by seed.
func sitting(name string, level float64, seed int) result.Result {
	var v []float64
	var blocks []result.BlockInfo
	for b := range 10 {
		off := 0.02 * math.Sin(float64(3*b+seed))
		for s := range 4 {
			v = append(v, level*(1+off+0.005*float64(s)))
		}
		blocks = append(blocks, result.BlockInfo{Round: b, Samples: 4})
	}
	return result.Result{Name: name, Placement: "same-cpu", Samples: v, BlockInfo: blocks,
		OneWayNS: result.Figure{Summary: stats.SummarizeBlocks(v, result.BlockSizes(blocks))}}
}

// The self-test counts what it says: every ordered pair of sittings for
// coverage, every adjacent pair for compare, every two cells for power —
// and calls a sitting that moved by half a false positive, and a cell at
// twice another's level told apart every time.
func TestSelfTestCounts(t *testing.T) {
	var runs [][]result.Result
	for k := range 4 {
		level := 1000.0
		if k == 2 {
			level = 1500 // a sitting disturbed by something the intervals cannot see
		}
		runs = append(runs, []result.Result{sitting("a", level, k), sitting("b", 2000, k)})
	}
	aa := &result.AA{Sittings: len(runs), SittingSeconds: []float64{1, 1, 1, 1}, Runs: runs}
	SelfTest(aa, 0.05, nil)
	if aa.Sittings != 4 || len(aa.Cells) != 2 || len(aa.Runs) != 4 {
		t.Fatalf("self-test %+v", aa)
	}
	a, b := aa.Cells[0], aa.Cells[1]
	if a.Pairs != 12 || a.Comparisons != 3 || b.Pairs != 12 || b.Comparisons != 3 || aa.Pairs != 24 || aa.Comparisons != 6 {
		t.Errorf("pairs %d/%d, comparisons %d/%d", a.Pairs, b.Pairs, a.Comparisons, b.Comparisons)
	}
	// Cell a: sitting 2 is 1.5× the others — both comparisons touching it
	// are (false) positives, and it neither holds nor is held by others.
	if a.FalsePositives != 2 || b.FalsePositives != 0 {
		t.Errorf("false positives a %d (want 2), b %d (want 0)", a.FalsePositives, b.FalsePositives)
	}
	if want := 6.0 / 12; math.Abs(a.Coverage-want) > 1e-9 {
		t.Errorf("coverage of a %.3f, want %.3f (the three undisturbed sittings hold each other)", a.Coverage, want)
	}
	if a.RunToRun < 0.2 || b.RunToRun > 0.02 {
		t.Errorf("run-to-run a %.3f (moved by half once), b %.3f (steady)", a.RunToRun, b.RunToRun)
	}
	if len(aa.Distinct) != 1 || aa.Distinct[0].Resolved != 4 || aa.Distinct[0].Sittings != 4 {
		t.Errorf("distinct %+v: b at twice a's level should be told apart in all 4", aa.Distinct)
	}
	if aa.FalseRate != 2.0/6 || !(aa.Resolvable > 0) {
		t.Errorf("false rate %v, resolvable %v", aa.FalseRate, aa.Resolvable)
	}
	// The section is the session's: deriving again sets the same figures
	// afresh (nothing counted twice) and keeps what was measured.
	once := *aa
	SelfTest(aa, 0.05, nil)
	if !reflect.DeepEqual(*aa, once) || len(aa.SittingSeconds) != 4 || &aa.Runs[0][0] != &runs[0][0] {
		t.Errorf("derived twice: %+v, once: %+v", aa, once)
	}
}

// A sitting whose figure was flagged contended is left out of every count.
func TestSelfTestLeavesOutContended(t *testing.T) {
	var runs [][]result.Result
	for k := range 3 {
		r := sitting("a", 1000, k)
		if k == 1 {
			r.OneWayNS.Median *= 2
			r.Flags = []result.Flag{{Code: "contended", Message: "other work took CPU 1"}}
		}
		runs = append(runs, []result.Result{r})
	}
	aa := &result.AA{Sittings: len(runs), Runs: runs}
	SelfTest(aa, 0.05, nil)
	c := aa.Cells[0]
	if c.Contended != 1 || len(c.Medians) != 2 || c.Pairs != 2 || c.Comparisons != 1 || c.FalsePositives != 0 {
		t.Errorf("cell %+v: want the contended sitting left out", c)
	}
}

// Rows both files explained are compared phase by phase, the base's phases
// first in time order, then the other file's new ones.
func TestPhaseChanges(t *testing.T) {
	mk := func(label string, phases ...result.ExplainPhase) Input {
		r := sitting("thread/pipe", 1000, 0)
		r.Explain = &result.Explain{Phases: phases}
		return Input{Label: label, Doc: &result.Document{Results: []result.Result{r}}}
	}
	a := mk("a", result.ExplainPhase{Name: "write", NsPerHop: 300}, result.ExplainPhase{Name: "delayed dequeue", NsPerHop: 800})
	b := mk("b", result.ExplainPhase{Name: "write", NsPerHop: 310}, result.ExplainPhase{Name: "dequeue up the hierarchy", NsPerHop: 500})
	c, err := Compare([]Input{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Phases) != 1 {
		t.Fatalf("phase changes %+v", c.Phases)
	}
	got := c.Phases[0].Phases
	want := []PhaseDelta{{Phase: "write", BaseNS: 300, CurNS: 310}, {Phase: "delayed dequeue", BaseNS: 800}, {Phase: "dequeue up the hierarchy", CurNS: 500}}
	if c.Phases[0].Untraced {
		t.Error("rows without the untraced scale compared on it")
	}
	if len(got) != len(want) {
		t.Fatalf("phases %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// Where both files have the phases on the untraced scale, each phase is
// compared on it too (0 where a side lacks the phase); a name on two CPU
// sides is two phases; where one file lacks the scale, none is compared.
func TestPhaseChangesOnTheUntracedScale(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	mk := func(label string, scale bool, phases ...result.ExplainPhase) Input {
		r := sitting("thread/pipe", 1000, 0)
		r.Explain = &result.Explain{Phases: phases}
		if scale {
			r.Explain.UntracedClosure = f(1)
		}
		return Input{Label: label, Doc: &result.Document{Results: []result.Result{r}}}
	}
	a := mk("a", true, result.ExplainPhase{Name: "interrupts", CPU: "waker", NsPerHop: 100, UntracedNs: f(60)},
		result.ExplainPhase{Name: "interrupts", CPU: "wakee", NsPerHop: 300, UntracedNs: f(220)})
	b := mk("b", true, result.ExplainPhase{Name: "interrupts", CPU: "wakee", NsPerHop: 310, UntracedNs: f(250)},
		result.ExplainPhase{Name: "IPI", CPU: "between", NsPerHop: 900, UntracedNs: f(880)})
	c, err := Compare([]Input{a, b}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []PhaseDelta{
		{Phase: "interrupts", CPU: "waker", BaseNS: 100, BaseUntracedNS: 60},
		{Phase: "interrupts", CPU: "wakee", BaseNS: 300, CurNS: 310, BaseUntracedNS: 220, CurUntracedNS: 250},
		{Phase: "IPI", CPU: "between", CurNS: 900, CurUntracedNS: 880},
	}
	if len(c.Phases) != 1 || !c.Phases[0].Untraced || !slices.Equal(c.Phases[0].Phases, want) {
		t.Fatalf("phase changes %+v, want %+v", c.Phases, want)
	}
	c, err = Compare([]Input{a, mk("b", false, result.ExplainPhase{Name: "IPI", CPU: "between", NsPerHop: 900})}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if pc := c.Phases[0]; pc.Untraced || pc.Phases[0].BaseUntracedNS != 0 {
		t.Errorf("one side without the untraced scale: %+v", pc)
	}
}
