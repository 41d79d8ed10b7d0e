package container

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// DefaultCaps is the capability set Docker grants a container by default
// (the 14 capabilities of its default OCI spec); DropCaps keeps only these.
var DefaultCaps = []uint{
	unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FSETID, unix.CAP_FOWNER, unix.CAP_MKNOD,
	unix.CAP_NET_RAW, unix.CAP_SETGID, unix.CAP_SETUID, unix.CAP_SETFCAP, unix.CAP_SETPCAP,
	unix.CAP_NET_BIND_SERVICE, unix.CAP_SYS_CHROOT, unix.CAP_KILL, unix.CAP_AUDIT_WRITE,
}

// DefaultCapMask is DefaultCaps as a bit mask, as /proc/<pid>/status shows CapEff.
func DefaultCapMask() uint64 {
	var m uint64
	for _, c := range DefaultCaps {
		m |= 1 << c
	}
	return m
}

// lastCap reads the highest capability the running kernel knows.
func lastCap() (uint, error) {
	b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 8)
	return uint(n), err
}

// dropCapsThisThread reduces the calling thread's capabilities to
// DefaultCaps: bounding set first (needs CAP_SETPCAP, which is kept), then
// ambient, then effective/permitted/inheritable. Capabilities are per
// thread; the caller locks its OS thread and execs from it, so the new
// program image inherits exactly this thread's credentials.
func dropCapsThisThread() error {
	last, err := lastCap()
	if err != nil {
		return fmt.Errorf("reading cap_last_cap: %w", err)
	}
	keep := DefaultCapMask()
	for c := uint(0); c <= last; c++ {
		if keep&(1<<c) != 0 {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL {
			return fmt.Errorf("prctl(PR_CAPBSET_DROP, %d): %w", c, err)
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && err != unix.EINVAL {
		return fmt.Errorf("prctl(PR_CAP_AMBIENT_CLEAR_ALL): %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	for i := range data {
		k := uint32(keep >> (32 * i))
		data[i].Effective &= k
		data[i].Permitted &= k
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}
