//go:build !cgo || !linux

package kernels

// RingBuilt says whether this build has the ring kernels.
const RingBuilt = false

// RingThreads fails: the C kernels need cgo, and Linux.
func RingThreads(blk Block, cfg RingConfig) (RingOutput, error) {
	return RingOutput{}, errMissing("ring")
}

// RingHead fails: the C kernels need cgo, and Linux.
func RingHead(blk Block, cfg RingConfig) (RingOutput, error) { return RingOutput{}, errMissing("ring") }

// RingOverhead fails: the C kernels need cgo, and Linux.
func RingOverhead(blk Block, cfg RingConfig) (RingOutput, error) {
	return RingOutput{}, errMissing("ring")
}
