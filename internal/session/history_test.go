package session

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/store"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// sitting is one synthetic sitting of the same-CPU cells: draw k of one
// distribution, shifted by the sitting's effect.
func sitting(t *testing.T, k int64, shift float64) *result.Document {
	t.Helper()
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Redraw: k, Scale: shift, Only: []model.Placement{model.SameCPU}})
	if err != nil {
		t.Fatal(err)
	}
	d.Settings.DryRun = false // learn never sees dry runs; these stand for measured sittings
	d.StartedAt = d.StartedAt.Add(time.Duration(k) * time.Minute)
	return d
}

// record is one run's use of the history: opened before it measures,
// written after.
func record(ctx context.Context, path string, d *result.Document, log *bytes.Buffer) *result.History {
	hs := openHistory(ctx, path, d, log)
	defer hs.close()
	return hs.learn(ctx, d)
}

func TestHistoryLearnsFromSittings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "h", "history.db")
	ctx := context.Background()
	var log bytes.Buffer
	shifts := []float64{1, 1.02, 0.99, 1.01}
	var docs []*result.Document
	for k, s := range shifts {
		d := sitting(t, int64(k+1), s)
		h := record(ctx, path, d, &log)
		if !h.Recorded || h.Before != k || h.Note != "" {
			t.Fatalf("sitting %d: history %+v", k+1, h)
		}
		docs = append(docs, d)
	}
	if log.Len() != 0 {
		t.Errorf("a healthy store said: %s", log.String())
	}
	for _, r := range docs[0].Results {
		if r.OneWayNS.Reproducibility != nil {
			t.Errorf("first sitting: %s has a reproducibility interval from no history", r.Name)
		}
	}
	for k, d := range docs[1:] {
		for _, r := range d.Results {
			rp := r.OneWayNS.Reproducibility
			if rp == nil {
				if len(r.BlockInfo) >= 2 {
					t.Errorf("sitting %d: %s has no reproducibility interval", k+2, r.Name)
				}
				continue
			}
			s := r.OneWayNS
			if rp.Sittings != k+2 || len(rp.PooledFrom) != 0 {
				t.Errorf("sitting %d: %s learned from %d sittings (pooled %v)", k+2, r.Name, rp.Sittings, rp.PooledFrom)
			}
			if rp.Low > s.CILow || rp.High < s.CIHigh || rp.Confidence != ReproLevel {
				t.Errorf("%s: reproducibility [%g, %g] at %g does not hold the precision interval [%g, %g]", r.Name, rp.Low, rp.High, rp.Confidence, s.CILow, s.CIHigh)
			}
			// compare's component leaves this sitting out.
			if wantPrior := k + 1; (wantPrior >= 2) != (rp.Prior != nil) || rp.Prior != nil && rp.Prior.Sittings != wantPrior {
				t.Errorf("sitting %d: %s prior component %+v, want one from the %d sittings before", k+2, r.Name, rp.Prior, wantPrior)
			}
			if rp.BetweenCV < 0 || rp.Component.DF != k+1 {
				t.Errorf("%s: between CV %g, df %d", r.Name, rp.BetweenCV, rp.Component.DF)
			}
		}
	}
	// Two sittings give a t interval with one degree of freedom: wider
	// than four (S = 4, df 3) by far.
	name := docs[1].Results[0].Name
	w2 := docs[1].Results[0].OneWayNS.Reproducibility.Half(docs[1].Results[0].OneWayNS.Median)
	w4 := docs[3].Results[0].OneWayNS.Reproducibility.Half(docs[3].Results[0].OneWayNS.Median)
	if !(w2 > 2*w4) {
		t.Errorf("%s: two sittings gave ±%.2f%%, four ±%.2f%%: few sittings must be wide", name, 100*w2, 100*w4)
	}
}

func TestHistoryPoolsForNewCells(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	ctx := context.Background()
	for k := range 3 {
		record(ctx, path, sitting(t, int64(k+1), 1), &bytes.Buffer{})
	}
	d := sitting(t, 9, 1)
	d.Results[0].Name = "thread/new" // a cell the history has never seen
	record(ctx, path, d, &bytes.Buffer{})
	rp := d.Results[0].OneWayNS.Reproducibility
	if rp == nil || len(rp.PooledFrom) == 0 || !rp.Component.Pooled {
		t.Fatalf("a new cell of a learned placement: %+v, want a pooled interval", rp)
	}
	for _, c := range rp.PooledFrom {
		if !strings.HasSuffix(c, " same-cpu") || strings.HasPrefix(c, "thread/new") {
			t.Errorf("pooled from %q: only other cells of its placement", c)
		}
	}
}

