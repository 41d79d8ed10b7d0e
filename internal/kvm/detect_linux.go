package kvm

// detect_linux.go: opening /dev/kvm and asking it what it gives.

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// probeDevice opens the KVM device and reads its API version and
// capabilities; Usable once both are what the kernels need, else Reason.
func probeDevice(d *Detection) {
	fd, err := unix.Open(d.Device, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		d.Reason = "cannot open " + d.Device + ": " + err.Error()
		if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) {
			d.Reason += " (needs root or membership of the device's group, usually kvm)"
		}
		return
	}
	defer unix.Close(fd)
	v, err := ioctlInt(fd, ioctlGetAPIVersion, 0)
	if err != nil {
		d.Reason = d.Device + " is not a KVM device: KVM_GET_API_VERSION: " + err.Error()
		return
	}
	d.APIVersion = v
	if v != apiVersion {
		d.Reason = fmt.Sprintf("KVM API version %d, want %d", v, apiVersion)
		return
	}
	d.Caps = map[string]int{}
	for name, c := range capNumbers {
		if n, err := ioctlInt(fd, ioctlCheckExtension, c); err == nil {
			d.Caps[name] = n
		}
	}
	d.Usable = true
}

// ioctlInt issues an ioctl whose argument is passed by value and whose
// result is the return value (x/sys/unix has no wrapper for that shape).
func ioctlInt(fd int, req, arg uintptr) (int, error) {
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), req, arg)
	if errno != 0 {
		return -1, errno
	}
	return int(r), nil
}

// The KVM ioctls Detect issues (linux/kvm.h: _IO(KVMIO=0xAE, n)).
const (
	ioctlGetAPIVersion  = 0xAE00
	ioctlCheckExtension = 0xAE03
	apiVersion          = 12 // KVM_API_VERSION, fixed since Linux 2.6.22
)

// Capabilities the vm-rung kernels use (KVM_CAP_* numbers from linux/kvm.h).
var capNumbers = map[string]uintptr{
	"irqchip":         0,   // KVM_CAP_IRQCHIP: in-kernel LAPIC, needed by variant K
	"irqfd":           32,  // KVM_CAP_IRQFD
	"ioeventfd":       36,  // KVM_CAP_IOEVENTFD
	"halt_poll":       182, // KVM_CAP_HALT_POLL: per-VM halt-polling limit
	"binary_stats_fd": 203, // KVM_CAP_BINARY_STATS_FD: per-vCPU exit counters
}
