//go:build !cgo

package kernels

// Built reports whether the C kernels are compiled in.
const Built = false

// Run fails: the C kernels need cgo.
func Run(k Kernel, blk Block) (Output, error) { return Output{}, ErrNoCgo }

// CCVersion names the C compiler that built the kernels: none here.
func CCVersion() string { return "" }

// HostProbe needs the C kernels: no reading (0) on every CPU.
func HostProbe(cpus []int) []float64 { return make([]float64, len(cpus)) }