// A new kernel (or ctxbench build) on the same machine is a new build: its
// figures are a history of their own (Before 0), but the machine's spread,
// learned from every build's sittings, serves it at once — each build
// centred on its own figures. Another machine starts anew.
func TestHistoryNoiseIsTheMachines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	ctx := context.Background()
	for k := range 3 {
		record(ctx, path, sitting(t, int64(k+1), 1), &bytes.Buffer{})
	}
	d := sitting(t, 4, 1.3) // the new kernel moved every figure by 30%
	d.Environment.Kernel = "6.2.0-upgraded"
	h := record(ctx, path, d, &bytes.Buffer{})
	if h.Before != 0 || !h.Recorded || h.MachineBefore != 3 || h.Builds != 2 || h.Machine == "" {
		t.Errorf("a new kernel: %+v, want a new build of a machine with 3 sittings", h)
	}
	for _, r := range d.Results {
		rp := r.OneWayNS.Reproducibility
		if rp == nil {
			if len(r.BlockInfo) >= 2 {
				t.Errorf("%s: the machine's spread did not carry over to a new kernel", r.Name)
			}
			continue
		}
		if rp.Component.Builds != 2 || rp.Component.DF != 2 {
			t.Errorf("%s: spread %+v, want 2 df from the first build's 3 sittings (the new build's one adds none)", r.Name, rp.Component)
		}
		// Centred per build: the 30% step is not noise.
		if rp.BetweenCV > 0.1 {
			t.Errorf("%s: between CV %.3f: the builds' difference was counted as noise", r.Name, rp.BetweenCV)
		}
	}
	other := sitting(t, 5, 1)
	other.Environment.Hostname = "another-machine"
	if h := record(ctx, path, other, &bytes.Buffer{}); h.MachineBefore != 0 || h.Before != 0 {
		t.Errorf("another machine: %+v, want nothing learned", h)
	}
	for _, r := range other.Results {
		if r.OneWayNS.Reproducibility != nil {
			t.Errorf("%s: learned from another machine", r.Name)
		}
	}
	d = sitting(t, 6, 1)
	d.Settings.Runs *= 2 // precision, not the figure: the same history
	if h := record(ctx, path, d, &bytes.Buffer{}); h.Before != 3 {
		t.Errorf("--runs changed the fingerprint: %d sittings before, want 3", h.Before)
	}
}

func TestHistoryUnwritableRunGoesOn(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "not-a-dir")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	d := sitting(t, 1, 1)
	h := record(context.Background(), filepath.Join(file, "history.db"), d, &log)
	if h.Recorded || h.Note == "" {
		t.Errorf("history under a file: %+v", h)
	}
	if n := strings.Count(strings.TrimSpace(log.String()), "\n"); n != 0 || !strings.Contains(log.String(), "history not") {
		t.Errorf("want one line saying the history was not kept, got %q", log.String())
	}
}

func TestHistoryRecordsEveryAASitting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	var runs [][]result.Result
	for k := range 4 {
		runs = append(runs, sitting(t, int64(k+1), 1).Results)
	}
	d := sitting(t, 1, 1)
	d.Results = []result.Result{}
	d.AA = &result.AA{Sittings: 4, Runs: runs, SittingSeconds: []float64{10, 10, 10, 10}}
	h := record(context.Background(), path, d, &bytes.Buffer{})
	st, _, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	n, err := st.Sittings(context.Background(), h.Fingerprint)
	if err != nil || n != 4 {
		t.Fatalf("aa of 4 sittings recorded %d (%v)", n, err)
	}
	if d.AA.Runs[0][0].OneWayNS.Reproducibility != nil || d.AA.Runs[3][0].OneWayNS.Reproducibility == nil {
		t.Errorf("aa: the first sitting learns nothing, the fourth from four")
	}
}

