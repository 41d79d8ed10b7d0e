package cli

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"golang.org/x/perf/benchfmt"

	"github.com/ctxbench/ctxbench/internal/host/platform"
	"github.com/ctxbench/ctxbench/internal/model"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
	"github.com/ctxbench/ctxbench/internal/store"
	"github.com/ctxbench/ctxbench/internal/suite"
	"github.com/ctxbench/ctxbench/internal/testdoc"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

func run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// Bad input: exit status 2 and exactly one line on stderr, never a panic.
func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	cases := [][]string{
		{"run", "no/such-benchmark"},
		{"run"},
		{"run", "thread/pipe", "--runs", "-3"},
		{"run", "thread/pipe", "--runs", "abc"},
		{"run", "thread/pipe", "--placement", "sideways"},
		{"run", "thread/pipe", "--min-time", "1ns"},
		{"run", "thread/pipe", "--cpus", "9999"},
		{"run", "thread/pipe", "--cpus", "1-x"},
		{"run", "thread/pipe", "--quick", "--thorough"},
		{"run", "thread/pipe", "--no-such-flag"},
		{"run", "thread/yield", "--placement", "cross-cpu"},
		{"no-such-command"},
		{"list", "extra"},
		{"replicate", "no-such-experiment"},
		{"run", "thread/pipe", "--cpus", "0-2000000000"},
		{"run", "thread/pipe", "--dry-run", "--export-json", "/no/such/dir/r.json"},
		{"run", "thread/pipe", "--dry-run", "--export-csv", "/"},
		{"run", "thread/pipe", "--dry-run", "--export-json", "-", "--export-csv", "-"},
		{"ring", "--dry-run", "--export-json", "/no/such/dir/r.json"},
		{"spawn", "goroutine", "--export-json", "/no/such/dir/r.json"},
		{"compare", "-", "-"},
		{"history", "--format", "xml"},
		{"history", "--import", "/no/such/dir"},
		{"history", "thread", "--import", "/"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, _, stderr := run(t, args...)
			if code != ExitUsage {
				t.Fatalf("exit status %d, want %d (stderr %q)", code, ExitUsage, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stderr), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "ctxbench: ") {
				t.Fatalf("stderr should be one 'ctxbench: ...' line, got %q", stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Fatalf("stack trace on stderr: %q", stderr)
			}
		})
	}
}

// The contract of `list --json`: an array with name, rung, description,
// available and reason in every object.
func TestListJSONContract(t *testing.T) {
	code, out, stderr := run(t, "list", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var entries []map[string]any
	if err := json.Unmarshal([]byte(out), &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) < 15 {
		t.Fatalf("only %d benchmarks listed", len(entries))
	}
	rungs := map[string]bool{}
	for _, e := range entries {
		for _, k := range []string{"name", "rung", "description", "available", "reason"} {
			if _, ok := e[k]; !ok {
				t.Fatalf("entry %v has no %q", e, k)
			}
		}
		if _, ok := e["available"].(bool); !ok {
			t.Fatalf("available is not a bool in %v", e)
		}
		if e["available"] == false && e["reason"] == "" {
			t.Fatalf("%v is unavailable without a reason", e["name"])
		}
		rungs[e["rung"].(string)] = true
	}
	for _, r := range []string{"floor", "goroutine", "thread", "process", "reference"} {
		if !rungs[r] {
			t.Errorf("no benchmark in rung %s", r)
		}
	}
}

// A dry run exercises the whole pipeline without measuring: the JSON obeys
// the contract and says it is synthetic.
func TestDryRunJSONContract(t *testing.T) {
	code, out, stderr := run(t, "run", "thread", "process/pipe", "--dry-run", "--export-json", "-", "--seed", "7")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := result.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Settings.DryRun {
		t.Fatal("a dry run is not marked as one")
	}
	if len(doc.Results) == 0 {
		t.Fatal("no results")
	}
	for _, r := range doc.Results {
		if r.SwitchesPerHop == nil && r.Rung == "thread" {
			t.Errorf("%s: thread rows carry switches_per_hop", r.Name)
		}
		if len(r.Samples) != r.OneWayNS.N || r.OneWayNS.N == 0 {
			t.Errorf("%s: %d samples, summary of %d", r.Name, len(r.Samples), r.OneWayNS.N)
		}
		if r.Label.What == "" || r.Placement == "" {
			t.Errorf("%s: no label or placement", r.Name)
		}
	}
	// The raw JSON has the contract's field names.
	var raw map[string]any
	_ = json.Unmarshal([]byte(out), &raw)
	for _, k := range []string{"schema_version", "environment", "results"} {
		if _, ok := raw[k]; !ok {
			t.Fatalf("no %q in the document", k)
		}
	}
	first := raw["results"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "rung", "placement", "one_way_ns", "samples", "switches_per_hop", "label"} {
		if _, ok := first[k]; !ok {
			t.Fatalf("no %q in a result", k)
		}
	}
	for _, k := range []string{"median", "p10", "p90", "ci_low", "ci_high"} {
		if _, ok := first["one_way_ns"].(map[string]any)[k]; !ok {
			t.Fatalf("no one_way_ns.%s", k)
		}
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"list", "--help"}, {"env", "--help"}, {"replicate", "--help"}} {
		code, out, _ := run(t, args...)
		if code != 0 || !strings.Contains(out, "Examples:") {
			t.Errorf("%v: exit %d, examples missing:\n%s", args, code, out)
		}
	}
}

