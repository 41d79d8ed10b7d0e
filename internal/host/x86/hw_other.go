//go:build !amd64

package x86

func cpuid(leaf, sub uint32) (uint32, uint32, uint32, uint32, bool) { return 0, 0, 0, 0, false }
