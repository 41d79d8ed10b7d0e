//go:build cgo && amd64

package kernels

import (
	"errors"
	"os"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/testenv"
)

// The vm-rung kernels run real guests, so these tests need a usable
// /dev/kvm; without one they skip with the reason. They check structure and
// counts (samples, ops done = ops asked, what KVM counted), never timing.

func needKVM(t *testing.T) {
	t.Helper()
	fd, err := unix.Open("/dev/kvm", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		testenv.Skip(t, testenv.KVM, "no usable /dev/kvm: %v", err)
	}
	unix.Close(fd)
}

// openFDs counts this process's descriptors, to check that a kernel leaves
// no VM, vCPU, eventfd or stats descriptor behind.
func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

func checkBlock(t *testing.T, name string, blk Block, out Output, c Counts) {
	t.Helper()
	if len(out.NS) != blk.Samples || len(out.TSC) != blk.Samples {
		t.Fatalf("%s: %d/%d samples, want %d", name, len(out.NS), len(out.TSC), blk.Samples)
	}
	for i, v := range out.NS {
		if v == 0 {
			t.Errorf("%s: sample %d is 0 ns", name, i)
		}
	}
	want := uint64(blk.Warmup+blk.Samples) * blk.Iters
	if c.Ops != want {
		t.Errorf("%s: %d ops, want %d", name, c.Ops, want)
	}
}

func TestKVMSingleVCPUKernels(t *testing.T) {
	needKVM(t)
	fds := openFDs(t)
	cases := []struct {
		k     KVMKernel
		mode  KVMGuestMode
		param int32
		iters uint64
	}{
		{KVMExitUser, KVMGuestKernel, 0, 50},
		{KVMExitUser, KVMGuestUser, 0, 50},
		{KVMExitUser, KVMGuestReal, 0, 50},
		{KVMSelfCheck, KVMGuestKernel, 10, 20},
		{KVMSelfCheck, KVMGuestUser, 10, 20},
		{KVMExitKernel, KVMGuestKernel, KVMExitIoeventfd, 50},
		{KVMExitKernel, KVMGuestUser, KVMExitIoeventfd, 50},
		{KVMExitKernel, KVMGuestUser, KVMExitCPUID, 50},
		{KVMCreate, KVMGuestUser, 0, 1},
	}
	for _, c := range cases {
		blk := Block{Iters: c.iters, Samples: 3, Warmup: 1, CPUA: -1, CPUB: -1, Arg: KVMArg(c.mode, c.param)}
		name := string(c.k) + "/" + []string{"kernel", "user", "real"}[c.mode]
		out, ko, err := KVMRun(c.k, blk)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkBlock(t, name, blk, out, out.A)
		ops := out.A.Ops
		switch c.k {
		case KVMExitUser, KVMSelfCheck:
			// Every op is one exit the VMM saw; KVM counted at least as many.
			if ko.GuestOps != ops {
				t.Errorf("%s: VMM saw %d exits, ops %d", name, ko.GuestOps, ops)
			}
			if ex, ok := ko.Stats["exits"]; ok && uint64(ex) < ops {
				t.Errorf("%s: KVM counted %d exits for %d exits to user space", name, ex, ops)
			}
		case KVMExitKernel:
			if c.param == KVMExitIoeventfd && ko.GuestOps != ops {
				t.Errorf("%s: the ioeventfd counted %d, ops %d", name, ko.GuestOps, ops)
			}
		}
	}
	if n := openFDs(t); n != fds {
		t.Errorf("%d descriptors open after the kernels, %d before", n, fds)
	}
}

// Both sides of a VM-to-VM switch in one test process, on two OS threads
// (the product runs side B in a re-executed ctxbench; the kernels do not
// care which).
func runPair(t *testing.T, a, b KVMKernel, blk Block, fdA, fdB [2]int) (Output, Output, error, error) {
	t.Helper()
	type ret struct {
		out Output
		err error
	}
	ch := make(chan ret, 1)
	bb := blk
	bb.FD = [4]int{fdB[0], fdB[1], -1, -1}
	go func() {
		out, _, err := KVMRun(b, bb)
		ch <- ret{out, err}
	}()
	ab := blk
	ab.FD = [4]int{fdA[0], fdA[1], -1, -1}
	outA, _, errA := KVMRun(a, ab)
	rb := <-ch
	return outA, rb.out, errA, rb.err
}

