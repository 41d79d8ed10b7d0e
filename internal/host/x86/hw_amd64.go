//go:build amd64

package x86

func cpuidRaw(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

func cpuid(leaf, sub uint32) (uint32, uint32, uint32, uint32, bool) {
	a, b, c, d := cpuidRaw(leaf, sub)
	return a, b, c, d, true
}
