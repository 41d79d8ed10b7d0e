package ladder

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
	"github.com/ctxbench/ctxbench/internal/stats"
)

// A cross-cpu row says what its extra cost consists of only from what was
// counted (wake-up IPIs per hop) and what is configured (how idle
// CPUs wait), each said as which it is; without counts it says the run
// cannot tell.
func TestCrossCPUSaysOnlyWhatTheRunSaw(t *testing.T) {
	ipis := func(n int64) *int64 { return &n }
	row := func(placement string, median float64, blockIPIs *int64) result.Result {
		r := result.Result{Name: "thread/pipe", Placement: placement,
			OneWayNS:     result.Figure{Summary: stats.Summary{Median: median, N: 20}},
			Verification: result.Verification{Hops: 20 * 1000}}
		for b := 0; b < 5; b++ {
			r.BlockInfo = append(r.BlockInfo, result.BlockInfo{Round: b, Samples: 4, WakeupIPIs: blockIPIs})
		}
		return r
	}
	yes, no := true, false
	zero := uint64(0)
	for _, c := range []struct {
		name      string
		perBlock  *int64
		halts     *bool
		guest     bool
		want      []string
		forbidden []string
	}{
		// 20,000 hops (warm-up included) in 5 blocks: 4,000 hops a block.
		{"idle wake-ups in a halting guest", ipis(3960), &yes, true,
			[]string{"13.0 µs more per hop", "measured: 0.99 wake-up IPIs per hop", "configured: this guest's idle vCPUs halt at once", "guest_halt_poll_ns=0"}, nil},
		{"no IPIs", ipis(10), &yes, true,
			[]string{"measured: 0.00 wake-up IPIs per hop", "running or polling"}, []string{"configured", "halt"}},
		{"polling CPUs", ipis(2400), &no, false,
			[]string{"measured: 0.60", "configured: idle CPUs poll before halting (guest_halt_poll_ns=0)"}, nil},
		{"not counted", nil, &yes, true,
			[]string{"not counted on this machine", "cannot tell"}, []string{"measured:", "configured:"}},
	} {
		d := &result.Document{Results: []result.Result{row("same-cpu", 2000, ipis(0)), row("cross-cpu", 15000, c.perBlock)}}
		d.Settings.Warmup = 1
		d.Environment.Virtualization.Guest = c.guest
		d.Environment.Idle = result.IdleInfo{Driver: "haltpoll", HaltPollNS: &zero, Halts: c.halts}
		CrossCPU(d)
		if d.Results[0].CrossCPU != nil {
			t.Errorf("%s: a same-cpu row got a cross-CPU explanation", c.name)
		}
		x := d.Results[1].CrossCPU
		if x == nil {
			t.Fatalf("%s: no explanation", c.name)
		}
		for _, w := range c.want {
			if !strings.Contains(x.Consists, w) {
				t.Errorf("%s: %q lacks %q", c.name, x.Consists, w)
			}
		}
		for _, w := range c.forbidden {
			if strings.Contains(x.Consists, w) {
				t.Errorf("%s: %q says %q", c.name, x.Consists, w)
			}
		}
	}
	// A cross-cpu row without a same-cpu row of its benchmark gets nothing.
	d := &result.Document{Results: []result.Result{row("cross-cpu", 15000, ipis(5000))}}
	CrossCPU(d)
	if d.Results[0].CrossCPU != nil {
		t.Error("explained against a same-cpu row that did not run")
	}
}
