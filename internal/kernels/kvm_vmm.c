//go:build linux && amd64

/*
 * kvm_vmm.c: the minimal VMM shared by the vm-rung kernels (not a kernel
 * itself: nothing here is timed). See kvm_vmm.h for the guest layout.
 *
 * Sequence (Documentation/virt/kvm/api.rst; LWN "Using the KVM API"):
 * KVM_CREATE_VM, [KVM_CREATE_IRQCHIP], mmap + KVM_SET_USER_MEMORY_REGION,
 * KVM_CREATE_VCPU, mmap of kvm_run, KVM_SET_CPUID2 (what the host supports),
 * KVM_SET_SREGS/KVM_SET_REGS for the chosen mode. Long mode gets the
 * identity-mapped page tables and a flat GDT that kvm-unit-tests' x86 guests
 * also start from; the values are the architectural ones (Intel SDM vol. 3,
 * 4.5 and 3.4.5), written out here.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kvm_vmm.h"

#define PTE_P 0x1ull
#define PTE_RW 0x2ull
#define PTE_PWT 0x8ull
#define PTE_PCD 0x10ull
#define PTE_PS 0x80ull

#define CR0_PE 0x1ull
#define CR0_MP 0x2ull
#define CR0_ET 0x10ull
#define CR0_NE 0x20ull
#define CR0_WP 0x10000ull
#define CR0_AM 0x40000ull
#define CR0_PG 0x80000000ull
#define CR4_PAE 0x20ull
#define EFER_SCE 0x1ull
#define EFER_LME 0x100ull
#define EFER_LMA 0x400ull

#define PTE_US 0x4ull
#define SEL_CODE64 0x08
#define SEL_DATA 0x10
#define SEL_UCODE64 0x1b
#define SEL_UDATA 0x23
#define SEL_TSS 0x28
#define TSS_LIMIT (104 + 32) /* TSS, 32-byte I/O bitmap, terminating 0xFF byte: limit is size - 1 */

/*
 * Set-up ioctls are retried on EINTR: the Go runtime signals its threads
 * (preemption, profiling), and KVM_CREATE_VM in particular can be
 * interrupted. KVM_RUN has its own handling (an interrupted run re-enters).
 */
static int xioctl(int fd, unsigned long req, unsigned long arg)
{
	int r;
	do
		r = ioctl(fd, req, arg);
	while (r < 0 && errno == EINTR);
	return r;
}

static void seterr(char *err, int errlen, const char *what)
{
	snprintf(err, (size_t)errlen, "%s: %s", what, strerror(errno));
}

void cb_kvm_vm_init(cb_kvm_vm *vm)
{
	memset(vm, 0, sizeof(*vm));
	vm->vm_fd = -1;
	vm->vcpu_fd = -1;
	vm->stats_fd = -1;
}

void cb_kvm_vm_close(cb_kvm_vm *vm)
{
	if (vm->stats_fd >= 0)
		close(vm->stats_fd);
	if (vm->run && vm->run != MAP_FAILED)
		munmap(vm->run, vm->run_size);
	if (vm->vcpu_fd >= 0)
		close(vm->vcpu_fd);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->mem && vm->mem != MAP_FAILED)
		munmap(vm->mem, vm->mem_size);
	cb_kvm_vm_init(vm);
}

/* The host's supported CPUID, fetched once per process: a real VMM passes
 * (a filtered) copy to KVM_SET_CPUID2, and the cpuid guest needs leaf 0. */
