//go:build linux

package bpf

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/cilium/ebpf"
	"github.com/cilium/ebpf/btf"
	"github.com/cilium/ebpf/features"
	"golang.org/x/sys/unix"
)

// Capability bits (linux/capability.h).
const (
	capSysAdmin = 21
	capPerfmon  = 38
	capBPF      = 39
)

// host is what Open checks before loading anything; tests replace it to
// see each refusal without needing a machine that lacks the feature.
type host interface {
	effectiveCaps() (uint64, error)
	bpfSyscall() error    // nil if bpf() answers
	kernelBTF() error     // nil if the kernel's BTF loads
	rawTracepoint() error // nil if raw tracepoint programs load
}

type realHost struct{}

func (realHost) effectiveCaps() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	return 0, errors.New("no CapEff line in /proc/self/status")
}

// bpfSyscall creates and closes the smallest map there is.
func (realHost) bpfSyscall() error {
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.Array, KeySize: 4, ValueSize: 4, MaxEntries: 1})
	if err != nil {
		return err
	}
	return m.Close()
}

func (realHost) kernelBTF() error {
	if _, err := os.Stat("/sys/kernel/btf/vmlinux"); err != nil {
		return err
	}
	_, err := btf.LoadKernelSpec()
	return err
}

func (realHost) rawTracepoint() error { return features.HaveProgramType(ebpf.RawTracepoint) }

// preflight names the first thing missing, or returns nil.
func preflight(h host) error {
	caps, err := h.effectiveCaps()
	if err != nil {
		return &MissingError{Reason: ErrPrivilege, Detail: "cannot read the effective capabilities", Err: err}
	}
	has := func(c uint) bool { return caps&(1<<c) != 0 }
	if !has(capSysAdmin) && (!has(capBPF) || !has(capPerfmon)) {
		return &MissingError{Reason: ErrPrivilege, Detail: fmt.Sprintf("need root, or CAP_BPF and CAP_PERFMON (effective capabilities %#x)", caps)}
	}
	if err := h.bpfSyscall(); err != nil {
		detail := "bpf() failed"
		switch {
		case errors.Is(err, unix.ENOSYS):
			detail = "the kernel has no bpf() syscall (CONFIG_BPF_SYSCALL)"
		case errors.Is(err, unix.EPERM):
			detail = "bpf() refused (seccomp, a container, or kernel.unprivileged_bpf_disabled)"
		}
		return &MissingError{Reason: ErrNoBPF, Detail: detail, Err: err}
	}
	if err := h.kernelBTF(); err != nil {
		return &MissingError{Reason: ErrNoBTF, Detail: "no usable /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)", Err: err}
	}
	if err := h.rawTracepoint(); err != nil {
		return &MissingError{Reason: ErrNoRawTracepoint, Detail: "the kernel refuses raw tracepoint programs", Err: err}
	}
	return nil
}

// Check reports why Open would refuse on this machine, or nil; it loads
// nothing that outlives it.
func Check() error { return preflight(realHost{}) }
