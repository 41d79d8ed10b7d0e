//go:build !(linux && (amd64 || arm64))

package bpf

import "github.com/ctxbench/ctxbench/internal/phase"

// Options says what to attach (see the linux/amd64 and linux/arm64 build).
type Options struct {
	Exclude []Group
	Capture *CaptureOptions
}

// Tracer is unavailable on this platform: Open always fails.
type Tracer struct{}

// Open reports ErrUnsupported: the programs read each architecture's
// syscall registers and are built for linux/amd64 and linux/arm64 only.
func Open(Options) (*Tracer, error) {
	return nil, &MissingError{Reason: ErrUnsupported}
}

func (*Tracer) Method() string                    { return "" }
func (*Tracer) Probes() []ProbeStatus             { return nil }
func (*Tracer) Track(...int) error                { return ErrUnsupported }
func (*Tracer) Untrack(...int) error              { return ErrUnsupported }
func (*Tracer) Reset() error                      { return ErrUnsupported }
func (*Tracer) Snapshot() (phase.Snapshot, error) { return phase.Snapshot{}, ErrUnsupported }
func (*Tracer) Close() error                      { return nil }
func (*Tracer) Captured() ([]phase.CapturedHop, phase.CaptureStats, error) {
	return nil, phase.CaptureStats{}, ErrUnsupported
}