static struct kvm_cpuid2 *supported_cpuid(int kvm_fd, char *err, int errlen)
{
	static struct kvm_cpuid2 *cached;
	struct kvm_cpuid2 *have = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
	if (have)
		return have;
	int n = 256;
	for (;;) {
		struct kvm_cpuid2 *c = calloc(1, sizeof(*c) + (size_t)n * sizeof(struct kvm_cpuid_entry2));
		if (!c) {
			snprintf(err, (size_t)errlen, "out of memory");
			return NULL;
		}
		c->nent = (uint32_t)n;
		if (xioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, (unsigned long)(c)) == 0) {
			/* Two threads may race here; the loser frees its copy. */
			struct kvm_cpuid2 *expect = NULL;
			if (__atomic_compare_exchange_n(&cached, &expect, c, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				return c;
			free(c);
			return expect;
		}
		int e = errno;
		free(c);
		if (e != E2BIG || n >= 4096) {
			errno = e;
			seterr(err, errlen, "KVM_GET_SUPPORTED_CPUID");
			return NULL;
		}
		n *= 2;
	}
}

static void seg(struct kvm_segment *s, uint16_t sel, uint8_t type, int code64, int dpl)
{
	memset(s, 0, sizeof(*s));
	s->base = 0;
	s->limit = 0xffffffff;
	s->selector = sel;
	s->type = type;
	s->present = 1;
	s->dpl = (uint8_t)dpl;
	s->s = 1;
	s->g = 1;
	s->l = code64 ? 1 : 0;
	s->db = code64 ? 0 : 1;
}

static void build_long_mode_tables(uint8_t *mem, int user)
{
	/* USER mode: every page U=1 so CPL3 may fetch and touch it. */
	const uint64_t us = user ? PTE_US : 0;
	uint64_t *pml4 = (uint64_t *)(mem + CB_KVM_GPA_PML4);
	uint64_t *pdpt = (uint64_t *)(mem + CB_KVM_GPA_PDPT);
	uint64_t *pd = (uint64_t *)(mem + CB_KVM_GPA_PD);
	uint64_t *pt = (uint64_t *)(mem + CB_KVM_GPA_PT);
	uint64_t *pd_apic = (uint64_t *)(mem + CB_KVM_GPA_PD_APIC);

	pml4[0] = CB_KVM_GPA_PDPT | PTE_P | PTE_RW | us;
	pdpt[0] = CB_KVM_GPA_PD | PTE_P | PTE_RW | us;
	pd[0] = CB_KVM_GPA_PT | PTE_P | PTE_RW | us;
	/* Identity map the memory slot, 4 KiB pages; page 0 stays unmapped so a
	 * stray null access faults instead of scribbling on nothing. */
	for (uint64_t i = 1; i < CB_KVM_MEM_SIZE / 4096; i++)
		pt[i] = (i * 4096) | PTE_P | PTE_RW | us;
	/* The local APIC page (0xFEE00000), uncached, for variant K's EOI:
	 * PDPT[3] covers 3..4 GiB, 2 MiB page index (0xFEE00000-0xC0000000)>>21. */
	pdpt[3] = CB_KVM_GPA_PD_APIC | PTE_P | PTE_RW;
	pd_apic[(0xFEE00000ull - 0xC0000000ull) >> 21] = 0xFEE00000ull | PTE_P | PTE_RW | PTE_PS | PTE_PCD | PTE_PWT;

	/* Flat GDT: null, 64-bit code (L=1) and data at DPL0 (0x08, 0x10) and
	 * DPL3 (0x18, 0x20), and the 16-byte TSS descriptor (0x28). */
	uint64_t *gdt = (uint64_t *)(mem + CB_KVM_GPA_GDT);
	gdt[0] = 0;
	gdt[1] = 0x00AF9A000000FFFFull;
	gdt[2] = 0x00CF92000000FFFFull;
	gdt[3] = 0x00AFFA000000FFFFull;
	gdt[4] = 0x00CFF2000000FFFFull;
	gdt[5] = TSS_LIMIT | ((uint64_t)CB_KVM_GPA_TSS << 16) | (0x89ull << 40);
	gdt[6] = 0;

	/* 64-bit TSS: RSP0 (the stack an interrupt from CPL3 would switch to)
	 * and an I/O permission bitmap whose 32 zero bytes allow ports 0-255
	 * at CPL3 (the 0xFF byte after it is required by the architecture). */
	uint8_t *tss = mem + CB_KVM_GPA_TSS;
	uint64_t rsp0 = CB_KVM_GPA_STACK;
	uint16_t iomap = 104;
	memcpy(tss + 4, &rsp0, 8);
	memcpy(tss + 102, &iomap, 2);
	memset(tss + 104, 0, 32);
	tss[104 + 32] = 0xFF;
}

int cb_kvm_vm_open(cb_kvm_vm *vm, int kvm_fd, int mode, int flags,
		   const cb_kvm_image *img, char *err, int errlen)
{
	cb_kvm_vm_init(vm);
	vm->mode = mode;
	if (img->len > CB_KVM_CODE_MAX) {
		snprintf(err, (size_t)errlen, "guest image too large (%zu bytes)", img->len);
		return -1;
	}
	vm->vm_fd = xioctl(kvm_fd, KVM_CREATE_VM, (unsigned long)(0));
	if (vm->vm_fd < 0) {
		seterr(err, errlen, "KVM_CREATE_VM");
		goto fail;
	}
	if ((flags & CB_KVM_IRQCHIP) && xioctl(vm->vm_fd, KVM_CREATE_IRQCHIP, (unsigned long)(0)) < 0) {
		seterr(err, errlen, "KVM_CREATE_IRQCHIP");
		goto fail;
	}
	vm->mem_size = CB_KVM_MEM_SIZE;
	vm->mem = mmap(NULL, vm->mem_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		seterr(err, errlen, "mmap guest memory");
		goto fail;
	}
	struct kvm_userspace_memory_region region = {
		.slot = 0,
		.guest_phys_addr = 0,
		.memory_size = vm->mem_size,
		.userspace_addr = (uint64_t)(uintptr_t)vm->mem,
	};
	if (xioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, (unsigned long)(&region)) < 0) {
		seterr(err, errlen, "KVM_SET_USER_MEMORY_REGION");
		goto fail;
	}
	memcpy(vm->mem + CB_KVM_GPA_CODE, img->code, img->len);
	if (mode != CB_KVM_GUEST_REAL)
		build_long_mode_tables(vm->mem, mode == CB_KVM_GUEST_USER);

