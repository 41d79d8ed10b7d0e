// Package x86 reads the x86 instruction the Go standard library does not
// expose: CPUID (to name the hypervisor and detect hybrid cores).
// Hand-written in Go assembly because golang.org/x/sys/cpu does not expose
// raw CPUID leaves. On other architectures it reports that it is
// unavailable. It is a leaf of the host package and imports nothing, so
// the KVM code and the environment's reader both use it and neither
// reaches the other. The TSC, which the timed loops read, is
// internal/host/counter's.
package x86

import "strings"

// CPUID returns the registers of CPUID(leaf, sub); ok is false where the
// instruction does not exist.
func CPUID(leaf, sub uint32) (eax, ebx, ecx, edx uint32, ok bool) {
	return cpuid(leaf, sub)
}

// HypervisorVendor returns the vendor signature of CPUID leaf 0x40000000
// ("KVMKVMKVM", "Microsoft Hv", "VMwareVMware", ...) when the hypervisor bit
// (leaf 1, ECX bit 31) is set, else "".
func HypervisorVendor() string {
	_, _, ecx, _, ok := CPUID(1, 0)
	if !ok || ecx&(1<<31) == 0 {
		return ""
	}
	_, b, c, d, _ := CPUID(0x40000000, 0)
	sig := make([]byte, 0, 12)
	for _, r := range []uint32{b, c, d} {
		sig = append(sig, byte(r), byte(r>>8), byte(r>>16), byte(r>>24))
	}
	for len(sig) > 0 && sig[len(sig)-1] == 0 {
		sig = sig[:len(sig)-1]
	}
	return string(sig)
}

// HypervisorName turns a CPUID vendor signature into the product's name.
func HypervisorName(sig string) string {
	switch strings.TrimSpace(sig) {
	case "KVMKVMKVM":
		return "KVM"
	case "Microsoft Hv":
		return "Hyper-V"
	case "VMwareVMware":
		return "VMware"
	case "XenVMMXenVMM":
		return "Xen"
	case "TCGTCGTCGTCG":
		return "QEMU TCG (emulated)"
	case "VBoxVBoxVBox":
		return "VirtualBox"
	case "ACRNACRNACRN":
		return "ACRN"
	}
	return strings.TrimSpace(sig)
}
