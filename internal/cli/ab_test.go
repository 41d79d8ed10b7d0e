package cli

import (
	"os"
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
)

// ab's bad input is refused before anything runs: exit 2, one line.
func TestABBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"ab", "thread/pipe", "--dry-run"},                      // no set-ups
		{"ab", "thread/pipe", "--dry-run", "--setup-a", "true"}, // one side
		{"ab", "thread/pipe", "--dry-run", "--setup-a", "true", "--setup-b", "true", "--setup-timeout", "0s"},
		{"ab", "no/such", "--dry-run", "--setup-a", "true", "--setup-b", "true"},
	} {
		code, _, stderr := run(t, args...)
		if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") != 0 || !strings.HasPrefix(stderr, "ctxbench: ") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line", args, code, stderr)
		}
	}
}

// A dry A/B has both sides of each cell, paired round by round, and
// records its commands; a set-up that fails stops a real run with one
// line naming it and its exit status (exit 1), and the clean-up still runs.
func TestAB(t *testing.T) {
	needPinning(t)
	code, out, stderr := run(t, "ab", "thread/pipe", "process/pipe", "--placement", "same-cpu", "--dry-run", "--seed", "3", "-q", "--setup-a", "true", "--setup-b", ":", "--cleanup", "true", "--export-json", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := result.Decode([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if doc.AB == nil || doc.AB.SetupA != "true" || doc.AB.SetupB != ":" || doc.AB.Cleanup != "true" || len(doc.AB.Changes) != 2 {
		t.Fatalf("ab section %+v", doc.AB)
	}
	sides := map[string]int{}
	for _, r := range doc.Results {
		sides[r.Variant]++
	}
	if sides["A"] != 2 || sides["B"] != 2 {
		t.Errorf("rows by side %v, want two of each", sides)
	}
	for _, c := range doc.AB.Changes {
		if c.Rounds < 6 || c.Confidence == 0 || !(c.Low <= c.Change && c.Change <= c.High) {
			t.Errorf("%s: %+v", c.Name, c)
		}
	}
	if doc.History != nil {
		t.Errorf("an A/B was recorded in the history: %+v", doc.History)
	}
	cleaned := t.TempDir() + "/cleaned"
	code, _, stderr = run(t, "ab", "thread/pipe", "--quick", "--cpus", "1", "--setup-a", "true", "--setup-b", "echo no such knob >&2; exit 7", "--cleanup", "touch "+cleaned)
	if code != ExitFailure {
		t.Fatalf("a failing set-up: exit %d (%q), want %d", code, stderr, ExitFailure)
	}
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := lines[len(lines)-1]
	if !strings.Contains(last, "set-up B") || !strings.Contains(last, "status 7") || !strings.Contains(last, "no such knob") {
		t.Errorf("stderr %q: want a last line naming set-up B, its status and what it said", stderr)
	}
	if _, err := os.Stat(cleaned); err != nil {
		t.Errorf("the clean-up did not run after the failure: %v", err)
	}
}
