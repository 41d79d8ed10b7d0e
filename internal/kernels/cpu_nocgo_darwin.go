//go:build !cgo

package kernels

// currentCPU is -1 without cgo: pthread_cpu_number_np is a C function.
func currentCPU() int { return -1 }
