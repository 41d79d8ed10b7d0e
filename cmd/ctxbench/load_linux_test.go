package main

import (
	"math"
	"os/exec"
	"testing"

	"github.com/ctxbench/ctxbench/internal/bpf"
	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/testenv"
)

// load --capture-above: each level's slow wake-ups are captured in traced
// blocks beside its own, with their parts, typical wake-ups and the
// capture's cost; the level's own figures are still there.
func TestLoadCapturesSlowWakeups(t *testing.T) {
	if err := bpf.Check(); err != nil {
		testenv.Skip(t, testenv.BTF, "cannot trace here: %v", err)
	}
	out, err := exec.Command(bin, "load", "--quick", "--utilization", "50", "--capture-above", "p99", "--no-reference", "--export-json", "-", "-q").Output()
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	d, err := result.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Loads) != 1 || len(d.Loads[0].Levels) != 1 {
		t.Fatalf("loads %+v, failures %v", d.Loads, d.Failures)
	}
	l := d.Loads[0].Levels[0]
	c := l.Capture
	if c == nil || l.Requests.Measured == 0 {
		t.Fatalf("level %s: measured %d, capture %v (failures %v)", l.LevelName(), l.Requests.Measured, c, d.Failures)
	}
	if c.Counts.Hops == 0 || len(c.Slowest) == 0 || len(c.Typical) == 0 || c.Cost == nil {
		t.Errorf("capture: counts %+v, %d slowest, %d typical, cost %v", c.Counts, len(c.Slowest), len(c.Typical), c.Cost)
	}
	for _, h := range c.Slowest {
		sum := 0.0
		for _, p := range h.Phases {
			sum += p.Ns
		}
		if math.Abs(sum-h.Ns) > 1 {
			t.Errorf("a wake-up of %.0f ns: its parts sum to %.0f", h.Ns, sum)
		}
	}
	noProgramsLeft(t)
	assertNothingLeft(t)
}
