//go:build cgo

package kernels

/*
#include <stdint.h>
uint64_t cb_host_probe(int steps, int reps);
*/
import "C"

// Host probe size: as on Linux (hostprobe_linux.go).
const (
	probeSteps = 20000
	probeReps  = 5
)

// HostProbe times the host probe (hostprobe.c) once, wherever macOS runs
// it: it cannot be put on each of cpus in turn. The reading is the first
// CPU's; the others read 0 ("not probed"), so a block's probe reading is
// this one chase.
func HostProbe(cpus []int) []float64 {
	out, _ := onThread(func() ([]float64, error) {
		ns := make([]float64, len(cpus))
		if len(ns) > 0 {
			ns[0] = float64(C.cb_host_probe(probeSteps, probeReps))
		}
		return ns, nil
	})
	return out
}
