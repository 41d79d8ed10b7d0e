package machine

import (
	"strconv"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/result"
)

// perfInfo tries the events ctxbench uses: the software context-switches
// event on this thread, and the hardware instructions event. Many virtual
// machines have no PMU, so the hardware open fails there; that is reported,
// not treated as an error.
func perfInfo(r host.Root, o Options) result.PerfInfo {
	p := result.PerfInfo{Paranoid: 99}
	if s := r.Read("proc/sys/kernel/perf_event_paranoid"); s != "" {
		p.Paranoid, _ = strconv.Atoi(s)
	}
	if o.NoProbe {
		return p
	}
	try := func(typ uint32, config uint64) error {
		attr := unix.PerfEventAttr{Type: typ, Config: config, Size: uint32(unsafe.Sizeof(unix.PerfEventAttr{}))}
		attr.Bits = unix.PerfBitExcludeHv
		fd, err := unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
		if err != nil {
			attr.Bits |= unix.PerfBitExcludeKernel
			fd, err = unix.PerfEventOpen(&attr, 0, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
			if err != nil {
				return err
			}
		}
		unix.Close(fd)
		host.NotePerfClosed() // the next measured block waits for the hooks to go off
		return nil
	}
	if err := try(unix.PERF_TYPE_SOFTWARE, unix.PERF_COUNT_SW_CONTEXT_SWITCHES); err == nil {
		p.Software = true
	} else {
		p.Reason = "software events: " + err.Error()
	}
	if err := try(unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS); err == nil {
		p.Hardware = true
	} else if p.Reason == "" {
		p.Reason = "hardware events: " + err.Error() + " (no PMU exposed, common in virtual machines)"
	}
	return p
}
