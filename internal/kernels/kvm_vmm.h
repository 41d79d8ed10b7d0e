/*
 * kvm_vmm.h: a minimal virtual machine monitor on the KVM API, shared by the
 * vm-rung kernels (kvm_exit.c, kvm_switch.c, kvm_create.c).
 *
 * What it builds: one VM with one vCPU and a small guest memory slot, started
 * either in 64-bit long mode (identity-mapped 4 KiB page tables, CS.L=1, CPL0,
 * the guest kvm-unit-tests' vmexit.c runs in) or in 16-bit real mode (the
 * LWN "Using the KVM API" guest, J. Triplett 2015). The guest code is a byte
 * string assembled by gcc from the top-level asm in kvm_guest.c, copied to a
 * fixed guest-physical address. No code is copied from QEMU, kvmtool or the
 * articles; the KVM ioctl sequence is the documented one
 * (Documentation/virt/kvm/api.rst).
 *
 * Every C symbol is prefixed cb_kvm_. On failure, functions return -1 and
 * leave a one-line reason in err; cb_kvm_vm_close() releases whatever a
 * partly built VM holds, so callers can always call it.
 */
#ifndef CTXBENCH_KVM_VMM_H
#define CTXBENCH_KVM_VMM_H

#include <stddef.h>
#include <stdint.h>
#include "clock.h"
#include "kernels.h"

/* Guest-physical layout (identity-mapped in long mode). */
#define CB_KVM_MEM_SIZE 0x20000u    /* guest memory slot: 128 KiB */
#define CB_KVM_GPA_PML4 0x1000u
#define CB_KVM_GPA_PDPT 0x2000u
#define CB_KVM_GPA_PD 0x3000u
#define CB_KVM_GPA_PT 0x4000u
#define CB_KVM_GPA_PD_APIC 0x5000u  /* 2 MiB page over the local APIC page */
#define CB_KVM_GPA_GDT 0x6000u
#define CB_KVM_GPA_IDT 0x7000u
#define CB_KVM_GPA_DATA 0x8000u     /* variables shared with the host */
#define CB_KVM_GPA_TSS 0x8100u      /* 64-bit TSS + I/O bitmap (USER mode) */
#define CB_KVM_GPA_STACK 0xA000u    /* initial RSP (stack grows down into 0x9000) */
#define CB_KVM_GPA_CODE 0x10000u    /* guest code, up to 64 KiB */
#define CB_KVM_CODE_MAX 0x10000u

/* I/O ports the guests use (none is claimed by KVM's in-kernel devices). */
#define CB_KVM_PORT_USER 0xE0     /* unassigned: KVM_RUN returns KVM_EXIT_IO */
#define CB_KVM_PORT_KERNEL 0xE4   /* bound to an ioeventfd: handled in the kernel */
#define CB_KVM_PORT_DOORBELL 0xE8 /* variant K: ioeventfd shared with the other VM's irqfd */
#define CB_KVM_PORT_TICK 0xE1     /* variant K: watchdog tick, exits to user space */

/* Offsets of the shared variables in the data page. */
#define CB_KVM_DATA_TARGET 0x00  /* variant K: round trips to do before exiting */
#define CB_KVM_DATA_COUNT 0x08   /* variant K: interrupts taken */
#define CB_KVM_DATA_TOTAL 0x10   /* variant K: interrupts taken since start (never reset) */
#define CB_KVM_DATA_ITERS 0x18   /* in-kernel exit guests: ops per KVM_RUN */

/*
 * How the guest runs. KERNEL is the brief's guest: 64-bit, CS.L=1, CPL0.
 * USER is the same address space entered at CPL3 (pages with U=1, a TSS whose
 * I/O bitmap lets CPL3 use the benchmark's ports, IOPL 0): on a PVM host this
 * is the only mode of a minimal guest that runs on the hardware instead of in
 * KVM's instruction emulator (see docs/vm.md). REAL is the LWN guest.
 */
enum { CB_KVM_GUEST_KERNEL = 0, CB_KVM_GUEST_USER = 1, CB_KVM_GUEST_REAL = 2 };
/* A kernel's arg: guest mode in bits 32..39, the kernel's own parameter below. */
#define CB_KVM_ARG_MODE(arg) ((int)(((uint64_t)(arg) >> 32) & 0xff))
#define CB_KVM_ARG_PARAM(arg) ((int64_t)(int32_t)((uint64_t)(arg) & 0xffffffffu))

typedef struct cb_kvm_vm {
	int vm_fd;
	int vcpu_fd;
	struct kvm_run *run;
	size_t run_size;
	uint8_t *mem;
	size_t mem_size;
	int mode;
	int stats_fd; /* KVM_GET_STATS_FD of the vCPU, -1 if unsupported */
} cb_kvm_vm;

/*
 * KVM's own per-vCPU counters (binary stats, Documentation/virt/kvm/api.rst
 * "KVM_GET_STATS_FD"): they say what the host did per op (exits, emulated
 * instructions, halts), which is how ctxbench knows an "exit" was an exit
 * and whether guest code was emulated. Deltas over a whole block; -1 when
 * the kernel has no such statistic.
 */
