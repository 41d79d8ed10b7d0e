//go:build cgo && linux

package kernels

/*
#include <stdint.h>
uint64_t cb_host_probe(int steps, int reps);
*/
import "C"

import (
	"golang.org/x/sys/unix"
)

// Host probe size: 5 chases of 20,000 steps, about 60 µs each on the
// reference machine; the median of the five is the reading.
const (
	probeSteps = 20000
	probeReps  = 5
)

// HostProbe times the host probe (hostprobe.c) on each of cpus, one after
// another, and returns the nanoseconds of one chase on each (0 where the
// CPU could not be used). It runs on an OS thread of its own whose affinity
// is restored afterwards (onThread), never inside a timed loop.
func HostProbe(cpus []int) []float64 {
	out, _ := onThread(func() ([]float64, error) {
		ns := make([]float64, len(cpus))
		for i, c := range cpus {
			var set unix.CPUSet
			set.Set(c)
			if unix.SchedSetaffinity(0, &set) != nil {
				continue
			}
			ns[i] = float64(C.cb_host_probe(probeSteps, probeReps))
		}
		return ns, nil
	})
	return out
}
