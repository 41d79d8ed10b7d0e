package procs

import (
	"encoding/binary"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// CPUSwitches counts every context switch on one CPU: the perf software event
// context-switches opened system-wide on that CPU (what `perf stat -e context-switches
// -C N` counts), read directly so the count brackets a window exactly instead of a
// `sleep` around it. It counts switches away from the idle task and from unrelated tasks
// too. Needs CAP_PERFMON (or root) or perf_event_paranoid <= 0.
type CPUSwitches struct {
	fd  int
	CPU int
}

// OpenCPUSwitches starts counting on cpu.
func OpenCPUSwitches(cpu int) (*CPUSwitches, error) {
	attr := unix.PerfEventAttr{
		Type:   unix.PERF_TYPE_SOFTWARE,
		Config: unix.PERF_COUNT_SW_CONTEXT_SWITCHES,
	}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, -1, cpu, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("perf_event_open(context-switches, cpu %d): %w", cpu, err)
	}
	return &CPUSwitches{fd: fd, CPU: cpu}, nil
}

// Read returns the count so far.
func (c *CPUSwitches) Read() (uint64, error) {
	var b [8]byte
	n, err := unix.Read(c.fd, b[:])
	if err != nil {
		return 0, fmt.Errorf("read perf counter: %w", err)
	}
	if n != 8 {
		return 0, fmt.Errorf("read perf counter: %d bytes, want 8", n)
	}
	return binary.NativeEndian.Uint64(b[:]), nil
}

// Close stops counting.
func (c *CPUSwitches) Close() error { return unix.Close(c.fd) }

// PerfUsable reports whether a per-CPU context-switch counter can be opened here.
func PerfUsable() (bool, string) {
	c, err := OpenCPUSwitches(0)
	if err != nil {
		return false, err.Error()
	}
	c.Close()
	return true, ""
}