// slowHost makes the blocks of d's rows run as on a host whose probe read
// probe[b] for block b (reference 280 µs): each block's samples scaled by
// (probe/reference)^0.75, the probe recorded, the figure re-summarised.
func slowHost(d *result.Document, probe func(b int) float64) {
	for i := range d.Results {
		r := &d.Results[i]
		at := 0
		for b := range r.BlockInfo {
			p := probe(b)
			r.BlockInfo[b].HostProbeNS = p
			f := math.Pow(p/280000, 0.75)
			for j := at; j < at+r.BlockInfo[b].Samples; j++ {
				r.Samples[j] *= f
			}
			at += r.BlockInfo[b].Samples
		}
		r.OneWayNS.Summary = stats.SummarizeBlocks(r.Samples, result.BlockSizes(r.BlockInfo))
	}
}

// A host that slows whole sittings (its probe 35% slower in some, in part of
// the blocks in others) moves the measured figures by up to 25%; the history
// learns the slope from how blocks of one cell differ with the probe, and
// the host-adjusted figures of slow and fast sittings agree within 3%,
// their spread far below the measured figures'.
func TestHostStateAdjustsFigures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	ctx := context.Background()
	var docs []*result.Document
	for k := range 8 {
		d := sitting(t, int64(k+1), 1)
		slow := 280000 * 1.35
		switch k % 4 {
		case 1: // a slow sitting
			slowHost(d, func(int) float64 { return slow })
		case 3: // slow for the first half of its blocks
			slowHost(d, func(b int) float64 {
				if b < 5 {
					return slow
				}
				return 280000 * (1 + 0.003*float64(b%3))
			})
		default:
			slowHost(d, func(b int) float64 { return 280000 * (1 + 0.003*float64(b%3)) })
		}
		record(ctx, path, d, &bytes.Buffer{})
		docs = append(docs, d)
	}
	last := docs[len(docs)-1]
	hsd := last.HostState
	if hsd == nil || !hsd.Slope.OK || hsd.Slope.Applied < 0.6 || hsd.Slope.Applied > 0.9 || hsd.ReferenceNS < 280000 || hsd.ReferenceNS > 300000 {
		t.Fatalf("host state %+v, want a slope near 0.75 and the usual reading as reference", hsd)
	}
	for i, r := range last.Results {
		if len(r.BlockInfo) < 2 {
			continue
		}
		var fast, slow []float64
		var measuredCV, adjustedCV float64
		for k, d := range docs {
			row := d.Results[i]
			if row.HostAdjusted == nil {
				t.Fatalf("sitting %d %s: no adjusted figure", k+1, r.Name)
			}
			// Each file's adjusted figure is at the reference its run
			// knew; figures of several files are compared at one.
			a, ok := stats.Adjusted(stats.FigureOf(row.OneWayNS.Summary), stats.BlockMedians(row.Samples, result.BlockSizes(row.BlockInfo)),
				result.BlockProbes(row.BlockInfo), hsd.ReferenceNS, hsd.Slope.Applied)
			if !ok {
				t.Fatalf("sitting %d %s: cannot adjust", k+1, r.Name)
			}
			if k%4 == 1 {
				slow = append(slow, a.Median)
				if h := row.HostAdjusted; h.SlowBlocks != len(r.BlockInfo) || h.Slow < 0.3 {
					t.Errorf("sitting %d %s: slow %.2f in %d blocks, want every block 35%% slow", k+1, r.Name, h.Slow, h.SlowBlocks)
				}
			} else if k%4 != 3 {
				fast = append(fast, a.Median)
			}
			if k == len(docs)-1 {
				measuredCV, adjustedCV = row.OneWayNS.Reproducibility.BetweenCV, row.HostAdjusted.Reproducibility.BetweenCV
			}
		}
		if g := stats.Median(slow) / stats.Median(fast); g < 0.97 || g > 1.03 {
			t.Errorf("%s: adjusted slow sittings / fast ones = %.3f, want within 3%%", r.Name, g)
		}
		if adjustedCV > measuredCV/2 {
			t.Errorf("%s: adjusted between CV %.3f, measured %.3f: the host's state was not taken out", r.Name, adjustedCV, measuredCV)
		}
	}
}
