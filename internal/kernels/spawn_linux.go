//go:build cgo && linux

package kernels

/*
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include "spawn_kernels.h"
*/
import "C"

import (
	"errors"
	"unsafe"
)

// SpawnBuilt says whether this build has the creation kernels.
const SpawnBuilt = true

// SpawnRun runs creation kernel k (see spawn.c, spawn_ctr.c): Warmup +
// Samples samples of Iters creations each; Output.NS[i] is the elapsed time
// of sample i. blk.FD[0] is the exec target (a memfd); blk.Arg the parent's
// touched heap in bytes; blk.CPUA pins the creating thread. ctr describes
// the container for SpawnContainer and is ignored otherwise.
//
// Like Run, the kernel runs on an OS thread of its own (onThread); the C
// side restores the signal mask it blocks while creating.
func SpawnRun(k SpawnKernel, blk Block, ctr *SpawnContainerSpec) (Output, error) {
	return onThread(func() (Output, error) { return spawnRun(k, blk, ctr) })
}

func spawnRun(k SpawnKernel, blk Block, ctr *SpawnContainerSpec) (Output, error) {
	return callKernel(Kernel(k), blk, func(b *C.cb_block) (rc C.int, err error) {
		switch k {
		case SpawnThread:
			rc = C.cb_spawn_thread(b)
		case SpawnFork:
			rc = C.cb_spawn_fork(b)
		case SpawnForkExec:
			rc = C.cb_spawn_fork_exec(b)
		case SpawnVforkExec:
			rc = C.cb_spawn_vfork_exec(b)
		case SpawnPosixSpawn:
			rc = C.cb_spawn_posix_spawn(b)
		case SpawnContainer:
			if ctr == nil {
				return 0, errors.New("spawn kernel " + string(k) + ": no container description")
			}
			cs, free := ctr.toC()
			defer free()
			rc = C.cb_spawn_container(b, cs)
		default:
			err = errors.New("unknown spawn kernel " + string(k))
		}
		return rc, err
	})
}

// toC copies the description into C memory (cgo forbids handing C a Go
// pointer to memory that holds Go pointers); free releases it.
func (s *SpawnContainerSpec) toC() (*C.cb_spawn_ctr, func()) {
	var allocs []unsafe.Pointer
	alloc := func(size int) unsafe.Pointer {
		p := C.calloc(1, C.size_t(size))
		allocs = append(allocs, p)
		return p
	}
	cstr := func(s string) *C.char {
		p := C.CString(s)
		allocs = append(allocs, unsafe.Pointer(p))
		return p
	}
	c := (*C.cb_spawn_ctr)(alloc(int(unsafe.Sizeof(C.cb_spawn_ctr{}))))
	c.clone_flags = C.uint64_t(s.CloneFlags)
	if s.UserNS {
		c.user_ns = 1
	}
	c.uid, c.gid = C.int32_t(s.UID), C.int32_t(s.GID)
	if len(s.CgroupDirs) > 0 {
		dirs := (*[1 << 10]*C.char)(alloc(len(s.CgroupDirs) * int(unsafe.Sizeof((*C.char)(nil)))))
		for i, d := range s.CgroupDirs {
			dirs[i] = cstr(d)
		}
		c.ndirs = C.int32_t(len(s.CgroupDirs))
		c.dirs = (**C.char)(unsafe.Pointer(&dirs[0]))
	}
	if s.CgroupProcs != "" {
		c.procs = cstr(s.CgroupProcs)
	}
	if s.CgroupNSAfterAttach {
		c.cgroupns_after = 1
	}
	if len(s.Seccomp) > 0 {
		size := len(s.Seccomp) * int(unsafe.Sizeof(SockFilter{}))
		filt := alloc(size)
		C.memcpy(filt, unsafe.Pointer(&s.Seccomp[0]), C.size_t(size))
		prog := (*C.struct_sock_fprog)(alloc(int(unsafe.Sizeof(C.struct_sock_fprog{}))))
		prog.len = C.ushort(len(s.Seccomp))
		prog.filter = (*C.struct_sock_filter)(filt)
		c.seccomp = unsafe.Pointer(prog)
	}
	if s.DropCaps {
		c.drop_caps = 1
	}
	c.keep_caps = C.uint64_t(s.KeepCaps)
	c.last_cap = C.int32_t(s.LastCap)
	return c, func() {
		for _, p := range allocs {
			C.free(p)
		}
	}
}

// SpawnStop asks a running creation kernel to return after its current
// creation (on=true), or clears the request (on=false).
func SpawnStop(on bool) {
	if on {
		C.cb_spawn_stop = 1
	} else {
		C.cb_spawn_stop = 0
	}
}

// SpawnParkThreads creates n threads (stack 0: the default attributes)
// blocked until SpawnReleaseThreads; it returns how many it created and,
// if fewer than n, why.
func SpawnParkThreads(n int, stackBytes uint64) (int, error) {
	var errbuf [200]C.char
	got := int(C.cb_spawn_park_threads(C.int(n), C.uint64_t(stackBytes), &errbuf[0], C.int(len(errbuf))))
	if got < n {
		return got, errors.New(C.GoString(&errbuf[0]))
	}
	return got, nil
}

// SpawnReleaseThreads releases and joins the parked threads.
func SpawnReleaseThreads() int { return int(C.cb_spawn_release_threads()) }
