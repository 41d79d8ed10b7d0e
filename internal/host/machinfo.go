package host

// machinfo.go: the figures macOS reports about a process, as its kernel
// lays them out, and the timebase that turns its ticks into nanoseconds.
// Only the darwin build reads them from the kernel (procinfo_darwin.go);
// the layouts and the conversion are plain logic, built on every platform
// so that their tests run on Linux too.
//
// The layouts are those of <sys/proc_info.h> (struct proc_taskinfo) and
// <sys/resource.h> (struct rusage_info_v4) in the macOS SDK, little-endian
// on both Apple silicon and Intel Macs.

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// Timebase is the fraction that turns ticks of macOS's time base into
// nanoseconds: ns = ticks × Numer / Denom (mach_timebase_info's). Apple
// silicon's counter runs at 24 MHz (125/3 ns per tick); Intel Macs count
// nanoseconds (1/1).
type Timebase struct {
	Numer, Denom uint32
}

// TimebaseOf is the timebase of a counter of hz ticks per second (sysctl
// hw.tbfrequency), reduced: 24 MHz is 125/3, 1 GHz is 1/1. The counter's
// own rate, not mach_timebase_info: a task's times from proc_pidinfo are
// in the hardware's ticks even for an x86-64 program translated by
// Rosetta 2, to which mach_timebase_info answers 1/1.
func TimebaseOf(hz uint64) (Timebase, error) {
	if hz == 0 {
		return Timebase{}, fmt.Errorf("timebase frequency 0 Hz: not a counter's rate")
	}
	n, d := uint64(1e9), hz
	g := gcd(n, d)
	n, d = n/g, d/g
	if n > uint64(^uint32(0)) || d > uint64(^uint32(0)) {
		return Timebase{}, fmt.Errorf("timebase frequency %d Hz: 1e9/%d does not reduce to a 32-bit fraction", hz, hz)
	}
	return Timebase{Numer: uint32(n), Denom: uint32(d)}, nil
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// NS converts ticks to nanoseconds, exactly (the product is taken in 128
// bits: 2^64 ticks of 125/3 would overflow 64) and rounded down.
func (t Timebase) NS(ticks uint64) uint64 {
	if t.Denom == 0 {
		return 0
	}
	hi, lo := bits.Mul64(ticks, uint64(t.Numer))
	if hi >= uint64(t.Denom) {
		return ^uint64(0) // past 2^64 ns (584 years): saturate
	}
	q, _ := bits.Div64(hi, lo, uint64(t.Denom))
	return q
}

// TickNS is one tick in nanoseconds (41.67 on Apple silicon).
func (t Timebase) TickNS() float64 {
	if t.Denom == 0 {
		return 0
	}
	return float64(t.Numer) / float64(t.Denom)
}

// TaskInfo is struct proc_taskinfo: what proc_pidinfo(PROC_PIDTASKINFO)
// says about a process. Times are in the timebase's ticks.
type TaskInfo struct {
	VirtualSize, ResidentSize  uint64 // bytes
	TotalUser, TotalSystem     uint64 // ticks, threads that exited included
	ThreadsUser, ThreadsSystem uint64 // ticks, live threads only
	Policy, Faults, Pageins    int32
	CowFaults                  int32
	MessagesSent, MessagesRcvd int32
	SyscallsMach, SyscallsUnix int32
	Switches                   int32 // pti_csw: context switches of every thread
	Threads                    int32 // pti_threadnum
	Running                    int32 // pti_numrunning
	Priority                   int32
}

// SizeofTaskInfo is sizeof(struct proc_taskinfo).
const SizeofTaskInfo = 6*8 + 12*4

// ParseTaskInfo reads a struct proc_taskinfo.
func ParseTaskInfo(b []byte) (TaskInfo, error) {
	if len(b) != SizeofTaskInfo {
		return TaskInfo{}, fmt.Errorf("proc_taskinfo: %d bytes, want %d", len(b), SizeofTaskInfo)
	}
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[8*i:]) }
	s := func(i int) int32 { return int32(binary.LittleEndian.Uint32(b[48+4*i:])) }
	return TaskInfo{
		VirtualSize: u(0), ResidentSize: u(1), TotalUser: u(2), TotalSystem: u(3), ThreadsUser: u(4), ThreadsSystem: u(5),
		Policy: s(0), Faults: s(1), Pageins: s(2), CowFaults: s(3), MessagesSent: s(4), MessagesRcvd: s(5),
		SyscallsMach: s(6), SyscallsUnix: s(7), Switches: s(8), Threads: s(9), Running: s(10), Priority: s(11),
	}, nil
}

// RusageInfo is the part of struct rusage_info_v4 ctxbench reads:
// proc_pid_rusage(RUSAGE_INFO_V4). Times are in the timebase's ticks.
type RusageInfo struct {
	UserTime, SystemTime uint64 // ticks
	ResidentSize         uint64 // bytes
	// PhysFootprint is the memory charged to the process (what Activity
	// Monitor shows as Memory): its private dirty and compressed pages,
	// shared ones it wrote counted whole — macOS's nearest figure to a
	// proportional set size, which it does not have.
	PhysFootprint        uint64 // bytes
	LifetimeMaxFootprint uint64 // bytes
	Instructions, Cycles uint64 // retired instructions and cycles of every thread (Apple silicon and recent Intel Macs; 0 elsewhere)
	RunnableTime         uint64 // ticks spent runnable but not running
}

// SizeofRusageInfoV4 is sizeof(struct rusage_info_v4): a 16-byte UUID and
// 35 64-bit fields.
const SizeofRusageInfoV4 = 16 + 35*8

// ParseRusageInfoV4 reads a struct rusage_info_v4.
func ParseRusageInfoV4(b []byte) (RusageInfo, error) {
	if len(b) != SizeofRusageInfoV4 {
		return RusageInfo{}, fmt.Errorf("rusage_info_v4: %d bytes, want %d", len(b), SizeofRusageInfoV4)
	}
	// field i is the i-th uint64 after ri_uuid, in the header's order.
	u := func(i int) uint64 { return binary.LittleEndian.Uint64(b[16+8*i:]) }
	const (
		userTime, systemTime, residentSize, physFootprint = 0, 1, 6, 7
		lifetimeMaxFootprint, instructions, cycles        = 28, 29, 30
		runnableTime                                      = 34
	)
	return RusageInfo{
		UserTime: u(userTime), SystemTime: u(systemTime), ResidentSize: u(residentSize),
		PhysFootprint: u(physFootprint), LifetimeMaxFootprint: u(lifetimeMaxFootprint),
		Instructions: u(instructions), Cycles: u(cycles), RunnableTime: u(runnableTime),
	}, nil
}
