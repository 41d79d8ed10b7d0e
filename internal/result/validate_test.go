package result_test

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testdoc"
)

// good is a document with every section validation looks at: ladder rows
// through the real aggregation, and synthetic rings and creation figures.
func good(t *testing.T) *result.Document {
	t.Helper()
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func f(v float64) *float64 { return &v }

// A file holding a value no measurement produces is refused, naming the
// file, the row and the field; the same file without it reads.
func TestValidateRefusesImpossibleValues(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(d *result.Document)
		want  string // the whole message after "bad.json: "
	}{
		{"negative median", func(d *result.Document) { d.Results[2].OneWayNS.Median = -3 },
			"results[2] (goroutine/chan-gomaxprocsN cross-cpu): one_way_ns.median is -3, not a time"},
		{"zero median", func(d *result.Document) { d.Results[0].OneWayNS.Median = 0 },
			"results[0] (floor/asm-swap same-cpu): one_way_ns.median is 0, not a time"},
		{"NaN median", func(d *result.Document) { d.Results[1].OneWayNS.Median = math.NaN() },
			"results[1] (goroutine/chan-gomaxprocs1 same-cpu): one_way_ns.median is NaN, not a time"},
		{"infinite median", func(d *result.Document) { d.Results[1].OneWayNS.Median = math.Inf(1) },
			"results[1] (goroutine/chan-gomaxprocs1 same-cpu): one_way_ns.median is +Inf, not a time"},
		{"ci_low above the median", func(d *result.Document) {
			r := &d.Results[3].OneWayNS
			r.CILow = r.Median + 1
		}, "results[3] (thread/pipe same-cpu): one_way_ns.ci_low is "},
		{"ci_high below the median", func(d *result.Document) {
			r := &d.Results[3].OneWayNS
			r.CIHigh = r.Median - 1
		}, "results[3] (thread/pipe same-cpu): one_way_ns.ci_high is "},
		{"NaN ci_high", func(d *result.Document) { d.Results[3].OneWayNS.CIHigh = math.NaN() },
			"results[3] (thread/pipe same-cpu): one_way_ns.ci_high is NaN"},
		{"reproducibility beside the median", func(d *result.Document) {
			r := &d.Results[3].OneWayNS
			r.Reproducibility = &result.Reproducibility{Low: r.Median * 1.1, High: r.Median * 1.2, Confidence: 0.95, Sittings: 3}
		}, "results[3] (thread/pipe same-cpu): one_way_ns.reproducibility ["},
		{"negative cycles", func(d *result.Document) {
			c := *d.Results[3].OneWayCycles
			c.Median = -1
			d.Results[3].OneWayCycles = &c
		}, "results[3] (thread/pipe same-cpu): one_way_cycles.median is -1, not a time"},
		{"negative sample", func(d *result.Document) { d.Results[3].Samples[4] = -120 },
			"results[3] (thread/pipe same-cpu): samples[4] is -120, not a time"},
		{"zero sample", func(d *result.Document) { d.Results[4].Samples[0] = 0 },
			"results[4] (thread/pipe cross-cpu): samples[0] is 0, not a time"},
		{"NaN sample", func(d *result.Document) { d.Results[4].Samples[1] = math.NaN() },
			"results[4] (thread/pipe cross-cpu): samples[1] is NaN, not a time"},
		{"ring sample", func(d *result.Document) { d.Rings[0].Samples[2] = -1 },
			"rings[0] (ring/goroutine N=2 ws=0 same-cpu): samples[2] is -1, not a time"},
		{"spawn sample", func(d *result.Document) { d.Spawn[1].Samples[0] = -5 },
			"spawn[1] (spawn/thread): samples[0] is -5, not a time"},
		{"n is not the samples", func(d *result.Document) { d.Results[4].OneWayNS.N++ },
			"results[4] (thread/pipe cross-cpu): one_way_ns.n is 21 but there are 20 samples"},
		{"blocks is not block_info", func(d *result.Document) { d.Results[5].Blocks = 9 },
			"results[5] (thread/pipe unpinned): blocks is 9 but block_info lists 10 blocks"},
		{"negative blocks", func(d *result.Document) { d.Results[5].Blocks, d.Results[5].BlockInfo = -1, nil },
			"results[5] (thread/pipe unpinned): blocks is -1, not a count"},
		{"block samples short", func(d *result.Document) { d.Results[6].BlockInfo[0].Samples-- },
			"results[6] (thread/futex same-cpu): block_info holds 19 samples in all but there are 20 samples"},
		{"block samples negative", func(d *result.Document) {
			b := d.Results[6].BlockInfo
			b[0].Samples, b[1].Samples = -1, b[1].Samples+b[0].Samples+1
		}, "results[6] (thread/futex same-cpu): block_info[0] holds -1 samples, not a count"},
		{"negative switches", func(d *result.Document) { d.Results[7].SwitchesPerHop = f(-0.5) },
			"results[7] (thread/futex cross-cpu): switches_per_hop is -0.5, not a count"},
		{"ring median", func(d *result.Document) { d.Rings[0].RawNS.Median = -2 },
			"rings[0] (ring/goroutine N=2 ws=0 same-cpu): raw_ns_per_hop.median is -2, not a time"},
		{"ring interval", func(d *result.Document) { d.Rings[1].RawNS.CILow = d.Rings[1].RawNS.Median * 2 },
			"rings[1] (ring/goroutine N=8 ws=0 same-cpu): raw_ns_per_hop.ci_low is "},
		{"ring overhead", func(d *result.Document) { d.Rings[1].OverheadNS.Median = 0 },
			"rings[1] (ring/goroutine N=8 ws=0 same-cpu): overhead_ns_per_hop.median is 0, not a time"},
		{"ring switches", func(d *result.Document) { d.Rings[6].SwitchesPerHop = f(-1) },
			"rings[6] (ring/goroutine N=8 ws=16KiB same-cpu): switches_per_hop is -1, not a count"},
		{"ring blocks", func(d *result.Document) { d.Rings[2].BlockInfo[1].Samples = 7 },
			"rings[2] (ring/goroutine N=32 ws=0 same-cpu): block_info holds 12 samples in all but there are 10 samples"},
		{"ring block count", func(d *result.Document) { d.Rings[2].Blocks = 3 },
			"rings[2] (ring/goroutine N=32 ws=0 same-cpu): blocks is 3 but block_info lists 2 blocks"},
		{"spawn median", func(d *result.Document) { d.Spawn[1].PerCreateNS.Median = math.Inf(-1) },
			"spawn[1] (spawn/thread): per_create_ns.median is -Inf, not a time"},
		{"spawn interval", func(d *result.Document) { d.Spawn[1].PerCreateNS.CIHigh = 1 },
			"spawn[1] (spawn/thread): per_create_ns.ci_high is 1, below the median "},
		{"spawn blocks", func(d *result.Document) { d.Spawn[2].BlockSamples = []int{6, 5} },
			"spawn[2] (spawn/fork-exec): block_samples holds 11 samples in all but there are 12 samples"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := good(t)
			c.spoil(d)
			err := d.Validate()
			var fe *result.FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("Validate: %v, want a FormatError", err)
			}
			fe.Path = "bad.json"
			msg := err.Error()
			if !strings.HasPrefix(msg, "bad.json: "+c.want) {
				t.Errorf("got  %q\nwant %q…", msg, "bad.json: "+c.want)
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one line: %q", msg)
			}
			// Through a file, as compare and report read it (NaN and
			// infinities cannot be written as JSON: those stop at Encode).
			b, err := d.Encode()
			if err != nil {
				return
			}
			path := filepath.Join(t.TempDir(), "bad.json")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := result.Load(path, nil); err == nil || !strings.HasPrefix(err.Error(), path+": "+c.want) {
				t.Errorf("Load: %v, want %q…", err, path+": "+c.want)
			}
		})
	}
}

// Every document ctxbench writes itself still reads: the fake documents
// (ladder rows through the real aggregation, with and without the other
// experiments, scaled and redrawn), the golden files, and the files of
// schema version 1, which have a block count but no block_info.
func TestValidateAcceptsWhatCtxbenchWrites(t *testing.T) {
	for _, o := range []testdoc.Options{
		{Seed: 1, Experiments: true}, {Seed: 2}, {Seed: 1, Scale: 2}, {Seed: 1, Redraw: 7}, {Seed: 3, Runs: 4},
	} {
		d, err := testdoc.Doc(o)
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Validate(); err != nil {
			t.Errorf("testdoc %+v: %v", o, err)
		}
	}
	for _, p := range []string{"testdata/v1-ladder.json", "testdata/v1-ring.json", "../render/formats/testdata/fake.json"} {
		if _, err := result.Load(p, nil); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}
