package kernels

// PipeLoadConfig is the known workload of ctxbench attach (pipeload.c):
// two threads pinned to CPU pass a token through pipes at HopsPerSecond
// (two hops per round trip; 0: back to back, no work) and, between round
// trips, do units of WorkIters iterations of a dependent multiply-add.
type PipeLoadConfig struct {
	HopsPerSecond uint64
	WorkIters     uint64
	CPU           int
}

// PipeLoadState is what the workload has done so far (its region).
type PipeLoadState struct {
	Hops, Work, Late uint64
	// T0Ns is CLOCK_MONOTONIC when its schedule began, NowNs at its last
	// round trip.
	T0Ns, NowNs uint64
	TIDA, TIDB  int
	Running     bool
	Failed      bool
	Err         string
}