enum {
	CB_KVM_ST_EXITS, CB_KVM_ST_IO_EXITS, CB_KVM_ST_MMIO_EXITS, CB_KVM_ST_INSN_EMULATION,
	CB_KVM_ST_HALT_EXITS, CB_KVM_ST_HALT_WAKEUP, CB_KVM_ST_HALT_SUCCESSFUL_POLL,
	CB_KVM_ST_HALT_ATTEMPTED_POLL, CB_KVM_ST_IRQ_INJECTIONS, CB_KVM_ST_SIGNAL_EXITS,
	CB_KVM_ST_IRQ_EXITS, CB_KVM_ST_PF_TAKEN, CB_KVM_ST_FPU_RELOAD, CB_KVM_ST_HOST_STATE_RELOAD,
	CB_KVM_NSTATS
};

/* What a vm-rung kernel reports beside cb_block (the Go side reads it). */
typedef struct cb_kvm_out {
	int64_t stat[CB_KVM_NSTATS]; /* vCPU statistics deltas over the block (side A, or B in a B function) */
	uint64_t guest_ops;          /* ops the guest or KVM itself counted (eventfd total, guest counter) */
	int64_t halt_poll_ns;        /* variant K: per-VM halt-polling limit in force; -1: KVM's default */
} cb_kvm_out;

void cb_kvm_stats_read(cb_kvm_vm *vm, int64_t *vals); /* vals[CB_KVM_NSTATS] */
const char *cb_kvm_stat_name(int i);                  /* KVM's name of statistic i */
void cb_kvm_stats_delta(int64_t *out, const int64_t *before, const int64_t *after);

/* A guest image: bytes and where execution starts (offset into the code). */
typedef struct cb_kvm_image {
	const uint8_t *code;
	size_t len;
	size_t entry;
} cb_kvm_image;

/* Flags for cb_kvm_vm_open. */
#define CB_KVM_IRQCHIP 0x1 /* in-kernel LAPIC/IOAPIC/PIC, needed for irqfd */
#define CB_KVM_STATS 0x2   /* open the vCPU's statistics fd (not part of a VMM's start) */

void cb_kvm_vm_init(cb_kvm_vm *vm);
int cb_kvm_open_dev(char *err, int errlen); /* open("/dev/kvm"), checked API version */
int cb_kvm_vm_open(cb_kvm_vm *vm, int kvm_fd, int mode, int flags,
		   const cb_kvm_image *img, char *err, int errlen);
void cb_kvm_vm_close(cb_kvm_vm *vm);

/* One KVM_RUN; EINTR is retried. Returns 0 or -1 (reason in err). */
int cb_kvm_run(cb_kvm_vm *vm, char *err, int errlen);
/* Run until an I/O exit on port; any other exit is an error. */
int cb_kvm_run_to_port(cb_kvm_vm *vm, uint16_t port, char *err, int errlen);
/* Describe an unexpected exit in err. */
void cb_kvm_bad_exit(cb_kvm_vm *vm, const char *want, char *err, int errlen);

/* Set rsi before the first KVM_RUN only: between an I/O exit and the
 * KVM_RUN that completes it, registers must not be changed (api.rst). */
int cb_kvm_set_reg_rsi(cb_kvm_vm *vm, uint64_t v, char *err, int errlen);
static inline void cb_kvm_poke(cb_kvm_vm *vm, uint32_t off, uint64_t v)
{
	__atomic_store_n((uint64_t *)(vm->mem + CB_KVM_GPA_DATA + off), v, __ATOMIC_RELAXED);
}
static inline uint64_t cb_kvm_peek(cb_kvm_vm *vm, uint32_t off)
{
	return __atomic_load_n((uint64_t *)(vm->mem + CB_KVM_GPA_DATA + off), __ATOMIC_RELAXED);
}
int cb_kvm_ioeventfd(cb_kvm_vm *vm, uint16_t port, int efd, int assign, char *err, int errlen);
/* Route gsi i to an MSI of vectors[i] (i < n) and software-enable the LAPIC. */
int cb_kvm_msi_setup(cb_kvm_vm *vm, const uint8_t *vectors, int n, char *err, int errlen);
int cb_kvm_irqfd(cb_kvm_vm *vm, uint32_t gsi, int efd, int assign, char *err, int errlen);
int cb_kvm_set_halt_poll(cb_kvm_vm *vm, int64_t ns, char *err, int errlen);

/* ---- what the vm-rung kernels do around their timed loops (never timed) ---- */

/* Pin the calling thread to cpu (cb_pin_self) and open /dev/kvm: the
 * descriptor, or -1 (reason in err). */
int cb_kvm_pin_open(int cpu, char *err, int errlen);
/* cb_kvm_pin_open, then cb_kvm_vm_open of img into vm. On failure nothing
 * stays open and *kvm is -1. */
int cb_kvm_side_open(cb_kvm_vm *vm, int *kvm, int cpu, int mode, int flags,
		     const cb_kvm_image *img, char *err, int errlen);
