//go:build !cgo || !linux

package kernels

import "os"

// LoadRegion needs the C kernels.
type LoadRegion struct{}

// NewLoadRegion fails: the C kernels need cgo on Linux.
func NewLoadRegion(LoadConfig) (*LoadRegion, error) { return nil, ErrNoCgo }

// File is nil without the C kernels.
func (*LoadRegion) File() *os.File { return nil }

// Run fails: the C kernels need cgo on Linux.
func (*LoadRegion) Run() (LoadOutput, error) { return LoadOutput{}, ErrNoCgo }

// Close does nothing.
func (*LoadRegion) Close() {}

// LoadWorkNS fails: the C kernels need cgo on Linux.
func LoadWorkNS(uint64) (float64, error) { return 0, ErrNoCgo }

// LoadHistIndex is the bucket a value goes to (none without cgo).
func LoadHistIndex(uint64) int { return -1 }