	vm->vcpu_fd = xioctl(vm->vm_fd, KVM_CREATE_VCPU, (unsigned long)(0));
	if (vm->vcpu_fd < 0) {
		seterr(err, errlen, "KVM_CREATE_VCPU");
		goto fail;
	}
	int sz = xioctl(kvm_fd, KVM_GET_VCPU_MMAP_SIZE, (unsigned long)(0));
	if (sz < (int)sizeof(struct kvm_run)) {
		seterr(err, errlen, "KVM_GET_VCPU_MMAP_SIZE");
		goto fail;
	}
	vm->run_size = (size_t)sz;
	vm->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, vm->vcpu_fd, 0);
	if (vm->run == MAP_FAILED) {
		vm->run = NULL;
		seterr(err, errlen, "mmap kvm_run");
		goto fail;
	}
	struct kvm_cpuid2 *cpuid = supported_cpuid(kvm_fd, err, errlen);
	if (!cpuid)
		goto fail;
	if (xioctl(vm->vcpu_fd, KVM_SET_CPUID2, (unsigned long)(cpuid)) < 0) {
		seterr(err, errlen, "KVM_SET_CPUID2");
		goto fail;
	}

	struct kvm_sregs sregs;
	if (xioctl(vm->vcpu_fd, KVM_GET_SREGS, (unsigned long)(&sregs)) < 0) {
		seterr(err, errlen, "KVM_GET_SREGS");
		goto fail;
	}
	struct kvm_regs regs;
	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;
	if (mode != CB_KVM_GUEST_REAL) {
		int user = mode == CB_KVM_GUEST_USER;
		seg(&sregs.cs, user ? SEL_UCODE64 : SEL_CODE64, 0xb, 1, user ? 3 : 0);
		seg(&sregs.ds, user ? SEL_UDATA : SEL_DATA, 0x3, 0, user ? 3 : 0);
		sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
		memset(&sregs.tr, 0, sizeof(sregs.tr));
		sregs.tr.base = CB_KVM_GPA_TSS;
		sregs.tr.limit = TSS_LIMIT;
		sregs.tr.selector = SEL_TSS;
		sregs.tr.type = 0xb; /* 64-bit TSS, busy */
		sregs.tr.present = 1;
		sregs.gdt.base = CB_KVM_GPA_GDT;
		sregs.gdt.limit = 7 * 8 - 1;
		sregs.idt.base = CB_KVM_GPA_IDT;
		sregs.idt.limit = 256 * 16 - 1;
		sregs.cr3 = CB_KVM_GPA_PML4;
		sregs.cr4 = CR4_PAE;
		sregs.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_AM | CR0_PG;
		sregs.efer = EFER_SCE | EFER_LME | EFER_LMA;
		regs.rip = CB_KVM_GPA_CODE + img->entry;
		regs.rsp = user ? CB_KVM_GPA_STACK - 0x800 : CB_KVM_GPA_STACK;
	} else {
		/* Real mode: CS:IP = 0x1000:entry, i.e. linear CB_KVM_GPA_CODE + entry. */
		sregs.cs.selector = CB_KVM_GPA_CODE >> 4;
		sregs.cs.base = CB_KVM_GPA_CODE;
		regs.rip = img->entry;
		regs.rsp = 0xF000;
	}
	if (xioctl(vm->vcpu_fd, KVM_SET_SREGS, (unsigned long)(&sregs)) < 0) {
		seterr(err, errlen, "KVM_SET_SREGS");
		goto fail;
	}
	if (xioctl(vm->vcpu_fd, KVM_SET_REGS, (unsigned long)(&regs)) < 0) {
		seterr(err, errlen, "KVM_SET_REGS");
		goto fail;
	}
	/* Statistics are optional (Linux >= 5.14): without them the figures
	 * stand, only the per-op exit counts are missing. */
	if (flags & CB_KVM_STATS) {
		vm->stats_fd = xioctl(vm->vcpu_fd, KVM_GET_STATS_FD, (unsigned long)(0));
		if (vm->stats_fd < 0)
			vm->stats_fd = -1;
		else
			fcntl(vm->stats_fd, F_SETFD, FD_CLOEXEC);
	}
	return 0;
