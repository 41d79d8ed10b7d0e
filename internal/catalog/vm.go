package catalog

import (
	"context"
	"os"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/sys/unix"

	"github.com/ctxbench/ctxbench/internal/host"
	"github.com/ctxbench/ctxbench/internal/kernels"
	"github.com/ctxbench/ctxbench/internal/kvm"
	"github.com/ctxbench/ctxbench/internal/model"
)

// The vm rung: a minimal VMM on the KVM API (internal/kernels/kvm_*.c).
// Every block first runs the native-execution self-check in the figure's
// guest mode, so each figure's label says how the guest really ran — on a
// PVM host a CPL0 guest is emulated instruction by instruction, a CPL3 one
// runs natively, and neither is a hardware VM exit. docs/vm.md has the
// method of each figure.

var detectOnce = sync.OnceValue(func() kvm.Detection { return kvm.Detect(kvm.Options{}) })

func needsKVM() (bool, string) {
	if runtime.GOARCH != "amd64" {
		return false, "the KVM monitor's guests are x86-64 programs (exits by port I/O, HLT and CPUID, in real, long and user mode): none is written for " + runtime.GOARCH + ", so the vm rung runs on x86-64 only"
	}
	if !kernels.KVMBuilt {
		return false, "the KVM kernels need cgo on linux/amd64"
	}
	return detectOnce().Available()
}

func needsKVMInKernel() (bool, string) {
	if ok, why := needsKVM(); !ok {
		return ok, why
	}
	return detectOnce().InKernelSwitchAvailable()
}

// selfCheck runs the self-check kernel at each padding count, a few ops
// each; the minimum per op is used, since contention only adds time.
func selfCheck(mode kernels.KVMGuestMode, cpu int) (kvm.SelfCheck, error) {
	return kvm.RunSelfCheck(kvm.GuestMode(mode), func(pad int) (kvm.SelfCheckPoint, error) {
		blk := kernels.Block{Iters: 4, Samples: 3, Warmup: 1, CPUA: cpu, CPUB: -1, Arg: kernels.KVMArg(mode, int32(pad))}
		out, ko, err := kernels.KVMRun(kernels.KVMSelfCheck, blk)
		if err != nil {
			return kvm.SelfCheckPoint{}, err
		}
		p := kvm.SelfCheckPoint{NsPerOp: float64(slices.Min(out.NS)) / float64(blk.Iters), EmulatedPerOp: -1}
		if em, ok := kvm.PerOp(ko.Stats, out.A.Ops)["insn_emulation"]; ok {
			p.EmulatedPerOp = em
		}
		return p, nil
	})
}

// vmDescribe sets the label, evidence and KVM payload every vm block
// reports: what was measured, the backend and how the guest really ran (the
// self-check), what the figure is not, and KVM's own counters per op.
func vmDescribe(r *model.Response, figure string, mode kernels.KVMGuestMode, sc kvm.SelfCheck, ko kernels.KVMOut, ops uint64) {
	d := detectOnce()
	f, _ := kvm.FigureByID(figure)
	perOp := kvm.PerOp(ko.Stats, ops)
	r.Label = &model.Label{What: f.What, Guest: kvm.Annotate(d.BackendDescription(kvm.GuestMode(mode), &sc), perOp)}
	if !d.HardwareExit(&sc) {
		r.Label.Caveat = "NOT a hardware VM exit"
	}
	r.Evidence = map[string]string{
		"backend":   string(d.Backend),
		"selfcheck": sc.Summary(),
		"guest":     kvm.GuestMode(mode).Describe(),
	}
	r.KVM = &model.KVMData{GuestMode: kvm.GuestMode(mode).String(), PerOp: perOp}
}

// vmSingle runs a one-sided vm kernel (an exit and re-entry).
func vmSingle(figure string, k kernels.KVMKernel, mode kernels.KVMGuestMode, param int32) func(context.Context, model.Request) (model.Response, error) {
	return func(_ context.Context, req model.Request) (model.Response, error) {
		sc, err := selfCheck(mode, req.CPUA)
		if err != nil {
			return model.Response{}, err
		}
		blk := block(req)
		blk.Arg = kernels.KVMArg(mode, param)
		out, ko, err := kernels.KVMRun(k, blk)
		if err != nil {
			return model.Response{}, err
		}
		r := response(out)
		vmDescribe(&r, figure, mode, sc, ko, out.A.Ops)
		return r, nil
	}
}

// vmSwitch runs the VM-to-VM round trip: VM A here, VM B in a partner.
func vmSwitch(figure string, a, b kernels.KVMKernel, mode kernels.KVMGuestMode, param int32, inKernel bool) func(context.Context, model.Request) (model.Response, error) {
	return func(ctx context.Context, req model.Request) (model.Response, error) {
		sc, err := selfCheck(mode, req.CPUA)
		if err != nil {
			return model.Response{}, err
		}
		var t TwoProcess
		var cleanup func()
		if inKernel {
			t, cleanup, err = eventfdPair()
		} else {
			t, cleanup, err = pipePair()
		}
		if err != nil {
			return model.Response{}, err
		}
		defer cleanup()
		var ko kernels.KVMOut
		t.B = kernels.Kernel(b)
		t.RunA = func(blk kernels.Block) (kernels.Output, error) {
			out, o, err := kernels.KVMRun(a, blk)
			ko = o
			return out, err
		}
		req.Arg = kernels.KVMArg(mode, param)
		resp, err := t.Run(ctx, req)
		if err != nil {
			return resp, err
		}
		vmDescribe(&resp, figure, mode, sc, ko, resp.A.Ops)
		return resp, nil
	}
}