// Every export format is written where asked and reads back as what the
// document holds: the JSON loads and validates; the CSV has one record per
// row with its median and sample count; the Markdown table one line per
// row; the Go benchmark format, parsed by benchfmt (benchstat's reader),
// one value per block of each row, in ns/hop.
func TestExportsToFiles(t *testing.T) {
	needPinning(t)
	dir := t.TempDir()
	code, _, stderr := run(t, "run", "thread/pipe", "process/pipe", "--placement", "same-cpu,cross-cpu", "--dry-run", "-q",
		"--export-json", dir+"/r.json", "--export-csv", dir+"/r.csv",
		"--export-markdown", dir+"/r.md", "--export-gobench", dir+"/r.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := result.Load(dir+"/r.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Results) != 4 {
		t.Fatalf("%d rows, want 4", len(doc.Results))
	}
	rows := map[string]*result.Result{}
	for i := range doc.Results {
		rows[doc.Results[i].Name+" "+doc.Results[i].Placement] = &doc.Results[i]
	}

	f, err := os.Open(dir + "/r.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("the CSV does not parse: %v", err)
	}
	col := map[string]int{}
	for i, h := range records[0] {
		col[h] = i
	}
	if len(records) != 1+len(doc.Results) {
		t.Errorf("CSV: %d records, want a header and %d rows", len(records), len(doc.Results))
	}
	for _, rec := range records[1:] {
		r := rows[rec[col["name"]]+" "+rec[col["placement"]]]
		if r == nil {
			t.Errorf("CSV row %v is no row of the document", rec[:3])
			continue
		}
		median, err := strconv.ParseFloat(rec[col["one_way_ns_median"]], 64)
		if err != nil || median != r.OneWayNS.Median {
			t.Errorf("CSV %s %s: median %q, the document %v", r.Name, r.Placement, rec[col["one_way_ns_median"]], r.OneWayNS.Median)
		}
		if n, err := strconv.Atoi(rec[col["samples"]]); err != nil || n != len(r.Samples) {
			t.Errorf("CSV %s %s: samples %q, the document %d", r.Name, r.Placement, rec[col["samples"]], len(r.Samples))
		}
	}

	md, err := os.ReadFile(dir + "/r.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, line := range strings.Split(string(md), "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 5 || !strings.HasPrefix(strings.TrimSpace(cells[2]), "`") {
			continue
		}
		name, placement := strings.Trim(strings.TrimSpace(cells[2]), "`"), strings.TrimSpace(cells[3])
		if rows[name+" "+placement] == nil {
			t.Errorf("Markdown row %q is no row of the document", line)
		}
		seen++
	}
	if seen != len(doc.Results) {
		t.Errorf("Markdown: %d table rows, want %d", seen, len(doc.Results))
	}

	gb, err := os.Open(dir + "/r.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer gb.Close()
	values := map[string][]float64{}
	br := benchfmt.NewReader(gb, "r.txt")
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.Result:
			if len(rec.Values) != 1 || rec.Values[0].OrigUnit != "ns/hop" {
				t.Errorf("gobench %s: values %+v, want one in ns/hop", rec.Name, rec.Values)
				continue
			}
			values[string(rec.Name.Full())] = append(values[string(rec.Name.Full())], rec.Values[0].OrigValue)
		case *benchfmt.SyntaxError:
			t.Errorf("gobench: %v", rec)
		}
	}
	if err := br.Err(); err != nil {
		t.Fatal(err)
	}
	if len(values) != len(doc.Results) {
		t.Errorf("gobench: %d benchmarks %v, want %d", len(values), values, len(doc.Results))
	}
	for _, r := range doc.Results {
		name := "Thread/pipe/placement=" + r.Placement
		if r.Rung == "process" {
			name = "Process/pipe/placement=" + r.Placement
		}
		if len(values[name]) != r.Blocks {
			t.Errorf("gobench %s: %d values, the row has %d blocks", name, len(values[name]), r.Blocks)
		}
		// Each value is a block's median: among the row's samples' range.
		lo, hi := slices.Min(r.Samples), slices.Max(r.Samples)
		for _, v := range values[name] {
			if v < lo || v > hi {
				t.Errorf("gobench %s: %v ns/hop, outside the row's samples [%v, %v]", name, v, lo, hi)
			}
		}
	}
}

