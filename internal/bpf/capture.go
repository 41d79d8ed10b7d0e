package bpf

// capture.go: the flight recorder's settings (c/capture.h). The kernel
// copies out, for a hop past the threshold (or one of its samples), the
// hop's own times and the recent entries of the CPUs it crossed;
// capture_linux.go reads them back as phase.CapturedHop, which
// internal/phase reads through the hop's phase model (phase.SplitHop).

import "github.com/ctxbench/ctxbench/internal/phase"

// CaptureOptions turn the flight recorder on.
type CaptureOptions struct {
	// AboveNs is the absolute threshold; 0 makes it relative: the running
	// Quantile (0.5 to 0.9999) of each CPU's hops.
	AboveNs  uint64
	Quantile float64
	// Warmup is the hops each CPU sees before a relative threshold counts
	// (default 150).
	Warmup uint32
	// SampleEvery copies one hop in this many as a sample of all hops
	// (0: none).
	SampleEvery uint32
	// Wake and Sleep, when set, are the only syscalls a hop begins in (the
	// waker's, its entry) and ends at (the wakee's, its exit): the
	// benchmark's (phase.HopCalls), not the Go runtime's futexes.
	Wake, Sleep phase.Kind
	// BufferBytes is the buffer's size (default 32 MiB; a perf event
	// array's is split between the CPUs).
	BufferBytes int
	// forcePerf uses a perf event array even where a ring buffer exists
	// (tests of the fallback).
	forcePerf bool //nolint:unused // read by the Linux capture (capture_linux.go) and its tests only
}

// Capture methods (phase.CaptureStats.Method).
const (
	CaptureRingBuffer = "ring buffer"
	CapturePerfArray  = "perf event array"
)
