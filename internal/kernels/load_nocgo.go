//go:build !cgo || !linux

package kernels

import "os"

// LoadBuilt says whether this build has the load kernels.
const LoadBuilt = false

// LoadRegion needs the C kernels.
type LoadRegion struct{}

// NewLoadRegion fails: the C kernels need cgo, and Linux.
func NewLoadRegion(LoadConfig) (*LoadRegion, error) { return nil, errMissing("load") }

// File is nil without the C kernels.
func (*LoadRegion) File() *os.File { return nil }

// Run fails: the C kernels need cgo, and Linux.
func (*LoadRegion) Run() (LoadOutput, error) { return LoadOutput{}, errMissing("load") }

// Close does nothing.
func (*LoadRegion) Close() {}

// LoadWorkNS fails: the C kernels need cgo, and Linux.
func LoadWorkNS(uint64) (float64, error) { return 0, errMissing("load") }

// LoadHistIndex is the bucket a value goes to (none without cgo).
func LoadHistIndex(uint64) int { return -1 }
