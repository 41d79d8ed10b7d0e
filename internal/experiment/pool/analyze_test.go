package pool

import (
	"strings"
	"testing"

	"github.com/ctxbench/ctxbench/internal/result"
)

// Client-bound and disturbed points are left out of the knee and the fit
// while at least three clean ones remain; every point gets an uncertainty
// of the shape, and a flat curve is a plateau, not retrograde.
func TestAnalyseSeriesLeavesOutClientBoundPoints(t *testing.T) {
	point := func(pool int, qps float64, clientBound bool, foreign float64) result.PoolPoint {
		p := result.PoolPoint{Pool: pool, ClientBound: clientBound, ForeignUtil: foreign}
		for i := range 5 {
			p.Windows = append(p.Windows, result.PoolWindow{QPS: qps * (1 + 0.01*float64(i-2))})
		}
		p.QPS = windowEstimate([]float64{qps})
		return p
	}
	s := result.PoolSeries{Points: []result.PoolPoint{
		point(1, 1000, false, 0), point(2, 1900, false, 0), point(4, 3000, false, 0),
		point(8, 3100, false, 0.4), point(16, 3050, true, 0), point(32, 3080, false, 0)}}
	analyseSeries(&s)
	if len(s.Excluded) != 2 || s.Excluded[0] != 8 || s.Excluded[1] != 16 {
		t.Errorf("excluded %v, want [8 16]", s.Excluded)
	}
	if s.Uncertainty == nil || s.Uncertainty.Retrograde || s.Shape != "plateau" {
		t.Errorf("shape %q, uncertainty %+v", s.Shape, s.Uncertainty)
	}
	if !strings.Contains(s.Note, "left out") {
		t.Errorf("note %q", s.Note)
	}
}

// The published direction is judged from the time ratio's interval over
// windows at 95%: a point estimate above 1 with an interval that holds 1,
// or an interval below 95%, draws no verdict.
func TestDirectionIsAVerdictAt95(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		lo, hi *float64
		level  float64
		want   string
	}{
		{f(1.05), f(1.30), 0.95, "pool 90 is slower, the published direction holds"},
		{f(0.80), f(0.95), 0.95, "pool 90 is faster, the published direction does not hold"},
		{f(0.95), f(1.20), 0.95, "no difference resolved"},
		{f(1.05), f(1.30), 0.50, "not enough rounds to tell (interval at 50%)"},
		{nil, nil, 0, "no interval: no verdict"},
	} {
		pc := result.PoolComparison{PoolA: 10, PoolB: 90, TimeRatio: result.PoolRatio{Estimate: 1.1, Low: c.lo, High: c.hi, Confidence: c.level}}
		if got := direction(pc); !strings.HasPrefix(got, c.want) {
			t.Errorf("direction(%v, %v at %v) = %q, want it to open with %q", c.lo, c.hi, c.level, got, c.want)
		}
	}
}
