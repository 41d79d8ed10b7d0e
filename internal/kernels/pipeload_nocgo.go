//go:build !cgo || !linux

package kernels

import "os"

// PipeLoadRegion needs the C kernels.
type PipeLoadRegion struct{}

// NewPipeLoadRegion fails: the C kernels need cgo on Linux.
func NewPipeLoadRegion(PipeLoadConfig) (*PipeLoadRegion, error) { return nil, ErrNoCgo }

// File is nil without the C kernels.
func (*PipeLoadRegion) File() *os.File { return nil }

// State is empty without the C kernels.
func (*PipeLoadRegion) State() PipeLoadState { return PipeLoadState{} }

// Stop does nothing.
func (*PipeLoadRegion) Stop() {}

// Close does nothing.
func (*PipeLoadRegion) Close() {}