// eventfdPair gives both sides the same two eventfds: the doorbells of
// variant K (A's ioeventfd is B's irqfd and the other way round).
func eventfdPair() (TwoProcess, func(), error) {
	ab, err := host.Eventfd()
	if err != nil {
		return TwoProcess{}, nil, err
	}
	ba, err := host.Eventfd()
	if err != nil {
		unix.Close(ab)
		return TwoProcess{}, nil, err
	}
	fab, fba := os.NewFile(uintptr(ab), "ctxbench-doorbell-ab"), os.NewFile(uintptr(ba), "ctxbench-doorbell-ba")
	t := TwoProcess{Files: []*os.File{fab, fba}, FDsA: []int{ab, ba}}
	return t, func() { fab.Close(); fba.Close() }, nil
}

// vmRows are the VM rung: exits and VM-to-VM switches on a minimal VMM.
func vmRows() []*model.Benchmark {
	user, kern := kernels.KVMGuestUser, kernels.KVMGuestKernel
	return []*model.Benchmark{
		vmExitRow(model.Benchmark{
			Name:        "vm/exit-user",
			Description: "a 64-bit CPL3 guest executes `out` to an unassigned port; KVM_RUN returns to the VMM, which re-enters: an exit to user space and back",
			Op:          "one exit to user space and re-entry (KVM_RUN round trip)",
			Switched:    "the VMM (a world switch out of the guest and back)", Mechanism: "KVM_RUN, out to an unassigned port",
			Phases: "kvm-exit", Run: vmSingle("exit-user", kernels.KVMExitUser, user, 0),
		}),
		vmExitRow(model.Benchmark{
			Name:        "vm/exit-kernel",
			Description: "a 64-bit CPL3 guest executes `out` to a port bound to an ioeventfd: the exit is completed in the host kernel, KVM_RUN does not return",
			Op:          "one exit completed in the host kernel (ioeventfd) and re-entry",
			Switched:    "the host kernel's KVM (a world switch out of the guest and back)", Mechanism: "out to an ioeventfd port",
			Run: vmSingle("exit-kernel-ioeventfd", kernels.KVMExitKernel, user, kernels.KVMExitIoeventfd),
		}),
		vmExitRow(model.Benchmark{
			Name:        "vm/cpuid",
			Description: "a 64-bit CPL3 guest executes `cpuid`: where this KVM intercepts it an in-kernel exit; KVM's counters say whether it did",
			Op:          "one guest cpuid",
			Switched:    "whoever intercepts cpuid (this KVM, or an outer hypervisor)", Mechanism: "guest cpuid",
			Run: vmSingle("exit-kernel-cpuid", kernels.KVMExitKernel, user, kernels.KVMExitCPUID),
		}),
		vmSwitchRow(model.Benchmark{
			Name:        "vm/switch-user",
			Description: "two VMs in two processes pass a token through the host: VM A exits, its VMM writes a pipe and blocks; VM B's VMM wakes, runs B until it exits, and answers",
			Switched:    "another virtual machine (its VMM process and vCPU)", Mechanism: "exit to user space + pipe token + KVM_RUN",
			Needs: needsKVM, Phases: "vm-switch-user", Run: vmSwitch("switch-u", kernels.KVMSwitchUA, kernels.KVMSwitchUB, user, 0, false),
		}),
		vmSwitchRow(model.Benchmark{
			Name:        "vm/switch-kernel",
			Description: "two VMs in two processes ring each other's doorbell purely in the kernel: A's ioeventfd is B's irqfd and back; each guest halts until interrupted",
			Switched:    "another virtual machine (its halted vCPU thread)", Mechanism: "ioeventfd -> irqfd doorbells, in-kernel LAPIC, hlt",
			Needs: needsKVMInKernel, Run: vmSwitch("switch-k", kernels.KVMSwitchKA, kernels.KVMSwitchKB, kern, kernels.KVMHaltPollDefault, true),
		}),
	}
}

// vmExitRow completes an exit row: a reference figure of one exit per op,
// made by one thread (the guest and its VMM) on one CPU.
func vmExitRow(b model.Benchmark) *model.Benchmark {
	b.Rung, b.Kind, b.HopsPerOp = model.VM, model.RefKind, 1
	b.Placements, b.Ladder = single, single
	b.PlacementNote = "the guest and its VMM are one thread: same-cpu means pinned to one CPU"
	b.StartIters, b.Needs = 64, needsKVM
	return &b
}

// vmSwitchRow completes a VM-to-VM row: a round trip of two hops between
// two VMs in two processes, each hop a switch.
func vmSwitchRow(b model.Benchmark) *model.Benchmark {
	b.Rung, b.Kind, b.ExpectSwitch = model.VM, model.Switch, true
	b.Op, b.HopsPerOp = "round trip VM A -> VM B -> VM A (2 hops)", 2
	b.Placements, b.Ladder = []model.Placement{model.SameCPU, model.CrossCPU}, single
	b.StartIters = 16
	return &b
}
