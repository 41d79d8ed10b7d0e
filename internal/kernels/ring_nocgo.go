//go:build !cgo || !linux

package kernels

// RingThreads fails: the C kernels need cgo on Linux.
func RingThreads(blk Block, cfg RingConfig) (RingOutput, error) { return RingOutput{}, ErrNoCgo }

// RingHead fails: the C kernels need cgo on Linux.
func RingHead(blk Block, cfg RingConfig) (RingOutput, error) { return RingOutput{}, ErrNoCgo }

// RingOverhead fails: the C kernels need cgo on Linux.
func RingOverhead(blk Block, cfg RingConfig) (RingOutput, error) { return RingOutput{}, ErrNoCgo }
