package stats

import (
	"encoding/json"
	"math"
	"testing"
)

func TestSummarizeKnownValues(t *testing.T) {
	v := []float64{5, 1, 4, 2, 3, 10, 6, 8, 7, 9}
	s := Summarize(v)
	if s.N != 10 || s.Median != 5.5 || s.Min != 1 || s.Max != 10 || s.Mean != 5.5 {
		t.Fatalf("unexpected summary %+v", s)
	}
	if !(s.CILow <= s.Median && s.Median <= s.CIHigh) {
		t.Fatalf("median %v outside its CI [%v, %v]", s.Median, s.CILow, s.CIHigh)
	}
	if s.Confidence < Confidence {
		t.Fatalf("confidence %v below the requested %v", s.Confidence, Confidence)
	}
	if !(s.P10 < s.Median && s.Median < s.P90) {
		t.Fatalf("percentiles out of order: %v %v %v", s.P10, s.Median, s.P90)
	}
	if v[0] != 5 {
		t.Fatal("Summarize sorted its input in place")
	}
}

func TestSummarizeFewSamplesStaysFinite(t *testing.T) {
	s := Summarize([]float64{3, 1})
	if math.IsInf(s.CILow, 0) || math.IsInf(s.CIHigh, 0) {
		t.Fatalf("infinite CI %+v", s)
	}
	if len(s.Warnings) == 0 || s.Confidence != 0 {
		t.Fatalf("two samples gave no warning or a confidence: %+v", s)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Fatal(err)
	}
	if e := Summarize(nil); e.N != 0 || len(e.Warnings) == 0 {
		t.Fatalf("empty input: %+v", e)
	}
}

func TestGeomeanAndQuantile(t *testing.T) {
	if g := Geomean([]float64{1, 4, 0, -2}); math.Abs(g-2) > 1e-12 {
		t.Fatalf("geomean %v, want 2", g)
	}
	if !math.IsNaN(Geomean(nil)) {
		t.Fatal("geomean of nothing should be NaN")
	}
	if q := Quantile([]float64{3, 1, 2}, 0.5); q != 2 {
		t.Fatalf("median quantile %v", q)
	}
}