func TestKVMSwitchU(t *testing.T) {
	needKVM(t)
	var ab, ba [2]int // pipes A->B and B->A
	if err := unix.Pipe2(ab[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if err := unix.Pipe2(ba[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, fd := range []int{ab[0], ab[1], ba[0], ba[1]} {
			unix.Close(fd)
		}
	}()
	blk := Block{Iters: 50, Samples: 3, Warmup: 1, CPUA: -1, CPUB: -1, Arg: KVMArg(KVMGuestUser, 0)}
	outA, outB, errA, errB := runPair(t, KVMSwitchUA, KVMSwitchUB, blk, [2]int{ba[0], ab[1]}, [2]int{ab[0], ba[1]})
	if errA != nil || errB != nil {
		t.Fatalf("side A: %v, side B: %v", errA, errB)
	}
	checkBlock(t, "A", blk, outA, outA.A)
	if outB.B.Ops != outA.A.Ops {
		t.Errorf("side B did %d ops, side A %d", outB.B.Ops, outA.A.Ops)
	}
}

func TestKVMSwitchUDeadPartner(t *testing.T) {
	needKVM(t)
	var ab, ba [2]int
	if err := unix.Pipe2(ab[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	if err := unix.Pipe2(ba[:], unix.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ab[0])
	defer unix.Close(ab[1])
	defer unix.Close(ba[0])
	unix.Close(ba[1]) // the partner is gone before it said it was ready
	fds := openFDs(t)
	blk := Block{Iters: 10, Samples: 2, Warmup: 0, CPUA: -1, CPUB: -1, FD: [4]int{ba[0], ab[1], -1, -1}, Arg: KVMArg(KVMGuestUser, 0)}
	_, _, err := KVMRun(KVMSwitchUA, blk)
	if err == nil || !strings.Contains(err.Error(), "partner") {
		t.Errorf("error %v, want one naming the partner", err)
	}
	if n := openFDs(t); n != fds {
		t.Errorf("%d descriptors open after the failure, %d before", n, fds)
	}
}

func TestKVMSwitchK(t *testing.T) {
	needKVM(t)
	ab, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ab)
	ba, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(ba)
	for _, poll := range []int32{KVMHaltPollDefault, 0} {
		blk := Block{Iters: 20, Samples: 3, Warmup: 1, CPUA: -1, CPUB: -1, Arg: KVMArg(KVMGuestKernel, poll)}
		outA, outB, errA, errB := runPair(t, KVMSwitchKA, KVMSwitchKB, blk, [2]int{ab, ba}, [2]int{ab, ba})
		if errors.Is(errA, unix.EINVAL) || (errA != nil && strings.Contains(errA.Error(), "IRQCHIP")) {
			testenv.Skip(t, testenv.KVM, "no in-kernel irqchip on this KVM backend: %v", errA)
		}
		if errA != nil || errB != nil {
			t.Fatalf("halt poll %d: side A: %v, side B: %v", poll, errA, errB)
		}
		checkBlock(t, "A", blk, outA, outA.A)
		if outB.B.Ops != outA.A.Ops {
			t.Errorf("halt poll %d: side B answered %d round trips, side A made %d", poll, outB.B.Ops, outA.A.Ops)
		}
	}
}

func TestKVMMemory(t *testing.T) {
	needKVM(t)
	fds := openFDs(t)
	m, err := KVMMemory(5, KVMGuestUser, -1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Requested != 5 || m.Created != 5 || m.Limit != "" || m.FDsPerVM != 2 {
		t.Errorf("%+v", m)
	}
	for _, k := range []string{"Rss", "Pss", "VmSize", "MemFree", "Slab", "KernelStack"} {
		if m.Before[k] <= 0 || m.After[k] <= 0 {
			t.Errorf("%s: before %d after %d", k, m.Before[k], m.After[k])
		}
	}
	// Five VMs hold their guest memory mappings: the address space grew.
	if m.After["VmSize"] <= m.Before["VmSize"] {
		t.Errorf("VmSize %d -> %d", m.Before["VmSize"], m.After["VmSize"])
	}
	if n := openFDs(t); n != fds {
		t.Errorf("%d descriptors open after, %d before", n, fds)
	}
}

func TestKVMBadInput(t *testing.T) {
	blk := Block{Iters: 1, Samples: 1, CPUA: -1, CPUB: -1}
	if _, _, err := KVMRun("kvm-nonsense", blk); err == nil {
		t.Error("unknown kernel accepted")
	}
	if _, _, err := KVMRun(KVMExitUser, Block{Iters: 0, Samples: 1}); err == nil {
		t.Error("empty block accepted")
	}
	if _, err := KVMMemory(0, KVMGuestUser, -1); err == nil {
		t.Error("zero VMs accepted")
	}
	needKVM(t)
	blk.Arg = KVMArg(KVMGuestKernel, 1<<20)
	if _, _, err := KVMRun(KVMSelfCheck, blk); err == nil || !strings.Contains(err.Error(), "padding") {
		t.Errorf("oversized padding: %v", err)
	}
	blk.Arg = KVMArg(KVMGuestReal, KVMExitIoeventfd)
	if _, _, err := KVMRun(KVMExitKernel, blk); err == nil {
		t.Error("real-mode in-kernel exit accepted")
	}
	blk.Arg = KVMArg(KVMGuestKernel, 7)
	if _, _, err := KVMRun(KVMExitKernel, blk); err == nil {
		t.Error("unknown exit method accepted")
	}
	blk.Arg = KVMArg(KVMGuestUser, KVMHaltPollDefault)
	if _, _, err := KVMRun(KVMSwitchKA, blk); err == nil || !strings.Contains(err.Error(), "CPL0") {
		t.Errorf("variant K in user mode: %v", err)
	}
}

func TestKVMArg(t *testing.T) {
	a := KVMArg(KVMGuestUser, -1)
	if a>>32 != 1 || int32(uint32(a)) != -1 {
		t.Errorf("KVMArg(user, -1) = %#x", a)
	}
	if KVMArg(KVMGuestReal, 1000) != 2<<32|1000 {
		t.Errorf("KVMArg(real, 1000) = %#x", KVMArg(KVMGuestReal, 1000))
	}
}
