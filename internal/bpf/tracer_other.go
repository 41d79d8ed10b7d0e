//go:build !(linux && amd64)

package bpf

// Options says what to attach (see the linux/amd64 build).
type Options struct {
	Exclude []Group
	Capture *CaptureOptions
}

// Tracer is unavailable on this platform: Open always fails.
type Tracer struct{}

// Open reports ErrUnsupported: the programs read x86-64 syscall registers
// and are built for linux/amd64 only.
func Open(Options) (*Tracer, error) {
	return nil, &MissingError{Reason: ErrUnsupported}
}

func (*Tracer) Method() string              { return "" }
func (*Tracer) Probes() []ProbeStatus       { return nil }
func (*Tracer) Track(...int) error          { return ErrUnsupported }
func (*Tracer) Untrack(...int) error        { return ErrUnsupported }
func (*Tracer) Reset() error                { return ErrUnsupported }
func (*Tracer) Snapshot() (Snapshot, error) { return Snapshot{}, ErrUnsupported }
func (*Tracer) Close() error                { return nil }
func (*Tracer) Captured() ([]CapturedHop, CaptureStats, error) {
	return nil, CaptureStats{}, ErrUnsupported
}