// The A/A self-test runs its sittings, prints the verdicts and stores every
// sitting and the derived figures in the JSON (a dry run: the structure,
// not the machine).
func TestAASelfTest(t *testing.T) {
	path := t.TempDir() + "/aa.json"
	code, out, stderr := run(t, "aa", "--dry-run", "--sittings", "3", "--seed", "1", "--export-json", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"3 independent sittings", "thread/pipe", "process/pipe", "thread/futex", "coverage:", "false positives:", "resolvable:", "told apart"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	doc, err := result.Load(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	a := doc.AA
	if a == nil || len(a.Runs) != 3 || len(a.Cells) != 3 || a.Pairs != 18 || a.Comparisons != 6 || len(a.Distinct) != 3 {
		t.Fatalf("aa section %+v", a)
	}
	for _, run := range a.Runs {
		for _, r := range run {
			if r.Placement != "same-cpu" || r.OneWayNS.Interval != stats.IntervalBlocks {
				t.Errorf("%s %s: interval %q", r.Name, r.Placement, r.OneWayNS.Interval)
			}
		}
	}
}

// A dry run of every benchmark succeeds: no row fails (the runtime probes
// once failed every dry run with "a zero-length sample"), every row holds
// its samples in blocks, and every multiple has its interval.
func TestRunAllDryRun(t *testing.T) {
	code, out, stderr := run(t, "run", "all", "--dry-run", "-q", "--export-json", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := result.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Failures) != 0 || len(doc.Results) == 0 {
		t.Fatalf("%d results, failures %+v", len(doc.Results), doc.Failures)
	}
	for _, r := range doc.Results {
		if len(r.BlockInfo) < 2 || r.OneWayNS.Interval != stats.IntervalBlocks {
			t.Errorf("%s %s: %d blocks, interval %q", r.Name, r.Placement, len(r.BlockInfo), r.OneWayNS.Interval)
		}
		if r.Multiple != nil && r.MultipleInterval == nil {
			t.Errorf("%s %s: a multiple without its interval", r.Name, r.Placement)
		}
	}
}

// A process ring warms up for at least 40 ms of samples unless --warmup
// says otherwise; other rings keep the preset's warm-up.
func TestRingWarmupDefaults(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
	}{
		{[]string{"--kind", "process"}, 20}, // 40 ms of 2 ms samples
		{[]string{"--kind", "process-mt", "--min-time", "4ms"}, 10},
		{[]string{"--kind", "thread,process-mt"}, 20},
		{[]string{"--kind", "process", "--warmup", "3"}, 3},
		{[]string{"--kind", "thread"}, 1},
	} {
		args := append([]string{"ring", "--dry-run", "--tasks", "2", "--working-set", "0", "--export-json", "-", "--quiet"}, c.args...)
		code, out, errs := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		var doc result.Document
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if doc.Settings.Warmup != c.want {
			t.Errorf("%v: warm-up %d samples, want %d", c.args, doc.Settings.Warmup, c.want)
		}
	}
}

// helpFlags are the long names of the flags a command's --help lists.
func helpFlags(t *testing.T, path []string) []string {
	t.Helper()
	code, out, stderr := run(t, append(append([]string{}, path...), "--help")...)
	if code != ExitOK {
		t.Fatalf("%v --help: exit %d, %s", path, code, stderr)
	}
	var names []string
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch {
		case l == "Flags:" || l == "Global Flags:":
			in = true
			continue
		case strings.TrimSpace(l) == "":
			in = false
			continue
		}
		if m := helpFlagLine.FindStringSubmatch(l); in && m != nil {
			names = append(names, m[1])
		}
	}
	if len(names) == 0 {
		t.Fatalf("%v --help lists no flags:\n%s", path, out)
	}
	return names
}

