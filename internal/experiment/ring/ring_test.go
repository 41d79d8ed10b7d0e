package ring

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxbench/ctxbench/internal/catalog"
	"github.com/ctxbench/ctxbench/internal/experiment"
	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/schedule"
)

func TestParseBytes(t *testing.T) {
	good := map[string]int64{"0": 0, "4KiB": 4096, "4k": 4096, "64KiB": 65536, "1MiB": 1 << 20, "1 MiB": 1 << 20,
		"2m": 2 << 20, "1GiB": 1 << 30, "8": 8, "8B": 8, "1KB": 1000, "1.5MiB": 3 << 19}
	for s, want := range good {
		got, err := ParseBytes(s)
		if err != nil || got != want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-4KiB", "4XB", "KiB", "1.5", "abc", "2TiB", "4096GiB"} {
		if _, err := ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q) accepted", s)
		}
	}
	if _, err := ParseWorkingSets([]string{"12"}); err == nil || !strings.Contains(err.Error(), "multiple of 8") {
		t.Errorf("a working set of 12 bytes: %v", err)
	}
	ws, err := ParseWorkingSets([]string{"64KiB,0", "4KiB", "0"})
	if err != nil || !reflect.DeepEqual(ws, []int64{0, 4096, 65536}) {
		t.Errorf("ParseWorkingSets = %v, %v", ws, err)
	}
}

func TestParseTasks(t *testing.T) {
	got, err := ParseTasks([]string{"2-400"})
	want := []int{2, 4, 8, 16, 32, 64, 128, 256, 400}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("2-400 = %v, %v", got, err)
	}
	got, err = ParseTasks([]string{"1M,400", "2"})
	if err != nil || !reflect.DeepEqual(got, []int{2, 400, 1000000}) {
		t.Errorf("1M,400,2 = %v, %v", got, err)
	}
	for _, s := range []string{"1", "0", "-3", "x", "400-2", "2-y"} {
		if _, err := ParseTasks([]string{s}); err == nil {
			t.Errorf("ParseTasks(%q) accepted", s)
		}
	}
}

// Each limit of the machine is named when a ring would pass it.
func TestCheckNamesTheLimit(t *testing.T) {
	roomy := host.Limits{ThreadsMax: 200000, PidMax: 4000000, MaxMapCount: 1 << 20, Tasks: 200,
		NoFileHard: 1 << 20, NoFileSoft: 1024, NProc: 1 << 20, MemAvailable: 64 << 30}
	if err := Check(Thread, 10000, 4096, model.RingPipe, roomy); err != nil {
		t.Fatalf("a roomy machine refused 10,000 threads: %v", err)
	}
	// A single-threaded member is one task, a Go member about five.
	small := roomy
	small.PidMax = 4096
	if err := Check(Process, 2000, 0, model.RingPipe, small); err != nil {
		t.Errorf("2,000 single-threaded processes refused under pid_max 4096: %v", err)
	}
	cases := []struct {
		name  string
		kind  Kind
		n     int
		ws    int64
		ipc   model.RingIPC
		edit  func(*host.Limits)
		limit string
	}{
		{"threads-max", Thread, 10000, 0, model.RingPipe, func(l *host.Limits) { l.ThreadsMax = 5000 }, "kernel.threads-max"},
		{"pid_max", ProcessMT, 2000, 0, model.RingPipe, func(l *host.Limits) { l.PidMax = 4096 }, "kernel.pid_max"}, // ~5 threads a member
		{"pid_max single-threaded", Process, 5000, 0, model.RingPipe, func(l *host.Limits) { l.PidMax = 4096 }, "kernel.pid_max"},
		{"max_map_count", Thread, 10000, 0, model.RingPipe, func(l *host.Limits) { l.MaxMapCount = 65530 / 4 }, "vm.max_map_count"},
		{"nofile", Thread, 10000, 0, model.RingPipe, func(l *host.Limits) { l.NoFileHard = 20000 }, "RLIMIT_NOFILE"},
		{"memory", Goroutine, 1000000, 1 << 20, model.RingPipe, nil, "MemAvailable"},
		{"nproc", Process, 2000, 0, model.RingPipe, func(l *host.Limits) { l.NProc = 1000 }, "RLIMIT_NPROC"},
		{"one", Thread, 1, 0, model.RingPipe, nil, "at least 2"},
	}
	for _, c := range cases {
		l := roomy
		if c.edit != nil {
			c.edit(&l)
		}
		err := Check(c.kind, c.n, c.ws, c.ipc, l)
		var le *LimitError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.limit) {
			t.Errorf("%s: got %v, want a LimitError naming %s", c.name, err, c.limit)
		}
	}
	// The descriptor limit that refuses pipes leaves room for eventfds,
	// and says so; raising the hard limit is possible with the capability.
	l := roomy
	l.NoFileHard = 20000
	if err := Check(Thread, 10000, 0, model.RingPipe, l); err == nil || !strings.Contains(err.Error(), "--ipc eventfd") {
		t.Errorf("no eventfd hint: %v", err)
	}
	if err := Check(Thread, 10000, 0, model.RingEventfd, l); err != nil {
		t.Errorf("eventfds refused: %v", err)
	}
	l.CanRaise = true
	if err := Check(Thread, 10000, 0, model.RingPipe, l); err != nil {
		t.Errorf("refused although the hard limit may be raised: %v", err)
	}
}