fail:
	cb_kvm_vm_close(vm);
	return -1;
}

int cb_kvm_open_dev(char *err, int errlen)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		seterr(err, errlen, "open /dev/kvm");
		return -1;
	}
	int v = xioctl(fd, KVM_GET_API_VERSION, (unsigned long)(0));
	if (v != KVM_API_VERSION) {
		snprintf(err, (size_t)errlen, "/dev/kvm: KVM_GET_API_VERSION is %d, want %d", v, KVM_API_VERSION);
		close(fd);
		return -1;
	}
	return fd;
}

static const char *const stat_names[CB_KVM_NSTATS] = {
	[CB_KVM_ST_EXITS] = "exits",
	[CB_KVM_ST_IO_EXITS] = "io_exits",
	[CB_KVM_ST_MMIO_EXITS] = "mmio_exits",
	[CB_KVM_ST_INSN_EMULATION] = "insn_emulation",
	[CB_KVM_ST_HALT_EXITS] = "halt_exits",
	[CB_KVM_ST_HALT_WAKEUP] = "halt_wakeup",
	[CB_KVM_ST_HALT_SUCCESSFUL_POLL] = "halt_successful_poll",
	[CB_KVM_ST_HALT_ATTEMPTED_POLL] = "halt_attempted_poll",
	[CB_KVM_ST_IRQ_INJECTIONS] = "irq_injections",
	[CB_KVM_ST_SIGNAL_EXITS] = "signal_exits",
	[CB_KVM_ST_IRQ_EXITS] = "irq_exits",
	[CB_KVM_ST_PF_TAKEN] = "pf_taken",
	[CB_KVM_ST_FPU_RELOAD] = "fpu_reload",
	[CB_KVM_ST_HOST_STATE_RELOAD] = "host_state_reload",
};

const char *cb_kvm_stat_name(int i)
{
	return (i >= 0 && i < CB_KVM_NSTATS) ? stat_names[i] : "";
}

/* Read the wanted statistics by name (the layout differs between kernels,
 * so descriptors are looked up every time; this is never inside a timed
 * region). */
