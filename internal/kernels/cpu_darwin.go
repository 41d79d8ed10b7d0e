//go:build cgo

package kernels

/*
#include <pthread.h>
#include <stddef.h>
static int cb_cpu_number(void) { size_t c; return pthread_cpu_number_np(&c) == 0 ? (int)c : -1; }
*/
import "C"

// currentCPU is the CPU the calling thread is on (pthread_cpu_number_np,
// macOS 11.0+), -1 where it cannot be read.
func currentCPU() int { return int(C.cb_cpu_number()) }
