package host

import (
	"encoding/binary"
	"math"
	"testing"
)

// The timebase of Apple silicon's 24 MHz counter is 125/3 ns a tick, an
// Intel Mac's 1 GHz one 1/1; a conversion is exact over the whole range.
func TestTimebase(t *testing.T) {
	for _, c := range []struct {
		hz          uint64
		numer, deno uint32
	}{{24_000_000, 125, 3}, {1_000_000_000, 1, 1}, {25_000_000, 40, 1}, {3, 1_000_000_000, 3}} {
		tb, err := TimebaseOf(c.hz)
		if err != nil || tb.Numer != c.numer || tb.Denom != c.deno {
			t.Errorf("TimebaseOf(%d) = %+v, %v; want %d/%d", c.hz, tb, err, c.numer, c.deno)
		}
	}
	if _, err := TimebaseOf(0); err == nil {
		t.Error("TimebaseOf(0) gave a timebase")
	}
	m1 := Timebase{125, 3}
	for ticks, want := range map[uint64]uint64{0: 0, 1: 41, 3: 125, 24_000_000: 1_000_000_000, 1 << 57: (1 << 57) * 125 / 3} {
		if got := m1.NS(ticks); got != want {
			t.Errorf("125/3: NS(%d) = %d, want %d", ticks, got, want)
		}
	}
	// 2^64-1 ticks × 125 does not fit 64 bits: the 128-bit product saturates
	// only past 2^64 ns.
	if got := m1.NS(math.MaxUint64); got != math.MaxUint64 {
		t.Errorf("NS(max) = %d, want saturation", got)
	}
	if got := (Timebase{1, 1}).NS(math.MaxUint64); got != math.MaxUint64 {
		t.Errorf("1/1: NS(max) = %d", got)
	}
	if got := m1.TickNS(); math.Abs(got-41.6667) > 1e-3 {
		t.Errorf("TickNS = %v", got)
	}
	if (Timebase{}).NS(5) != 0 || (Timebase{}).TickNS() != 0 {
		t.Error("a zero timebase converts to something")
	}
}

// A proc_taskinfo laid out as the SDK's header lays it out reads back
// field by field; a buffer of another size is refused.
func TestParseTaskInfo(t *testing.T) {
	b := make([]byte, SizeofTaskInfo)
	for i := range 6 {
		binary.LittleEndian.PutUint64(b[8*i:], uint64(1000+i))
	}
	for i := range 12 {
		binary.LittleEndian.PutUint32(b[48+4*i:], uint32(10+i))
	}
	ti, err := ParseTaskInfo(b)
	if err != nil {
		t.Fatal(err)
	}
	want := TaskInfo{VirtualSize: 1000, ResidentSize: 1001, TotalUser: 1002, TotalSystem: 1003, ThreadsUser: 1004, ThreadsSystem: 1005,
		Policy: 10, Faults: 11, Pageins: 12, CowFaults: 13, MessagesSent: 14, MessagesRcvd: 15, SyscallsMach: 16, SyscallsUnix: 17,
		Switches: 18, Threads: 19, Running: 20, Priority: 21}
	if ti != want {
		t.Errorf("ParseTaskInfo = %+v\nwant %+v", ti, want)
	}
	if SizeofTaskInfo != 96 {
		t.Errorf("sizeof(struct proc_taskinfo) = %d, want 96", SizeofTaskInfo)
	}
	if _, err := ParseTaskInfo(b[:95]); err == nil {
		t.Error("a short proc_taskinfo was read")
	}
}

// rusage_info_v4: a 16-byte UUID, then 35 64-bit fields; the ones read are
// at their places in the header (phys_footprint the 8th, instructions the
// 30th, cycles the 31st, runnable time the last).
func TestParseRusageInfoV4(t *testing.T) {
	b := make([]byte, SizeofRusageInfoV4)
	for i := range 16 {
		b[i] = 0xff // the UUID is not read
	}
	for i := range 35 {
		binary.LittleEndian.PutUint64(b[16+8*i:], uint64(100*(i+1)))
	}
	ri, err := ParseRusageInfoV4(b)
	if err != nil {
		t.Fatal(err)
	}
	want := RusageInfo{UserTime: 100, SystemTime: 200, ResidentSize: 700, PhysFootprint: 800, LifetimeMaxFootprint: 2900,
		Instructions: 3000, Cycles: 3100, RunnableTime: 3500}
	if ri != want {
		t.Errorf("ParseRusageInfoV4 = %+v\nwant %+v", ri, want)
	}
	if SizeofRusageInfoV4 != 296 {
		t.Errorf("sizeof(struct rusage_info_v4) = %d, want 296", SizeofRusageInfoV4)
	}
	if _, err := ParseRusageInfoV4(b[:200]); err == nil {
		t.Error("a short rusage_info_v4 was read")
	}
}