func TestFits(t *testing.T) {
	caches := []result.Cache{{Level: 1, Type: "Data", SizeBytes: 48 << 10}, {Level: 1, Type: "Instruction", SizeBytes: 32 << 10},
		{Level: 2, Type: "Unified", SizeBytes: 1 << 20}, {Level: 3, Type: "Unified", SizeBytes: 32 << 20}}
	for foot, want := range map[int64]string{0: "", 4096: "L1d", 48 << 10: "L1d", 64 << 10: "L2", 1 << 20: "L2", 2 << 20: "L3", 32 << 20: "L3", 33 << 20: "memory"} {
		got, llc := fits(foot, caches)
		if got != want || llc != 32<<20 {
			t.Errorf("fits(%d) = %q, %d; want %q, 32 MiB", foot, got, llc, want)
		}
	}
	if got, _ := fits(1<<20, nil); got != "" {
		t.Errorf("no cache information, but fits says %q", got)
	}
}

// ringCell is a cell for aggregation tests, with no worker behind it.
func ringCell(t *testing.T, k Kind, n int, ws int64) Cell {
	t.Helper()
	b := catalog.Lookup(map[Kind]string{Goroutine: catalog.RingGoroutine, Thread: catalog.RingThread, Process: catalog.RingProcess}[k])
	rc, err := schedule.Place(b, model.SameCPU, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	rc.Ring = &model.RingParams{Tasks: n, WorkingSet: ws}
	return Cell{Cell: rc, Kind: k, Tasks: n, WorkingSet: ws}
}

// response builds a block by hand: ns and overhead ns per sample.
func response(n int, rps uint64, raw, over []uint64, switches int64) model.Response {
	rounds := rps * uint64(len(raw)+1)
	d := &model.RingData{Tasks: n, RoundsPerSample: rps, Rounds: rounds, Token: uint64(n) * rounds,
		Passes: uint64(n-1) * rounds, MinPasses: rounds, MaxPasses: rounds,
		OverheadNS: over, OverheadTSC: over, HotNS: over, HotTSC: over}
	return model.Response{NS: raw, TSC: raw, Ring: d,
		A: model.Counts{Voluntary: switches / 2, Ops: rounds}, B: model.Counts{Voluntary: switches - switches/2, Ops: uint64(n-1) * rounds}}
}

// Net is raw minus overhead, to the nanosecond, even when that is negative;
// a non-positive net is flagged, never clamped.
func TestAggregateNeverClamps(t *testing.T) {
	c := ringCell(t, Thread, 4, 0)
	hops := int64(4 * 10 * 4)
	// 10 rounds of 4 hops per sample: 40 hops; raw 1000 ns/hop, overhead 1500.
	resp := response(4, 10, []uint64{40000, 40000, 40000}, []uint64{60000, 60000, 60000}, hops)
	r := Aggregate(c, run(resp), result.Environment{}, "")
	if r.RawNS.Median != 1000 || r.OverheadNS.Median != 1500 {
		t.Fatalf("raw %v overhead %v per hop, want 1000 and 1500", r.RawNS.Median, r.OverheadNS.Median)
	}
	if r.NetNS != -500 {
		t.Fatalf("net %v, want exactly -500 (raw - overhead, unclamped)", r.NetNS)
	}
	if r.NetHotNS == nil || *r.NetHotNS != -500 {
		t.Fatalf("net against the hot overhead %v, want -500", r.NetHotNS)
	}
	if !hasFlag(r, "net-nonpositive") {
		t.Fatalf("a negative net is not flagged: %+v", r.Flags)
	}
	// And a positive net is not.
	resp = response(4, 10, []uint64{40000, 40000, 40000}, []uint64{20000, 20000, 20000}, hops)
	r = Aggregate(c, run(resp), result.Environment{}, "")
	if r.NetNS != 500 || hasFlag(r, "net-nonpositive") {
		t.Fatalf("net %v flags %+v, want 500 and no flag", r.NetNS, r.Flags)
	}
	if !r.Verified || r.HopsCounted != r.HopsExpected || r.HopsExpected != 160 {
		t.Fatalf("hops %v/%v verified %v", r.HopsCounted, r.HopsExpected, r.Verified)
	}
	if r.SwitchesPerHop == nil || *r.SwitchesPerHop != 1 {
		t.Fatalf("switches per hop %v, want 1", r.SwitchesPerHop)
	}
}

// The stored net is the figure its interval belongs to: the median of the
// per-block differences, which the tables print (the report from the
// interval, the terminal from net_ns_per_hop). Here raw and overhead's
// block medians pair into differences of 500 ns once and 700–710 ns
// otherwise, while the difference of the two medians is 500 ns — outside
// the per-block interval. The hot and TSC nets are taken the same way.
func TestNetIsTheFigureOfItsInterval(t *testing.T) {
	c := ringCell(t, Thread, 4, 0)
	const perSample = 4 * 10 // tasks × rounds per sample
	block := func(raw, over float64) model.Response {
		r, o := uint64(raw*perSample), uint64(over*perSample)
		return response(4, 10, []uint64{r, r, r}, []uint64{o, o, o}, 4*10*4)
	}
	// Block 0: 1000 and 500; blocks 1–5: 1000 and 300; blocks 6–10: 1210 and 500.
	resps := []model.Response{block(1000, 500)}
	for range 5 {
		resps = append(resps, block(1000, 300))
	}
	for range 5 {
		resps = append(resps, block(1210, 500))
	}
	r := Aggregate(c, run(resps...), result.Environment{}, "")
	iv := r.NetInterval
	if iv == nil {
		t.Fatalf("no net interval from %d blocks", r.Blocks)
	}
	ofMedians := r.RawNS.Median - r.OverheadNS.Median
	if iv.Holds(ofMedians) {
		t.Fatalf("the simulation does not separate the estimators: the difference of medians %.1f lies in [%.1f, %.1f]", ofMedians, iv.Low, iv.High)
	}
	if r.NetNS != iv.Median || !iv.Holds(r.NetNS) {
		t.Errorf("net_ns_per_hop %.1f, net_interval %.1f [%.1f, %.1f]: the stored figure is not its interval's", r.NetNS, iv.Median, iv.Low, iv.High)
	}
	if ps, iv := r.NetNSPerSwitch, r.NetPerSwitchInterval; ps == nil || iv == nil || *ps != iv.Median {
		t.Errorf("net per switch %v, its interval %+v: not one figure", fmtPtr(ps), iv)
	}
	// response times the hot overhead and the TSC as the overhead and the ns.
	if r.NetHotNS == nil || *r.NetHotNS != r.NetNS {
		t.Errorf("net against the hot overhead %s, want %.1f: the nets of a point are taken one way", fmtPtr(r.NetHotNS), r.NetNS)
	}
	if r.NetCycles == nil || *r.NetCycles != r.NetNS {
		t.Errorf("net TSC cycles %s, want %.1f: the nets of a point are taken one way", fmtPtr(r.NetCycles), r.NetNS)
	}
}

func fmtPtr(x *float64) string {
	if x == nil {
		return "absent"
	}
	return fmt.Sprintf("%.1f", *x)
}

// A member that passed the token too few times breaks the count: flagged
// and not verified.
func TestAggregateFlagsLostHops(t *testing.T) {
	c := ringCell(t, Process, 3, 4096)
	resp := response(3, 5, []uint64{15000, 15000}, []uint64{3000, 3000}, 45)
	resp.Ring.Passes--
	resp.Ring.MinPasses--
	r := Aggregate(c, run(resp), result.Environment{}, "")
	if r.Verified || !hasFlag(r, "hop-count") || r.HopsCounted == r.HopsExpected {
		t.Fatalf("a lost pass went unnoticed: verified %v counted %v expected %v flags %+v", r.Verified, r.HopsCounted, r.HopsExpected, r.Flags)
	}
	// More than one switch per hop: every hop switched (verified), and a
	// warning gives the involuntary share (wakeup preemption on one CPU).
	resp = response(3, 5, []uint64{15000, 15000}, []uint64{3000, 3000}, 90)
	resp.A.Involuntary = 20
	r = Aggregate(c, run(resp), result.Environment{}, "")
	if !r.Verified || hasFlag(r, "switch-count") || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0].Message, "involuntary") {
		t.Fatalf("2 switches per hop: verified %v flags %+v warnings %v", r.Verified, r.Flags, r.Warnings)
	}
	// Fewer than one: some hops did not switch at all; flagged.
	resp = response(3, 5, []uint64{15000, 15000}, []uint64{3000, 3000}, 20)
	r = Aggregate(c, run(resp), result.Environment{}, "")
	if r.Verified || !hasFlag(r, "switch-count") {
		t.Fatalf("0.44 switches per hop not flagged: %+v", r.Flags)
	}
	// Goroutines expect no kernel switch: the count is informational.
	g := ringCell(t, Goroutine, 3, 0)
	r = Aggregate(g, run(response(3, 5, []uint64{1500, 1500}, []uint64{300, 300}, 1)), result.Environment{}, "")
	if r.SwitchesPerHop != nil || r.OSSwitchesPerHop == nil || !r.Verified {
		t.Fatalf("goroutine ring: switches %v os %v verified %v", r.SwitchesPerHop, r.OSSwitchesPerHop, r.Verified)
	}
}

