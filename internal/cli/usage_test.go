package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The errors issue 28 found leaking Go types, parser messages and cobra's
// phrasing: each exits 2 with one line on stderr that names the flag, the
// command or the file, and none of those phrases.
func TestErrorsSayWhatIsWrongInWords(t *testing.T) {
	dir := t.TempDir()
	arr := filepath.Join(dir, "array.json")
	if err := os.WriteFile(arr, []byte("[1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\"schema_version\": 3,,}"), 0o644); err != nil {
		t.Fatal(err)
	}
	same := filepath.Join(dir, "same")
	cases := []struct {
		args  []string
		names string // what the line must name
	}{
		{[]string{"report", arr, "-o", filepath.Join(dir, "r.html")}, "array.json"},
		{[]string{"compare", arr, arr}, "array.json"},
		{[]string{"compare", bad}, "bad.json"},
		{[]string{"run", "thread/pipe", "--dry-run", "--iterations", "-1"}, "--iterations"},
		{[]string{"run", "thread/pipe", "--dry-run", "--runs", "abc"}, "--runs"},
		{[]string{"run", "thread/pipe", "--dry-run", "--min-time", "5"}, "--min-time"},
		{[]string{"run", "thread/pipe", "--dry-run", "--seed", "-1"}, "--seed"},
		{[]string{"pool", "--seed", "-1"}, "--seed"},
		{[]string{"ring", "--dry-run", "--tasks", "-4"}, "--tasks"},
		{[]string{"compare"}, "compare"},
		{[]string{"list", "extra"}, "list"},
		{[]string{"run", "--frobnicate"}, "--frobnicate"},
		{[]string{"run", "thread/pipe", "--dry-run", "--export-csv", same, "--export-json", same}, same},
		{[]string{"spawn", "thread", "--export-csv", same, "--export-markdown", same}, same},
		{[]string{"run", "thread/pipe", "--dry-run", "--quick", "--thorough"}, "--thorough"},
		{[]string{"ab", "--dry-run", "--setup-a", "true", "--setup-b", "true", "--setup-timeout", "-1s"}, "--setup-timeout"},
	}
	leaks := []string{"strconv", "Parse", "invalid syntax", "Go value", "type struct", "arg(s)", "cannot unmarshal", "if any flags in the group",
		" json: ", "received", "cobra", "pflag"}
	for _, c := range cases {
		code, _, stderr := run(t, c.args...)
		line := strings.TrimSpace(stderr)
		if code != ExitUsage || strings.Count(line, "\n") != 0 || line == "" {
			t.Errorf("%v: status %d, stderr %q; want status 2 and one line", c.args, code, stderr)
			continue
		}
		if !strings.Contains(line, c.names) {
			t.Errorf("%v: %q does not name %s", c.args, line, c.names)
		}
		for _, l := range leaks {
			if strings.Contains(line, l) {
				t.Errorf("%v: %q leaks %q", c.args, line, l)
			}
		}
	}
	if _, err := os.Stat(same); err == nil {
		t.Error("a refused run wrote an export")
	}
}
