package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Bad values of load's flags: exit status 2 and one line naming the flag,
// before anything is measured (a dry run would otherwise succeed).
func TestLoadBadValues(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "0"}, "--rate 0"},
		{[]string{"--rate", "-5"}, "--rate -5"},
		{[]string{"--rate", "abc"}, "--rate"},
		{[]string{"--utilization", "101"}, "--utilization 101"},
		{[]string{"--utilization", "0"}, "--utilization 0"},
		{[]string{"--utilization", ""}, "--utilization is empty"},
		{[]string{"--rate", ""}, "--rate is empty"},
		{[]string{"--utilization", "50,,75"}, "empty element"},
		{[]string{"--kind", ""}, "--kind is empty"},
		{[]string{"--kind", "goroutine"}, "--kind"},
		{[]string{"--utilization", "50", "--rate", "100"}, "not both"},
		{[]string{"--contexts", "0"}, "--contexts"},
		{[]string{"--work", "-1us"}, "--work"},
		{[]string{"--arrivals", "bursty"}, "--arrivals"},
		{[]string{"--block", "1ms"}, "--block"},
		{[]string{"--block", "1s", "--warmup-time", "1s"}, "--warmup-time"},
		{[]string{"--probe", "1ms"}, "--probe"},
		{[]string{"--runs", "0"}, "--runs"},
		{[]string{"--min-time", "1ms"}, "--min-time is not offered"},
		{[]string{"--export-gobench", "-"}, "--export-gobench is not offered"},
		{[]string{"--placement", "sideways"}, "sideways"},
		{[]string{"--placement", "smt-sibling"}, ""},
	} {
		args := append([]string{"load", "--dry-run", "--quick"}, c.args...)
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := run(t, args...)
			lines := stderrLines(stderr)
			if code != ExitUsage || len(lines) != 1 || !strings.HasPrefix(lines[0], "ctxbench: ") || !strings.Contains(lines[0], c.want) {
				t.Fatalf("exit %d, stderr %q: want exit 2 and one line containing %q", code, stderr, c.want)
			}
			if stdout != "" {
				t.Errorf("stdout %q", stdout)
			}
		})
	}
}

// A dry run of load writes a document whose loads hold what was asked:
// one series per kind and placement, one level per utilisation in the
// order asked, percentiles in order inside their intervals, and the
// contract's names (p50, p90, p99, p99_9, target and achieved
// utilisation) in the JSON.
func TestLoadDryRunDocument(t *testing.T) {
	needPinning(t)
	code, stdout, stderr := run(t, "load", "--dry-run", "--quick", "--kind", "thread,process", "--placement", "same-cpu,cross-cpu",
		"--utilization", "10,50,90", "--seed", "3", "-q", "--export-json", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d, err := result.Decode([]byte(stdout))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Loads) != 4 {
		t.Fatalf("%d series, want 4 (2 kinds × 2 placements)", len(d.Loads))
	}
	for _, s := range d.Loads {
		if len(s.Levels) != 3 || s.Sweep != "utilization" || s.Contexts != 4 {
			t.Fatalf("%s %s: %d levels, sweep %s, %d contexts", s.Name, s.Placement, len(s.Levels), s.Sweep, s.Contexts)
		}
		for i, want := range []float64{0.1, 0.5, 0.9} {
			l := s.Levels[i]
			if l.TargetUtilization == nil || *l.TargetUtilization != want || len(l.Blocks) != 4 || len(l.Calibration) == 0 {
				t.Errorf("%s %s level %d: target %v, %d blocks, %d probes", s.Name, s.Placement, i, l.TargetUtilization, len(l.Blocks), len(l.Calibration))
			}
		}
		if s.Reference == nil || s.Reference.Name != map[string]string{"thread": "thread/futex", "process": "process/futex"}[s.Kind] {
			t.Errorf("%s %s: reference %+v", s.Name, s.Placement, s.Reference)
		}
	}
	var raw struct {
		Loads []struct {
			Levels []map[string]json.RawMessage `json:"levels"`
		} `json:"loads"`
	}
	if err := json.Unmarshal([]byte(stdout), &raw); err != nil {
		t.Fatal(err)
	}
	lv := raw.Loads[0].Levels[1]
	for _, k := range []string{"target_utilization", "achieved_utilization", "wakeup", "request_corrected", "request_uncorrected", "generator_lag"} {
		if _, ok := lv[k]; !ok {
			t.Errorf("a level has no %q", k)
		}
	}
	var wake map[string]json.RawMessage
	_ = json.Unmarshal(lv["wakeup"], &wake)
	for _, k := range []string{"p50", "p90", "p99", "p99_9"} {
		if _, ok := wake[k]; !ok {
			t.Errorf("wakeup has no %q", k)
		}
	}
}