// run wraps blocks as the scheduler returns them.
func run(resps ...model.Response) schedule.CellRun {
	var r schedule.CellRun
	for i, resp := range resps {
		r.Blocks = append(r.Blocks, schedule.Block{Round: i, Resp: resp})
	}
	return r
}

func hasFlag(r result.Ring, code string) bool {
	for _, f := range r.Flags {
		if f.Code == code {
			return true
		}
	}
	return false
}

type countProgress struct{ begin, blocks int }

func (p *countProgress) Begin(n int)          { p.begin = n }
func (p *countProgress) Block(string, string) { p.blocks++ }
func (p *countProgress) End()                 {}

// The dry run is deterministic, counts perfectly, and tells the progress
// bar as many blocks as it runs.
func TestDryRunSweep(t *testing.T) {
	sweep := func() ([]result.Ring, *countProgress) {
		p := &countProgress{}
		o := Options{Kinds: []Kind{Goroutine, Thread, Process}, Tasks: []int{2, 64}, WorkingSets: []int64{0, 1 << 20},
			Placements: []model.Placement{model.SameCPU, model.CrossCPU},
			Runs:       6, SamplesPerBlock: 4, Warmup: 1, MinTime: time.Millisecond,
			Limits: &host.Limits{MemAvailable: 64 << 30, NoFileHard: 1 << 20},
		}
		env := experiment.Env{CPUs: []int{0, 1}, Runner: schedule.Runner{Seed: 42, Executor: FakeExecutor{Seed: 42}, Progress: p, DryRun: true},
			Environment: result.Environment{CPU: result.CPUInfo{Caches: []result.Cache{{Level: 3, Type: "Unified", SizeBytes: 32 << 20}}}}}
		cells, skipped, err := Plan(o, env.CPUs)
		if err != nil || len(skipped) != 0 || len(cells) != 3*2*2*2 {
			t.Fatalf("plan: %d cells, skipped %v, %v", len(cells), skipped, err)
		}
		part, err := Run(context.Background(), env, cells, o)
		if err != nil {
			t.Fatal(err)
		}
		if len(part.Failures) > 0 {
			t.Fatalf("failures: %+v", part.Failures)
		}
		return part.Rings, p
	}
	a, p := sweep()
	b, _ := sweep()
	if p.begin != len(a)*2 || p.blocks != p.begin {
		t.Errorf("progress: begin %d, blocks %d, want %d", p.begin, p.blocks, len(a)*2)
	}
	for i, r := range a {
		if !r.Verified || r.HopsCounted != r.HopsExpected || len(r.Samples) != 6 || len(r.OverheadSamples) != 6 {
			t.Errorf("%s: verified %v hops %v/%v samples %d/%d", r.Point(), r.Verified, r.HopsCounted, r.HopsExpected, len(r.Samples), len(r.OverheadSamples))
		}
		if math.Abs(r.NetNS-(r.RawNS.Median-r.OverheadNS.Median)) > 1e-9 {
			t.Errorf("%s: net %v is not raw - overhead", r.Point(), r.NetNS)
		}
		if want := r.Tasks == 64 && r.WorkingSetB == 1<<20; (r.FitsIn == "memory") != want {
			t.Errorf("%s: fits in %q", r.Point(), r.FitsIn)
		}
		ja, _ := json.Marshal(a[i])
		jb, _ := json.Marshal(b[i])
		if string(ja) != string(jb) {
			t.Errorf("%s: two dry runs with one seed differ", r.Point())
		}
	}
}

func TestPlanRefusesUnknownPresetAndKind(t *testing.T) {
	if _, err := ParseKind("vm"); err == nil {
		t.Error("kind vm accepted")
	}
	o := Options{Kinds: []Kind{Container}, Tasks: []int{2}, WorkingSets: []int64{0}, ContainerPreset: "nope",
		Limits: &host.Limits{MemAvailable: 1 << 30, NoFileHard: 1 << 20}}
	if _, _, err := Plan(o, []int{0}); err == nil {
		t.Error("container preset nope accepted")
	}
}
