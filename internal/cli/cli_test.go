package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
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

func TestExportsToFiles(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := run(t, "run", "thread/pipe", "--dry-run", "-q",
		"--export-json", dir+"/r.json", "--export-csv", dir+"/r.csv",
		"--export-markdown", dir+"/r.md", "--export-gobench", dir+"/r.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := result.Load(dir+"/r.json", nil); err != nil {
		t.Fatal(err)
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
			if r.Placement != "same-cpu" || r.OneWayNS.Interval != "block-medians" {
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
		if len(r.BlockInfo) < 2 || r.OneWayNS.Interval != "block-medians" {
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
