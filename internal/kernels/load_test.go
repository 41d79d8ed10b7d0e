//go:build cgo && linux

package kernels

import (
	"runtime"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// load.c records in HdrHistogram's layout: every value lands in the count
// hdrhistogram-go's New(1, 1e11, 2) would put it in, so the Go side imports
// the counts unchanged (and never re-buckets them).
func TestLoadHistLayoutIsHdrHistogram(t *testing.T) {
	if n := len(hdrhistogram.New(LoadHistLowest, LoadHistHighest, LoadHistFigures).Export().Counts); n != LoadHistCounts {
		t.Fatalf("hdrhistogram-go has %d counts for this range, load.h %d", n, LoadHistCounts)
	}
	for _, v := range []uint64{1, 2, 127, 128, 255, 256, 257, 511, 512, 1000, 1023, 1024, 4095, 65537, 1 << 20, 123456789, 1e9, 5e10, LoadHistHighest} {
		h := hdrhistogram.New(LoadHistLowest, LoadHistHighest, LoadHistFigures)
		if err := h.RecordValue(int64(v)); err != nil {
			t.Fatal(err)
		}
		want := -1
		for i, c := range h.Export().Counts {
			if c != 0 {
				want = i
			}
		}
		if got := LoadHistIndex(v); got != want {
			t.Errorf("value %d: load.c bucket %d, hdrhistogram-go %d", v, got, want)
		}
	}
}

// A short block of thread contexts: every request is posted, served and
// counted once, the histograms hold what the counts say, and a context
// that was woken for a request slept first (a voluntary switch per hop).
func TestLoadThreads(t *testing.T) {
	last := runtime.NumCPU() - 1
	cfg := LoadConfig{Contexts: 3, Rate: 2000, Duration: 300 * time.Millisecond, Warmup: 50 * time.Millisecond,
		WorkIters: 2000, CPUGen: last, CPUCtx: last, GenOnCtxCPU: true}
	for _, poisson := range []bool{false, true} {
		cfg.Poisson, cfg.Seed = poisson, 7
		r, err := NewLoadRegion(cfg)
		if err != nil {
			t.Fatal(err)
		}
		out, err := r.Run()
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !poisson && out.Scheduled != 600 {
			t.Errorf("constant arrivals: %d scheduled, want 600", out.Scheduled)
		}
		if out.Scheduled < 400 || out.Posted+out.Dropped != out.Scheduled || out.Unserved != 0 {
			t.Fatalf("scheduled %d posted %d dropped %d unserved %d", out.Scheduled, out.Posted, out.Dropped, out.Unserved)
		}
		var done, measured, hops, queued uint64
		var vol int64
		for i, c := range out.Contexts {
			if c.Failed != "" {
				t.Errorf("context %d: %s", i, c.Failed)
			}
			if c.CPUsSeen != 1<<uint(last) {
				t.Errorf("context %d ran on CPU mask %b, pinned to %d", i, c.CPUsSeen, last)
			}
			done += c.Done
			measured += c.Measured
			hops += c.Hops
			queued += c.Queued
			vol += c.Voluntary
		}
		if done != out.Posted || hops+queued != measured || measured != out.MeasuredScheduled-out.Dropped {
			t.Errorf("done %d of %d posted; measured %d (of %d scheduled) = hops %d + queued %d", done, out.Posted, measured, out.MeasuredScheduled, hops, queued)
		}
		if h := out.Hists; h[HistCorrected].N != measured || h[HistUncorrected].N != measured || h[HistService].N != measured ||
			h[HistWake].N != hops || h[HistQueue].N != queued || h[HistLag].N != out.MeasuredScheduled-out.Dropped {
			t.Errorf("histogram counts %d/%d/%d/%d/%d/%d do not match measured %d hops %d queued %d", h[HistCorrected].N, h[HistUncorrected].N,
				h[HistService].N, h[HistWake].N, h[HistQueue].N, h[HistLag].N, measured, hops, queued)
		}
		if hops == 0 || vol < int64(hops) {
			t.Errorf("%d hops but %d voluntary switches: every hop is a sleep", hops, vol)
		}
		if c, u := out.Hists[HistCorrected], out.Hists[HistUncorrected]; c.Max < u.Max {
			t.Errorf("corrected max %d below uncorrected %d: the intended time is never after the post", c.Max, u.Max)
		}
		if out.NSPerIter <= 0 || out.TEnd <= out.TMeasure || out.TMeasure <= out.T0 {
			t.Errorf("ns per iteration %v, times %d %d %d", out.NSPerIter, out.T0, out.TMeasure, out.TEnd)
		}
	}
}
