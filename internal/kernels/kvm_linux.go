//go:build cgo && amd64

package kernels

/*
#include <stdlib.h>
#include "kvm_vmm.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
)

// KVMBuilt reports whether the vm-rung kernels are compiled in.
const KVMBuilt = true

// KVMRun runs vm-rung kernel k: Warmup + Samples samples of Iters ops (see
// KVMKernel). Block use: Arg = KVMArg(mode, param); CPUA pins the timing
// side, CPUB the partner side; FD[0], FD[1] are the two directions between
// the VM-to-VM sides (pipes for KVMSwitchUA/UB, as for ProcPipeA/B; eventfds
// for KVMSwitchKA/KB, see kvm_switch.c); the other kernels open /dev/kvm
// themselves and ignore FD. Output.A (or Output.B on a partner side) holds
// the side's switch counts and ops.
//
// Like Run, the kernel runs on an OS thread of its own, whose affinity is
// restored before it is unlocked (a thread that died locked would send its
// Pdeathsig to a partner started from it); the vCPU's descriptors are closed
// by then.
func KVMRun(k KVMKernel, blk Block) (Output, KVMOut, error) {
	type ret struct {
		out Output
		ko  KVMOut
	}
	r, err := onThread(func() (ret, error) {
		out, ko, err := kvmRun(k, blk)
		return ret{out, ko}, err
	})
	return r.out, r.ko, err
}

func kvmRun(k KVMKernel, blk Block) (Output, KVMOut, error) {
	var ko KVMOut
	out, err := callKernel(Kernel(k), blk, func(b *C.cb_block) (C.int, error) {
		var o C.cb_kvm_out
		for i := range o.stat {
			o.stat[i] = -1
		}
		o.halt_poll_ns = -1
		var rc C.int
		switch k {
		case KVMExitUser:
			rc = C.cb_kvm_exit_user(b, &o)
		case KVMExitKernel:
			rc = C.cb_kvm_exit_kernel(b, &o)
		case KVMSelfCheck:
			rc = C.cb_kvm_selfcheck(b, &o)
		case KVMSwitchUA:
			rc = C.cb_kvm_vmswitch_u_a(b, &o)
		case KVMSwitchUB:
			rc = C.cb_kvm_vmswitch_u_b(b, &o)
		case KVMSwitchKA:
			rc = C.cb_kvm_vmswitch_k_a(b, &o)
		case KVMSwitchKB:
			rc = C.cb_kvm_vmswitch_k_b(b, &o)
		case KVMCreate:
			rc = C.cb_kvm_create(b, &o)
		default:
			return 0, fmt.Errorf("unknown vm-rung kernel %q", k)
		}
		// The statistics are kept when the kernel failed too.
		ko = KVMOut{Stats: map[string]int64{}, GuestOps: uint64(o.guest_ops), HaltPollNS: int64(o.halt_poll_ns)}
		for i := 0; i < int(C.CB_KVM_NSTATS); i++ {
			if v := int64(o.stat[i]); v >= 0 {
				ko.Stats[C.GoString(C.cb_kvm_stat_name(C.int(i)))] = v
			}
		}
		return rc, nil
	})
	return out, ko, err
}

// KVMMemory creates n minimal VMs in guest mode, each run to its first exit,
// holds them all, reads /proc before and after, and releases them (see
// kvm_create.c). cpu pins the creating thread (-1: leave it). Fewer than n
// VMs is not an error: Created and Limit say how far it got and why.
func KVMMemory(n int, mode KVMGuestMode, cpu int) (KVMMem, error) {
	if n < 1 || n > 100000 {
		return KVMMem{}, fmt.Errorf("VM count %d out of range 1..100000", n)
	}
	return onThread(func() (KVMMem, error) {
		var b C.cb_block
		var m C.cb_kvm_mem
		b.arg = C.int64_t(KVMArg(mode, int32(n)))
		b.cpu_a = C.int32_t(cpu)
		b.cpu_b = -1
		if C.cb_kvm_memory(&b, &m) != 0 {
			return KVMMem{}, errors.New(C.GoString(&b.err[0]))
		}
		r := KVMMem{
			Requested: int(m.requested), Created: int(m.created), FDsPerVM: int(m.fds_per_vm),
			Before: map[string]int64{}, After: map[string]int64{},
			Limit: C.GoString(&m.limit[0]),
		}
		for i := 0; i < int(C.CB_KVM_MEM_NFIELDS); i++ {
			key := strings.TrimSuffix(C.GoString(C.cb_kvm_mem_key(C.int(i))), ":")
			r.Before[key] = int64(m.before[i])
			r.After[key] = int64(m.after[i])
		}
		return r, nil
	})
}
