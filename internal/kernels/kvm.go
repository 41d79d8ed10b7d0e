package kernels

// The vm-rung kernels (kvm_*.c): a minimal VMM on the KVM API. What one op
// of each is, and the method, is in the C files' header comments and in
// docs/vm.md; internal/kvm interprets the results (backend, self-check,
// labels, decomposition).

// KVMKernel names a vm-rung C kernel.
type KVMKernel string

// The vm-rung kernels. A and B are the timing side and the partner side of
// the VM-to-VM switch; the partner runs in a re-executed ctxbench process.
const (
	KVMExitUser   KVMKernel = "kvm-exit-user"   // one op: exit to user space and back (E-user)
	KVMExitKernel KVMKernel = "kvm-exit-kernel" // one op: an exit completed in the host kernel (E-kernel)
	KVMSelfCheck  KVMKernel = "kvm-selfcheck"   // one op: E-user with Arg padding instructions
	KVMSwitchUA   KVMKernel = "kvm-switch-u-a"  // one op: VM A -> VM B -> VM A through user space (2 hops)
	KVMSwitchUB   KVMKernel = "kvm-switch-u-b"
	KVMSwitchKA   KVMKernel = "kvm-switch-k-a" // one op: the same round trip purely in the kernel (ioeventfd + irqfd)
	KVMSwitchKB   KVMKernel = "kvm-switch-k-b"
	KVMCreate     KVMKernel = "kvm-create" // one op: a VM created and run to its first exit
)

// KVMGuestMode is how the guest runs; it matches kvm.GuestMode.
type KVMGuestMode int

// Guest modes (CB_KVM_GUEST_* in kvm_vmm.h).
const (
	KVMGuestKernel KVMGuestMode = 0 // 64-bit, CPL0
	KVMGuestUser   KVMGuestMode = 1 // 64-bit, CPL3 (natively executed on a PVM host)
	KVMGuestReal   KVMGuestMode = 2 // 16-bit real mode
)

// KVMExitMethod selects the in-kernel exit of KVMExitKernel.
const (
	KVMExitIoeventfd int32 = 0 // `out` to a port bound to an ioeventfd
	KVMExitCPUID     int32 = 1 // `cpuid`
)

// KVMHaltPollDefault leaves KVM's halt-polling default in KVMSwitchKA/KB.
const KVMHaltPollDefault int32 = -1

// KVMArg builds Block.Arg for a vm-rung kernel: the guest mode in bits
// 32..39 and the kernel's parameter (self-check padding, exit method,
// halt-poll ns for variant K, VM count for KVMMemory) in the low 32 bits.
func KVMArg(mode KVMGuestMode, param int32) int64 {
	return int64(uint64(uint8(mode))<<32 | uint64(uint32(param)))
}

// KVMOut is what a vm-rung kernel reports beside Output.
type KVMOut struct {
	// Stats are KVM's per-vCPU statistics (exits, io_exits,
	// insn_emulation, halt_exits, ...) summed over the whole block, for the
	// side that ran; absent when the kernel has no binary statistics.
	Stats map[string]int64 `json:"stats"`
	// GuestOps is what the guest or KVM counted: the ioeventfd's counter,
	// the doorbell guest's round trips, the exits the VMM saw.
	GuestOps uint64 `json:"guest_ops"`
	// HaltPollNS is the per-VM halt-polling limit variant K set; -1 means
	// KVM's default (the kvm module's halt_poll_ns).
	HaltPollNS int64 `json:"halt_poll_ns"`
}

// KVMMem is what KVMMemory read before and after creating its VMs. Keys are
// /proc field names (Rss, Pss, VmSize, MemFree, Slab, SecPageTables, ...),
// values kB, -1 when the kernel lacks the field.
type KVMMem struct {
	Requested int              `json:"requested"`
	Created   int              `json:"created"`
	FDsPerVM  int              `json:"fds_per_vm"`
	Before    map[string]int64 `json:"before"`
	After     map[string]int64 `json:"after"`
	Limit     string           `json:"limit,omitempty"` // why creation stopped before Requested
}