/* Close what cb_kvm_side_open opened: the VM, then /dev/kvm. */
void cb_kvm_side_close(cb_kvm_vm *vm, int kvm);

/* What a side counts over its whole block besides the stamps: its context
 * switches (cb_counter) and its vCPU's statistics. Begin right before the
 * block, end right after it; end stores the statistics' deltas in o->stat. */
typedef struct cb_kvm_meter {
	cb_counter ctr;
	int64_t st0[CB_KVM_NSTATS];
} cb_kvm_meter;
void cb_kvm_meter_begin(cb_kvm_meter *m, cb_kvm_vm *vm, const cb_block *b);
void cb_kvm_meter_end(cb_kvm_meter *m, cb_kvm_vm *vm, cb_counts *side, cb_kvm_out *o);

/* Guest images (kvm_guest.c). */
enum {
	CB_KVM_IMG_USER,      /* long mode: out USER, forever; one exit per KVM_RUN */
	CB_KVM_IMG_IOEVENTFD, /* long mode: ITERS x (out KERNEL), then out USER; repeat */
	CB_KVM_IMG_CPUID,     /* long mode: ITERS x (cpuid), then out USER; repeat */
	CB_KVM_IMG_USER16,    /* real mode: out USER, forever */
	CB_KVM_IMG_DOORBELL,  /* long mode: variant K doorbell guest (kvm_guest.c) */
};
void cb_kvm_image_get(int id, cb_kvm_image *img);
/* The E-user guest for mode: USER16 in real mode, USER otherwise. Inline,
 * because cb_kvm_create times it as part of creating a VM. */
static inline void cb_kvm_image_user(int mode, cb_kvm_image *img)
{
	cb_kvm_image_get(mode == CB_KVM_GUEST_REAL ? CB_KVM_IMG_USER16 : CB_KVM_IMG_USER, img);
}
/* Offsets of the variant K interrupt handlers within CB_KVM_IMG_DOORBELL. */
size_t cb_kvm_doorbell_ring_off(void);
size_t cb_kvm_doorbell_tick_off(void);
/* Build "pad x (inc %ecx); out USER; jmp back" into buf for mode; returns the length, or 0 if it does not fit. */
size_t cb_kvm_build_padded(uint8_t *buf, size_t cap, uint32_t pad, int mode);

/* ---- the kernels (one op of each: see the file's header comment) ---- */

int cb_kvm_exit_user(cb_block *b, cb_kvm_out *o);     /* kvm_exit.c */
int cb_kvm_exit_kernel(cb_block *b, cb_kvm_out *o);   /* kvm_exit.c */
int cb_kvm_selfcheck(cb_block *b, cb_kvm_out *o);     /* kvm_exit.c */
int cb_kvm_vmswitch_u_a(cb_block *b, cb_kvm_out *o);  /* kvm_switch.c */
int cb_kvm_vmswitch_u_b(cb_block *b, cb_kvm_out *o);  /* kvm_switch.c */
int cb_kvm_vmswitch_k_a(cb_block *b, cb_kvm_out *o);  /* kvm_switch.c */
int cb_kvm_vmswitch_k_b(cb_block *b, cb_kvm_out *o);  /* kvm_switch.c */
int cb_kvm_create(cb_block *b, cb_kvm_out *o);        /* kvm_create.c */

/* ---- cb_kvm_memory (kvm_create.c) ---- */

/* Fields read from /proc (kB); -1 when absent on this kernel. */
enum {
	CB_KVM_MEM_RSS, CB_KVM_MEM_PSS, CB_KVM_MEM_PSS_ANON, CB_KVM_MEM_PSS_FILE, CB_KVM_MEM_PSS_SHMEM,
	CB_KVM_MEM_VMSIZE, CB_KVM_MEM_VMPTE,
	CB_KVM_MEM_MEMFREE, CB_KVM_MEM_MEMAVAILABLE, CB_KVM_MEM_SLAB, CB_KVM_MEM_SUNRECLAIM,
	CB_KVM_MEM_KERNELSTACK, CB_KVM_MEM_PAGETABLES, CB_KVM_MEM_SECPAGETABLES, CB_KVM_MEM_VMALLOCUSED,
	CB_KVM_MEM_PERCPU, CB_KVM_MEM_ANONPAGES,
	CB_KVM_MEM_NFIELDS
};

typedef struct cb_kvm_mem {
	int32_t requested;            /* VMs asked for */
	int32_t created;              /* VMs created and run to their first exit */
	int32_t fds_per_vm;           /* descriptors one VM holds in this VMM */
	int64_t before[CB_KVM_MEM_NFIELDS];
	int64_t after[CB_KVM_MEM_NFIELDS];
	char limit[200];              /* why creation stopped before the target; empty if it did not */
} cb_kvm_mem;

int cb_kvm_memory(cb_block *b, cb_kvm_mem *m);
const char *cb_kvm_mem_key(int i); /* /proc key of field i, e.g. "Rss:" */

#endif
