package report

import (
	"encoding/json"
	"testing"

	"github.com/ctxbench/ctxbench/internal/testdoc"
	"github.com/ctxbench/ctxbench/internal/workload/pool"
)

// The report reads the pools section through mirror types; a JSON name
// changed in internal/workload/pool must fail here, not silently blank a
// chart. testdoc builds its pools section from pool's own types.
func TestPoolsMirror(t *testing.T) {
	d, err := testdoc.Doc(testdoc.Options{Seed: 1, Experiments: true})
	if err != nil {
		t.Fatal(err)
	}
	var real pool.Result
	if err := json.Unmarshal(d.Pools, &real); err != nil {
		t.Fatal(err)
	}
	got, err := decodePools(d.Pools)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Servers) != len(real.Servers) {
		t.Fatalf("decoded %d results", len(got))
	}
	rs, ms := real.Servers[0], got[0].Servers[0]
	if ms.Server != rs.Server || ms.Version != rs.Version || ms.ProcessCounters != rs.ProcessCounters || ms.Verdict != rs.Verdict {
		t.Errorf("server fields: %+v", ms)
	}
	rse, mse := rs.Series[0], ms.Series[0]
	if mse.Client != rse.Client || mse.Placement != rse.Placement || mse.Workers != rse.Workers || mse.LibraryDefaultPool != rse.LibraryDefaultPool {
		t.Errorf("series fields: %+v", mse)
	}
	if mse.Knee == nil || mse.Knee.N95 != rse.Knee.N95 || mse.Knee.PeakN != rse.Knee.PeakN {
		t.Errorf("knee: %+v", mse.Knee)
	}
	if len(mse.Points) != len(rse.Points) {
		t.Fatalf("%d points, want %d", len(mse.Points), len(rse.Points))
	}
	for i, rp := range rse.Points {
		mp := mse.Points[i]
		q := mp.PerQuery
		switch {
		case mp.Pool != rp.Pool, mp.QPS.Median != rp.QPS.Median, mp.QPS.CILow == nil,
			mp.LatencyNs.P50.Median != rp.LatencyNs.P50.Median, mp.LatencyNs.P99.Median != rp.LatencyNs.P99.Median,
			mp.ClientBound != rp.ClientBound, q.ClientVoluntary != rp.PerQuery.ClientVoluntary,
			q.ClientInvoluntary != rp.PerQuery.ClientInvoluntary,
			q.ServerVoluntary == nil || *q.ServerVoluntary != *rp.PerQuery.ServerVoluntary,
			q.ServerInvoluntary == nil || *q.ServerInvoluntary != *rp.PerQuery.ServerInvoluntary,
			q.ServerAux == nil || *q.ServerAux != *rp.PerQuery.ServerAux:
			t.Errorf("point %d does not survive the mirror: %+v", i, mp)
		}
	}
	// A list of results reads as well as one.
	list, _ := json.Marshal([]pool.Result{real, real})
	if got, err := decodePools(list); err != nil || len(got) != 2 {
		t.Errorf("a list of pool results: %d, %v", len(got), err)
	}
}
