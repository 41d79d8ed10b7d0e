package counter

import (
	"time"

	"golang.org/x/sys/unix"
)

// Trap says whether a read of the counter traps to the kernel. Where an
// erratum makes Linux withhold the counter from user space (it logs
// "Trapping CNTVCT access"), every read is an exception the kernel
// emulates, as costly as a system call, and the vDSO's clock_gettime
// becomes one too. It times reads against getppid calls, the best of three
// runs of trapRuns each: a read that costs half a system call or more is
// trapped (a direct read costs a few tens of cycles, an exception hundreds).
// ok is false where there is no counter.
func Trap() (trapped bool, readNS, syscallNS float64, ok bool) {
	if Name() == "" {
		return false, 0, 0, false
	}
	readNS = bestOf(func() {
		for i := 0; i < trapRuns; i++ {
			_ = Read()
		}
	})
	syscallNS = bestOf(func() {
		for i := 0; i < trapRuns; i++ {
			_ = unix.Getppid()
		}
	})
	return readNS >= syscallNS/2, readNS, syscallNS, true
}

const trapRuns = 4096

// bestOf is the fastest of three timings of f, per one of its trapRuns.
func bestOf(f func()) float64 {
	best := time.Duration(1 << 62)
	for k := 0; k < 3; k++ {
		t0 := time.Now()
		f()
		best = min(best, time.Since(t0))
	}
	return float64(best.Nanoseconds()) / trapRuns
}
