//go:build !cgo || !linux || !amd64

package kernels

import "errors"

// KVMBuilt reports whether the vm-rung kernels are compiled in.
const KVMBuilt = false

var errKVMNotBuilt = errors.New("the vm-rung (KVM) kernels need cgo on linux/amd64")

// KVMRun fails: the vm-rung kernels are not in this build.
func KVMRun(k KVMKernel, blk Block) (Output, KVMOut, error) {
	return Output{}, KVMOut{}, errKVMNotBuilt
}

// KVMMemory fails: the vm-rung kernels are not in this build.
func KVMMemory(n int, mode KVMGuestMode, cpu int) (KVMMem, error) {
	return KVMMem{}, errKVMNotBuilt
}
