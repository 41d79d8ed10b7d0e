// Package counter reads the reference counter every timed loop reads beside
// CLOCK_MONOTONIC_RAW, on the architectures ctxbench runs on:
//
//   - x86-64: the TSC, read with RDTSCP, which waits for the earlier
//     instructions to complete. Its rate is constant on a CPU with
//     constant_tsc but not architectural: it is measured over a run (the
//     document's hz_measured).
//   - arm64: the generic timer's virtual count, CNTVCT_EL0, read after an
//     ISB so that the read is not taken before the earlier instructions
//     (the counter may be read out of order otherwise; Linux reads it the
//     same way, arch/arm64/include/asm/arch_timer.h). Google Benchmark's
//     cycleclock reads the same counter where PMCCNTR_EL0 is not open to
//     user space. Its frequency is architectural, in CNTFRQ_EL0: 1 GHz
//     from Armv8.6, often 25 MHz before (a tick of 40 ns), 24 MHz on Apple
//     M1.
//
// The C kernels read the same counter (internal/kernels/clock.h); the Go
// timed loops (the goroutine kernels) read it here. Hand-written in Go
// assembly because no maintained library exposes either instruction.
package counter

import (
	"math"
	"time"
)

// MinSampleTicks is the fewest counter ticks a timed sample spans where the
// counter is coarse: a sample of that length reads within one tick, 0.1%,
// so figures shorter than a tick are batched until their samples reach it.
const MinSampleTicks = 1000

// Name is the counter this architecture's timed loops read ("TSC",
// "CNTVCT_EL0"), or "" where there is none (Read returns 0).
func Name() string { return name }

// Read reads the counter (0 where there is none).
func Read() uint64 { return read() }

// Hz is the counter's frequency where the architecture states it (arm64:
// CNTFRQ_EL0, as firmware set it), else 0 (the TSC's rate is not
// architectural: it is measured).
func Hz() uint64 { return hz() }

// MinSample is the shortest sample that spans MinSampleTicks of the
// counter, where its frequency is stated; 0 where it is not (the TSC ticks
// at GHz: any sample the calibration makes spans thousands of its ticks).
func MinSample() time.Duration {
	f := Hz()
	if f == 0 {
		return 0
	}
	return time.Duration(math.Ceil(MinSampleTicks * 1e9 / float64(f)))
}