var helpFlagLine = regexp.MustCompile(`^\s+(?:-[A-Za-z], )?--([a-z0-9-]+)`)

// Every flag a command's --help lists is one the command accepts: given a
// valid value, it is not refused. Measuring commands are stopped by
// --lock-timeout 0s, the last check before the measurement lock (so their
// every other check has passed and nothing is measured); the others run.
func TestHelpListsOnlyAcceptedFlags(t *testing.T) {
	needPinning(t)
	dir := t.TempDir()
	same := []model.Placement{model.SameCPU}
	a := writeDoc(t, dir, "a.json", testdoc.Options{Seed: 1, Only: same})
	b := writeDoc(t, dir, "b.json", testdoc.Options{Seed: 1, Redraw: 2, Only: same})
	allowed, err := resolveCPUs("")
	if err != nil || len(allowed) == 0 {
		t.Fatalf("no allowed CPU: %v", err)
	}
	cpu := strconv.Itoa(allowed[0])
	// history reads a store that exists (it never creates one).
	for _, h := range []string{"h.db", "h2.db"} {
		st, _, err := store.Open(context.Background(), filepath.Join(dir, h))
		if err != nil {
			t.Fatal(err)
		}
		st.Close()
	}
	stop := []string{"--lock-timeout", "0s"}
	const stopped = "--lock-timeout must be positive"
	commands := map[string]struct {
		base, end []string
	}{
		"":          {nil, stop}, // the default ladder
		"run":       {[]string{"thread/pipe"}, stop},
		"ring":      {nil, stop},
		"aa":        {nil, stop},
		"explain":   {[]string{"thread/pipe", "--dry-run"}, stop}, // a dry run needs no BPF
		"spawn":     {[]string{"goroutine"}, stop},
		"memory":    {[]string{"goroutine"}, stop},
		"pool":      {nil, stop},
		"replicate": {[]string{"go-test-bench"}, stop},
		"report":    {[]string{a, "-o", filepath.Join(dir, "r.html")}, nil},
		"compare":   {[]string{a, b}, nil},
		"list":      {nil, nil},
		"env":       {nil, nil},
		"prepare":   {nil, nil},                                             // never run: see parseOnly
		"history":   {[]string{"--store", filepath.Join(dir, "h.db")}, nil}, // never the user's store
		"ab":        {[]string{"--setup-a", "true", "--setup-b", "true"}, stop},
		"load":      {nil, stop},
		"attach":    {[]string{"--all"}, stop},
	}
	// Flags that take the place of a command's base (attach's targets and
	// --check, which no other target goes beside).
	ownBase := map[string][]string{"attach pid": {}, "attach cgroup": {}, "attach all": {}, "attach check": {},
		"attach check-rate": {"--check"}, "attach check-rounds": {"--check"}, "attach cpus": {"--check"}}
	// A valid value per flag ("command flag" first, then "flag"); a bool
	// flag takes none. A new flag without one fails here until it has one.
	values := map[string][]string{
		"runs": {"5"}, "warmup": {"1"}, "samples-per-block": {"2"}, "min-time": {"2ms"}, "iterations": {"1000"},
		"placement": {"same-cpu"}, "probes": {"light"}, "report history": {"--history=" + filepath.Join(dir, "h3.db")}, "cpus": {cpu}, "seed": {"1"}, "span": {"0"}, "timeout": {"5s"},
		"export-json": {filepath.Join(dir, "x.json")}, "export-csv": {filepath.Join(dir, "x.csv")},
		"export-markdown": {filepath.Join(dir, "x.md")}, "export-gobench": {filepath.Join(dir, "x.txt")},
		"target-ci": {"5"}, "target-budget": {"10s", "--target-ci", "5"}, "lock-timeout": {"1m"}, "sittings": {"2"},
		"kind": {"thread"}, "tasks": {"2"}, "working-set": {"0"}, "stack": {"64KiB"}, "ipc": {"pipe"}, "container": {"full"},
		"contexts": {"goroutine=1000"}, "color": {"never"},
		"server": {"redis"}, "clients": {"pgxpool"}, "pool-sizes": {"4"}, "workers": {"10"}, "pool placement": {"cross-cpu"},
		"pool cpus": {cpu, "-p", "same-cpu"}, "duration": {"1s"}, "warmup-time": {"500ms"},
		"wait-quiet": {"1s"}, "pool seed": {"2"}, "postgres-dsn": {"host=/nonexistent dbname=x"}, "redis-url": {"redis://127.0.0.1:1"},
		"output": {filepath.Join(dir, "r2.html")}, "title": {"t"}, "alpha": {"0.1"}, "fail-on-regression": {"5"}, "format": {"json"},
		"store": {filepath.Join(dir, "h2.db")}, "import": {dir},
		"setup-a": {"true"}, "setup-b": {"true"}, "cleanup": {"true"}, "setup-timeout": {"5s"},
		"utilization": {"50"}, "rate": {"1000"}, "load contexts": {"4"}, "work": {"20us"}, "arrivals": {"poisson"},
		"block": {"1s"}, "probe": {"300ms"}, "capture-above": {"p99"},
		"attach pid": {strconv.Itoa(os.Getpid())}, "attach cgroup": {"/"}, "attach window": {"1s"}, "attach rate-limit": {"1000"},
		"attach pool": {a}, "check-rate": {"20000"}, "check-rounds": {"2"},
	}
	// Commands that must not run here (prepare builds every probe): their
	// flags are checked by parsing alone, which is where a flag of theirs
	// (only the global --color) is refused or accepted.
	parseOnly := map[string]bool{"prepare": true}
	root := newRoot(context.Background(), io.Discard, io.Discard)
	cmds := append([]*cobra.Command{root}, root.Commands()...)
	for _, c := range cmds {
		name := ""
		var path []string
		if c != root {
			name, path = c.Name(), []string{c.Name()}
		}
		spec, ok := commands[name]
		if !ok {
			t.Errorf("command %q is not in this test's table", name)
			continue
		}
		for _, flag := range helpFlags(t, path) {
			if flag == "help" {
				continue
			}
			t.Run(strings.TrimSpace(name+" --"+flag), func(t *testing.T) {
				args := append(append([]string{}, path...), spec.base...)
				if b, ok := ownBase[name+" "+flag]; ok {
					args = append(append([]string{}, path...), b...)
				}
				args = append(args, "--"+flag)
				f := c.Flags().Lookup(flag)
				if f == nil {
					f = c.InheritedFlags().Lookup(flag) // the root's persistent --color
				}
				switch {
				case flag == "version": // cobra's, added when the root runs
				case f == nil:
					t.Fatalf("--%s is in the help but not among the command's flags", flag)
				case f.Value.Type() != "bool":
					v, ok := values[name+" "+flag]
					if !ok {
						v, ok = values[flag]
					}
					if !ok {
						t.Fatalf("no valid value of --%s in this test's table", flag)
					}
					args = append(args, v...)
				}
				args = append(args, spec.end...)
				if parseOnly[name] {
					c, rest, err := newRoot(context.Background(), io.Discard, io.Discard).Find(args)
					if err == nil {
						err = c.ParseFlags(rest)
					}
					if err != nil {
						t.Errorf("%q: %s --help lists --%s, but it was refused: %v", args, name, flag, err)
					}
					return
				}
				code, _, stderr := run(t, args...)
				if code == ExitOK || (spec.end != nil && code == ExitUsage && strings.Contains(stderr, stopped)) {
					return
				}
				t.Errorf("%q: %s --help lists --%s, but it was refused: exit %d, %q", args, name, flag, code, stderr)
			})
		}
	}
}

