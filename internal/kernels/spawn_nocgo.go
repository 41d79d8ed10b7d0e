//go:build !cgo || !linux

package kernels

// SpawnBuilt says whether this build has the creation kernels.
const SpawnBuilt = false

// SpawnRun fails: the C kernels need cgo, and Linux.
func SpawnRun(k SpawnKernel, blk Block, ctr *SpawnContainerSpec) (Output, error) {
	return Output{}, errMissing("creation")
}

// SpawnStop does nothing without the C kernels.
func SpawnStop(on bool) {}

// SpawnParkThreads fails: the C kernels need cgo, and Linux.
func SpawnParkThreads(n int, stackBytes uint64) (int, error) { return 0, errMissing("creation") }

// SpawnReleaseThreads does nothing without the C kernels.
func SpawnReleaseThreads() int { return 0 }
