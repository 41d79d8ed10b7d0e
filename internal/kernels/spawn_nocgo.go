//go:build !cgo || !linux

package kernels

// SpawnRun fails: the C kernels need cgo on Linux.
func SpawnRun(k SpawnKernel, blk Block, ctr *SpawnContainerSpec) (Output, error) {
	return Output{}, ErrNoCgo
}

// SpawnStop does nothing without the C kernels.
func SpawnStop(on bool) {}

// SpawnParkThreads fails: the C kernels need cgo on Linux.
func SpawnParkThreads(n int, stackBytes uint64) (int, error) { return 0, ErrNoCgo }

// SpawnReleaseThreads does nothing without the C kernels.
func SpawnReleaseThreads() int { return 0 }
