package kernels

// threadinfo_linux.go: what the goroutine kernels read of the thread they
// run on: its CPU (getcpu(2)) and its own switches (RUSAGE_THREAD).

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// perThreadSwitches: Linux counts each thread's switches apart.
const perThreadSwitches = true

// goSwitchMethod is "": the verification's own wording holds.
const goSwitchMethod = ""

func getcpu() int {
	var cpu uint32
	if _, _, e := unix.RawSyscall(unix.SYS_GETCPU, uintptr(unsafe.Pointer(&cpu)), 0, 0); e != 0 {
		return -1
	}
	return int(cpu)
}

func processSwitches() (int64, int64) { return switches(unix.RUSAGE_SELF) }

func threadSwitches() (int64, int64) { return switches(unix.RUSAGE_THREAD) }

// switches reads getrusage for the process or (RUSAGE_THREAD) the calling
// thread, which only means something for a goroutine locked to it.
func switches(who int) (int64, int64) {
	var ru unix.Rusage
	_ = unix.Getrusage(who, &ru)
	return ru.Nvcsw, ru.Nivcsw
}
