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
