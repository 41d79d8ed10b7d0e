package procs

// perf_darwin.go: macOS has no perf events; a CPU's switches cannot be
// counted (platform.PerfEvents), and the pools' perf column stays empty.

import (
	"errors"

	"github.com/ctxbench/ctxbench/internal/host/platform"
)

// CPUSwitches would count every context switch on one CPU; macOS has no
// counter for it.
type CPUSwitches struct {
	CPU int
}

// OpenCPUSwitches fails on macOS.
func OpenCPUSwitches(int) (*CPUSwitches, error) {
	_, why := platform.Darwin.Gives(platform.PerfEvents)
	return nil, errors.New(why)
}

// Read is never reached: no CPUSwitches is opened on macOS.
func (c *CPUSwitches) Read() (uint64, error) { return 0, errors.New("no perf counter on macOS") }

// Close does nothing.
func (c *CPUSwitches) Close() error { return nil }

// PerfUsable is false on macOS, with the reason.
func PerfUsable() (bool, string) {
	_, err := OpenCPUSwitches(0)
	return false, err.Error()
}