// explain's --help gives the defaults explain uses, not the ladder's.
func TestExplainHelpShowsItsDefaults(t *testing.T) {
	_, out, _ := run(t, "explain", "--help")
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--min-time duration") && (!strings.Contains(l, "default "+suite.ExplainMinTime.String()) || strings.Contains(l, "2ms")) {
			t.Errorf("--min-time line does not give explain's %v: %q", suite.ExplainMinTime, l)
		}
	}
	for _, hidden := range []string{"--export-csv", "--export-markdown", "--export-gobench", "--no-perf-check"} {
		if strings.Contains(out, hidden) {
			t.Errorf("explain --help lists %s, which explain refuses or ignores", hidden)
		}
	}
}

// What ctxbench writes passes the checks compare and report make on what
// they read: the dry runs of the commands whose files have switch rows or
// ring points (run all is TestRunAllDryRun).
func TestDryRunsReadBack(t *testing.T) {
	for _, args := range [][]string{
		{"ring", "--dry-run", "--quick", "-q", "--kind", "goroutine,thread,process", "--tasks", "2,16", "--working-set", "0,64KiB", "--export-json", "-"},
		{"explain", "thread/pipe", "process/pipe", "--dry-run", "--quick", "-q", "--export-json", "-"},
		{"aa", "--dry-run", "--quick", "--sittings", "2", "-q", "--export-json", "-"},
	} {
		code, out, stderr := run(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if _, err := result.Decode([]byte(out)); err != nil {
			t.Errorf("%v: %v", args, err)
		}
	}
}

// A dry run measured nothing, so explain's output says no verdict of any
// kind: its figures are synthetic.
func TestExplainDryRunSaysNoVerdict(t *testing.T) {
	needPinning(t)
	code, out, stderr := run(t, "explain", "thread/pipe", "process/pipe", "container/pipe-plain", "container/pipe-cg4",
		"--placement", "same-cpu,cross-cpu", "--dry-run", "--quick")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "DRY RUN") {
		t.Errorf("the dry run does not say so:\n%s", out)
	}
	for _, word := range []string{"CONFIRMED", "REFUTED", "NOT RESOLVED", "IN PART", "not resolved", "NOT MEASURABLE"} {
		if strings.Contains(out, word) {
			t.Errorf("a dry run says %q:\n%s", word, out)
		}
	}
}

// A result file holding a sample no measurement produces (a negative time)
// is refused by every command that reads one: exit 2, one line naming the
// file, the row and the field.
func TestImpossibleSampleIsRefused(t *testing.T) {
	dir := t.TempDir()
	good, bad := filepath.Join(dir, "good.json"), filepath.Join(dir, "bad.json")
	if code, _, stderr := run(t, "run", "thread/pipe", "--dry-run", "-q", "--export-json", good); code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	doc["results"].([]any)[0].(map[string]any)["samples"].([]any)[1] = -250.0
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"compare", good, bad},
		{"compare", bad, good},
		{"report", bad, "-o", filepath.Join(dir, "r.html")},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.Contains(stderr, "samples[1] is -250, not a time") {
			t.Errorf("%v: exit %d, stderr %q: want 2 and one line naming the sample", args, code, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.html")); err == nil {
		t.Error("the report was written from a refused file")
	}
}

// needPinning skips a test that pins threads where the platform cannot
// (macOS): it declares the capability pinning where it can.
func needPinning(t *testing.T) {
	t.Helper()
	if ok, why := platform.This.Gives(platform.Pinning); !ok {
		testenv.Skip(t, testenv.Pinning, "%s", why)
	}
}
