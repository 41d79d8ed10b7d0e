package partner

import (
	"strings"
	"testing"
)

// A single-threaded side's report reads into its counts and samples; a
// report that says an error, or does not add up, is an error.
func TestParseSide(t *testing.T) {
	out, err := parseSide("ok 10 2 -1 -1 -1 -1 2 500 2 1000 2600 1100 2860\n")
	if err != nil {
		t.Fatal(err)
	}
	if out.A.Voluntary != 10 || out.A.Involuntary != 2 || out.A.PerfSwitches != -1 || out.A.CPUsSeen != 2 || out.A.Ops != 500 ||
		len(out.NS) != 2 || out.NS[1] != 1100 || out.TSC[0] != 2600 || out.B != out.A {
		t.Errorf("parsed %+v", out)
	}
	for _, bad := range []string{"error partner closed the pipe\n", "ok 1 2 3\n", "ok 1 2 -1 -1 -1 -1 2 500 2 1000\n", "hello\n", "ok x 2 -1 -1 -1 -1 2 500 0\n"} {
		if _, err := parseSide(bad); err == nil {
			t.Errorf("%q accepted", bad)
		} else if strings.Contains(err.Error(), "\n") {
			t.Errorf("a multi-line error for %q", bad)
		}
	}
}
