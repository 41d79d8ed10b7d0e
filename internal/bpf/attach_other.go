//go:build !(linux && (amd64 || arm64))

package bpf

import "github.com/ctxbench/ctxbench/internal/phase"

// InPlace is unavailable on this platform: OpenInPlace always fails.
type InPlace struct{}

// OpenInPlace reports ErrUnsupported: the programs are built for
// linux/amd64 and linux/arm64 only.
func OpenInPlace(InPlaceOptions) (*InPlace, error) { return nil, &MissingError{Reason: ErrUnsupported} }

func (*InPlace) Probes() []ProbeStatus        { return nil }
func (*InPlace) SetTargets(map[int]int) error { return ErrUnsupported }
func (*InPlace) Read(int) (phase.InPlaceReading, error) {
	return phase.InPlaceReading{}, ErrUnsupported
}
func (*InPlace) Close() error { return nil }