void cb_kvm_stats_read(cb_kvm_vm *vm, int64_t *vals)
{
	for (int i = 0; i < CB_KVM_NSTATS; i++)
		vals[i] = -1;
	if (vm->stats_fd < 0)
		return;
	struct kvm_stats_header h;
	if (pread(vm->stats_fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || h.num_desc > 4096 || h.name_size > 4096)
		return;
	size_t dsz = sizeof(struct kvm_stats_desc) + h.name_size;
	char *d = malloc(dsz * h.num_desc);
	if (!d)
		return;
	if (pread(vm->stats_fd, d, dsz * h.num_desc, h.desc_offset) == (ssize_t)(dsz * h.num_desc)) {
		for (uint32_t k = 0; k < h.num_desc; k++) {
			struct kvm_stats_desc *e = (struct kvm_stats_desc *)(d + k * dsz);
			e->name[h.name_size - 1] = 0;
			for (int i = 0; i < CB_KVM_NSTATS; i++) {
				uint64_t v;
				if (strcmp(e->name, stat_names[i]) == 0 && e->size == 1 &&
				    pread(vm->stats_fd, &v, sizeof(v), h.data_offset + e->offset) == (ssize_t)sizeof(v))
					vals[i] = (int64_t)v;
			}
		}
	}
	free(d);
}

void cb_kvm_stats_delta(int64_t *out, const int64_t *before, const int64_t *after)
{
	for (int i = 0; i < CB_KVM_NSTATS; i++)
		out[i] = (before[i] < 0 || after[i] < 0) ? -1 : after[i] - before[i];
}

int cb_kvm_run(cb_kvm_vm *vm, char *err, int errlen)
{
	for (;;) {
		if (ioctl(vm->vcpu_fd, KVM_RUN, 0) == 0)
			return 0;
		if (errno != EINTR && errno != EAGAIN) {
			seterr(err, errlen, "KVM_RUN");
			return -1;
		}
	}
}

void cb_kvm_bad_exit(cb_kvm_vm *vm, const char *want, char *err, int errlen)
{
	struct kvm_run *r = vm->run;
	struct kvm_regs regs;
	unsigned long long rip = 0;
	if (xioctl(vm->vcpu_fd, KVM_GET_REGS, (unsigned long)(&regs)) == 0)
		rip = regs.rip;
	if (r->exit_reason == KVM_EXIT_IO)
		snprintf(err, (size_t)errlen, "guest exit: want %s, got I/O %s port 0x%x (rip 0x%llx)",
			 want, r->io.direction == KVM_EXIT_IO_OUT ? "out" : "in", r->io.port, rip);
	else if (r->exit_reason == KVM_EXIT_INTERNAL_ERROR)
		snprintf(err, (size_t)errlen, "guest exit: want %s, got internal error suberror %u (rip 0x%llx)",
			 want, r->internal.suberror, rip);
	else if (r->exit_reason == KVM_EXIT_FAIL_ENTRY)
		snprintf(err, (size_t)errlen, "guest exit: want %s, got failed entry 0x%llx",
			 want, (unsigned long long)r->fail_entry.hardware_entry_failure_reason);
	else
		snprintf(err, (size_t)errlen, "guest exit: want %s, got exit reason %u (rip 0x%llx)",
			 want, r->exit_reason, rip);
}

int cb_kvm_run_to_port(cb_kvm_vm *vm, uint16_t port, char *err, int errlen)
{
	if (cb_kvm_run(vm, err, errlen) < 0)
		return -1;
	if (vm->run->exit_reason != KVM_EXIT_IO || vm->run->io.port != port) {
		char want[32];
		snprintf(want, sizeof want, "out to port 0x%x", port);
		cb_kvm_bad_exit(vm, want, err, errlen);
		return -1;
	}
	return 0;
}

int cb_kvm_set_reg_rsi(cb_kvm_vm *vm, uint64_t v, char *err, int errlen)
{
	struct kvm_regs regs;
	if (xioctl(vm->vcpu_fd, KVM_GET_REGS, (unsigned long)(&regs)) < 0) {
		seterr(err, errlen, "KVM_GET_REGS");
		return -1;
	}
	regs.rsi = v;
	if (xioctl(vm->vcpu_fd, KVM_SET_REGS, (unsigned long)(&regs)) < 0) {
		seterr(err, errlen, "KVM_SET_REGS");
		return -1;
	}
	return 0;
}

int cb_kvm_ioeventfd(cb_kvm_vm *vm, uint16_t port, int efd, int assign, char *err, int errlen)
{
	struct kvm_ioeventfd io = {
		.addr = port,
		.len = 1,
		.fd = efd,
		.flags = KVM_IOEVENTFD_FLAG_PIO | (assign ? 0 : KVM_IOEVENTFD_FLAG_DEASSIGN),
	};
	if (xioctl(vm->vm_fd, KVM_IOEVENTFD, (unsigned long)(&io)) < 0) {
		seterr(err, errlen, "KVM_IOEVENTFD");
		return -1;
	}
	return 0;
}

/* Route gsi to an MSI with the given vector to APIC ID 0 (the only vCPU),
 * bind efd to it, and software-enable the vCPU's local APIC. The routing
 * table is replaced whole by KVM_SET_GSI_ROUTING, so all routes of a VM are
 * passed at once: gsi i gets vectors[i]. */
static int set_msi_routes(cb_kvm_vm *vm, const uint8_t *vectors, int n, char *err, int errlen)
{
	size_t sz = sizeof(struct kvm_irq_routing) + (size_t)n * sizeof(struct kvm_irq_routing_entry);
	struct kvm_irq_routing *r = calloc(1, sz);
	if (!r) {
		snprintf(err, (size_t)errlen, "out of memory");
		return -1;
	}
	r->nr = (uint32_t)n;
	for (int i = 0; i < n; i++) {
		r->entries[i].gsi = (uint32_t)i;
		r->entries[i].type = KVM_IRQ_ROUTING_MSI;
		r->entries[i].u.msi.address_lo = 0xFEE00000u; /* destination APIC ID 0, physical */
		r->entries[i].u.msi.address_hi = 0;
		r->entries[i].u.msi.data = vectors[i]; /* fixed delivery, edge */
	}
	int rc = xioctl(vm->vm_fd, KVM_SET_GSI_ROUTING, (unsigned long)(r));
	free(r);
	if (rc < 0) {
		seterr(err, errlen, "KVM_SET_GSI_ROUTING");
		return -1;
	}
	return 0;
}

int cb_kvm_msi_setup(cb_kvm_vm *vm, const uint8_t *vectors, int n, char *err, int errlen)
{
	if (set_msi_routes(vm, vectors, n, err, errlen) < 0)
		return -1;
	struct kvm_lapic_state lapic;
	if (xioctl(vm->vcpu_fd, KVM_GET_LAPIC, (unsigned long)(&lapic)) < 0) {
		seterr(err, errlen, "KVM_GET_LAPIC");
		return -1;
	}
	uint32_t svr;
	memcpy(&svr, lapic.regs + 0xF0, 4);
	svr |= 0x1FF; /* APIC software enable, spurious vector 0xFF */
	memcpy(lapic.regs + 0xF0, &svr, 4);
	uint32_t zero = 0;
	memcpy(lapic.regs + 0x80, &zero, 4); /* TPR 0: accept every vector */
	if (xioctl(vm->vcpu_fd, KVM_SET_LAPIC, (unsigned long)(&lapic)) < 0) {
		seterr(err, errlen, "KVM_SET_LAPIC");
		return -1;
	}
	return 0;
}

int cb_kvm_irqfd(cb_kvm_vm *vm, uint32_t gsi, int efd, int assign, char *err, int errlen)
{
	struct kvm_irqfd f = {
		.fd = (uint32_t)efd,
		.gsi = gsi,
		.flags = assign ? 0 : KVM_IRQFD_FLAG_DEASSIGN,
	};
	if (xioctl(vm->vm_fd, KVM_IRQFD, (unsigned long)(&f)) < 0) {
		seterr(err, errlen, "KVM_IRQFD");
		return -1;
	}
	return 0;
}

int cb_kvm_set_halt_poll(cb_kvm_vm *vm, int64_t ns, char *err, int errlen)
{
	struct kvm_enable_cap cap = {.cap = KVM_CAP_HALT_POLL};
	cap.args[0] = (uint64_t)ns;
	if (xioctl(vm->vm_fd, KVM_ENABLE_CAP, (unsigned long)(&cap)) < 0) {
		seterr(err, errlen, "KVM_ENABLE_CAP(KVM_CAP_HALT_POLL)");
		return -1;
	}
	return 0;
}

int cb_kvm_pin_open(int cpu, char *err, int errlen)
{
	if (cb_pin_self(cpu, err, errlen) != 0)
		return -1;
	return cb_kvm_open_dev(err, errlen);
}

int cb_kvm_side_open(cb_kvm_vm *vm, int *kvm, int cpu, int mode, int flags,
		     const cb_kvm_image *img, char *err, int errlen)
{
	*kvm = cb_kvm_pin_open(cpu, err, errlen);
	if (*kvm < 0)
		return -1;
	if (cb_kvm_vm_open(vm, *kvm, mode, flags, img, err, errlen) < 0) {
		close(*kvm);
		*kvm = -1;
		return -1;
	}
	return 0;
}

void cb_kvm_side_close(cb_kvm_vm *vm, int kvm)
{
	cb_kvm_vm_close(vm);
	close(kvm);
}

/* The vCPU statistics are read outside the interval the switches are
 * counted over, so that reading them is not part of the block's counts. */
void cb_kvm_meter_begin(cb_kvm_meter *m, cb_kvm_vm *vm, const cb_block *b)
{
	cb_kvm_stats_read(vm, m->st0);
	cb_counter_begin(&m->ctr, b);
}

void cb_kvm_meter_end(cb_kvm_meter *m, cb_kvm_vm *vm, cb_counts *side, cb_kvm_out *o)
{
	int64_t st1[CB_KVM_NSTATS];
	cb_counter_end(&m->ctr, side);
	cb_kvm_stats_read(vm, st1);
	cb_kvm_stats_delta(o->stat, m->st0, st1);
}
