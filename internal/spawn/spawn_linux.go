package spawn

// spawn_linux.go: what creating contexts needs of Linux: execveat, the
// container creation's namespaces, cgroups, seccomp and capabilities, and
// the readings of /proc and /sys a result records.

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/container"
	"github.com/ctxbench/ctxbench/internal/kernels"
)

// execveatExists says whether execveat(2) exists here: with no descriptor
// it fails at once, EBADF where it exists, ENOSYS where it does not
// (qemu-user 7.2 has none).
var execveatExists = sync.OnceValue(func() bool {
	empty := []byte{0}
	_, _, e := unix.Syscall6(unix.SYS_EXECVEAT, ^uintptr(0), uintptr(unsafe.Pointer(&empty[0])), 0, 0, unix.AT_EMPTY_PATH, 0)
	runtime.KeepAlive(empty)
	return e != unix.ENOSYS
})

// runContainer builds the container description, creates the cgroup tree's
// shared ancestors, runs the kernel and removes the tree.
func runContainer(blk kernels.Block, spec container.Spec) (kernels.Output, string, []string, error) {
	if err := container.Check(spec); err != nil {
		return kernels.Output{}, "", nil, err
	}
	ctr := &kernels.SpawnContainerSpec{CloneFlags: uint64(spec.CloneFlags()), UID: os.Getuid(), GID: os.Getgid()}
	ctr.UserNS = spec.User
	var notes []string
	version := 0
	if spec.CgroupDepth > 0 {
		h, err := container.CPUHierarchy()
		if err != nil {
			return kernels.Output{}, "", nil, err
		}
		version = h.Version
		tree, err := container.NewTree(h, spec.CgroupDepth)
		if err != nil {
			return kernels.Output{}, "", nil, err
		}
		defer func() { _ = tree.Remove() }() // the stale sweep removes what this cannot
		own, forget, err := tree.MemberDirs("c")
		if err != nil {
			return kernels.Output{}, "", nil, err
		}
		defer forget()
		ctr.CgroupDirs = own
		ctr.CgroupProcs = own[len(own)-1] + "/cgroup.procs"
		notes = append(notes, fmt.Sprintf("per container: mkdir/rmdir of %d cgroup directories (%s); shared ancestors made once", len(own), strings.Join(own, ", ")))
		if spec.CgroupNS {
			ctr.CloneFlags &^= unix.CLONE_NEWCGROUP
			ctr.CgroupNSAfterAttach = true
		}
	}
	if spec.Seccomp != container.SeccompNone {
		prog, err := container.SeccompProgram(spec.Seccomp)
		if err != nil {
			return kernels.Output{}, "", nil, err
		}
		for _, f := range prog {
			ctr.Seccomp = append(ctr.Seccomp, kernels.SockFilter{Code: f.Code, Jt: f.Jt, Jf: f.Jf, K: f.K})
		}
	}
	if spec.DropCaps {
		ctr.DropCaps = true
		ctr.KeepCaps = container.DefaultCapMask()
		b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
		if err != nil {
			return kernels.Output{}, "", nil, err
		}
		ctr.LastCap, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	notes = append(notes, "each step is checked: clone accepted the flags, the cgroup attach was written, the child's unshare/capset/seccomp returned 0 (else it exits non-zero and the run fails), the ELF exited 0")
	if spec.Net {
		notes = append(notes, "net namespace teardown finishes asynchronously after the reap (cleanup_net): back-to-back creations pay for earlier teardowns")
	}
	out, err := runGuarded(kernels.SpawnContainer, blk, ctr)
	label := "container creation: " + spec.Label(version) + "; exec of a static exit-only ELF, wait, teardown"
	return out, label, notes, err
}

// selfRSS is this process's VmRSS in bytes (0 if unreadable).
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func thpSetting() string {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil {
		return "unknown"
	}
	s := strings.TrimSpace(string(b))
	if i := strings.Index(s, "["); i >= 0 {
		if j := strings.Index(s[i:], "]"); j > 0 {
			return s[i+1 : i+j]
		}
	}
	return s
}
