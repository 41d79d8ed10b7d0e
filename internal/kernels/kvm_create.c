//go:build linux && amd64

/*
 * kvm_create.c: what a minimal VM costs to create and to keep.
 *
 * cb_kvm_create — one op is the creation of a minimal VM up to its first
 *   exit: KVM_CREATE_VM, guest memory (mmap + KVM_SET_USER_MEMORY_REGION,
 *   the page tables and code written into it), KVM_CREATE_VCPU, mmap of
 *   kvm_run, KVM_SET_CPUID2, KVM_SET_SREGS/KVM_SET_REGS, and the first
 *   KVM_RUN until the guest's first `out`. This is the part of a VMM's
 *   start that the KVM API does (the sequence of Josh Triplett's "Using the
 *   KVM API", LWN, 2015, https://lwn.net/Articles/658511/); it is not a
 *   guest OS boot and is not comparable to Firecracker's 125 ms
 *   boot-to-init. /dev/kvm is opened once, outside the
 *   timing, as a VMM process does; the host's CPUID table is fetched once
 *   (a VMM caches it too). The VMs of a sample are closed after its end
 *   stamp: teardown is not part of the figure.
 *   cb_block: iters VMs per sample; arg bits 32..39 = guest mode; cpu_a pins.
 *   a.ops = VMs that reached their first exit.
 * cb_kvm_memory — not timed: create arg (low 32 bits) minimal VMs, each run
 *   to its first exit, keep them all open, and read this process's
 *   /proc/self/smaps_rollup and /proc/self/status and the system's
 *   /proc/meminfo before and after; then release them all. The deltas
 *   divided by the VMs created are the memory one VM keeps: resident and
 *   proportional set size in the VMM process, and the kernel's share
 *   (KVM's structures are slab/vmalloc memory, its shadow or TDP page tables
 *   SecPageTables). One throw-away VM is created and closed first so
 *   one-time set-up (module caches, the CPUID table) is not counted. If the
 *   machine refuses a VM before the target, the count reached and the reason
 *   are reported.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kvm_vmm.h"

static int create_one(int kvm, int mode, cb_kvm_vm *vm, char *err, int errlen)
{
	cb_kvm_image img;
	cb_kvm_image_user(mode, &img);
	if (cb_kvm_vm_open(vm, kvm, mode, 0, &img, err, errlen) < 0)
		return -1;
	if (cb_kvm_run_to_port(vm, CB_KVM_PORT_USER, err, errlen) < 0) {
		cb_kvm_vm_close(vm);
		return -1;
	}
	return 0;
}

int cb_kvm_create(cb_block *b, cb_kvm_out *o)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	int mode = CB_KVM_ARG_MODE(b->arg);
	if (b->iters > 4096) {
		snprintf(err, (size_t)errlen, "at most 4096 VM creations per sample (got %llu)",
			 (unsigned long long)b->iters);
		return -1;
	}
	int kvm = cb_kvm_pin_open(b->cpu_a, err, errlen);
	if (kvm < 0)
		return -1;
	cb_kvm_vm *vms = calloc(b->iters, sizeof(*vms));
	if (!vms) {
		close(kvm);
		snprintf(err, (size_t)errlen, "out of memory");
		return -1;
	}
	for (uint64_t i = 0; i < b->iters; i++)
		cb_kvm_vm_init(&vms[i]);
	/* One creation outside the block: the CPUID table and first-use paths. */
	cb_kvm_vm first;
	int rc = create_one(kvm, mode, &first, err, errlen);
	if (rc == 0)
		cb_kvm_vm_close(&first);
	cb_counter ctr;
	uint64_t made = 0;
	cb_counter_begin(&ctr, b);
	for (uint32_t s = 0; rc == 0 && s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		for (uint64_t i = 0; i < b->iters; i++) {
			if (create_one(kvm, mode, &vms[i], err, errlen) < 0) {
				rc = -1;
				break;
			}
			made++;
		}
		cb_stamp t1 = cb_stamp_now();
		if (rc == 0)
			cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
		for (uint64_t i = 0; i < b->iters; i++)
			cb_kvm_vm_close(&vms[i]);
	}
	cb_counter_end(&ctr, &b->a);
	b->a.ops = made;
	o->guest_ops = made;
	free(vms);
	close(kvm);
	return rc;
}

/* ---- memory per VM ---- */

static const struct {
	int idx;
	const char *file;
	const char *key;
} mem_fields[] = {
	{CB_KVM_MEM_RSS, "/proc/self/smaps_rollup", "Rss:"},
	{CB_KVM_MEM_PSS, "/proc/self/smaps_rollup", "Pss:"},
	{CB_KVM_MEM_PSS_ANON, "/proc/self/smaps_rollup", "Pss_Anon:"},
	{CB_KVM_MEM_PSS_FILE, "/proc/self/smaps_rollup", "Pss_File:"},
	{CB_KVM_MEM_PSS_SHMEM, "/proc/self/smaps_rollup", "Pss_Shmem:"},
	{CB_KVM_MEM_VMSIZE, "/proc/self/status", "VmSize:"},
	{CB_KVM_MEM_VMPTE, "/proc/self/status", "VmPTE:"},
	{CB_KVM_MEM_MEMFREE, "/proc/meminfo", "MemFree:"},
	{CB_KVM_MEM_MEMAVAILABLE, "/proc/meminfo", "MemAvailable:"},
	{CB_KVM_MEM_SLAB, "/proc/meminfo", "Slab:"},
	{CB_KVM_MEM_SUNRECLAIM, "/proc/meminfo", "SUnreclaim:"},
	{CB_KVM_MEM_KERNELSTACK, "/proc/meminfo", "KernelStack:"},
	{CB_KVM_MEM_PAGETABLES, "/proc/meminfo", "PageTables:"},
	{CB_KVM_MEM_SECPAGETABLES, "/proc/meminfo", "SecPageTables:"},
	{CB_KVM_MEM_VMALLOCUSED, "/proc/meminfo", "VmallocUsed:"},
	{CB_KVM_MEM_PERCPU, "/proc/meminfo", "Percpu:"},
	{CB_KVM_MEM_ANONPAGES, "/proc/meminfo", "AnonPages:"},
};

/* The /proc key ("Rss:") of field i, for the Go side. */
const char *cb_kvm_mem_key(int i)
{
	for (size_t k = 0; k < sizeof(mem_fields) / sizeof(mem_fields[0]); k++)
		if (mem_fields[k].idx == i)
			return mem_fields[k].key;
	return "";
}

/* Read "Key:  value kB" lines; the three files are read with stdio into a
 * fixed buffer, nothing is allocated per VM. */
static void mem_snapshot(int64_t *v)
{
	static const char *files[] = {"/proc/self/smaps_rollup", "/proc/self/status", "/proc/meminfo"};
	char line[256];
	for (int i = 0; i < CB_KVM_MEM_NFIELDS; i++)
		v[i] = -1;
	for (size_t f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		FILE *fp = fopen(files[f], "re");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp)) {
			for (size_t k = 0; k < sizeof(mem_fields) / sizeof(mem_fields[0]); k++) {
				size_t n = strlen(mem_fields[k].key);
				if (strcmp(mem_fields[k].file, files[f]) == 0 && strncmp(line, mem_fields[k].key, n) == 0)
					v[mem_fields[k].idx] = strtoll(line + n, NULL, 10);
			}
		}
		fclose(fp);
	}
}

int cb_kvm_memory(cb_block *b, cb_kvm_mem *m)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	int mode = CB_KVM_ARG_MODE(b->arg);
	int64_t n = CB_KVM_ARG_PARAM(b->arg);
	memset(m, 0, sizeof(*m));
	if (n < 1 || n > 100000) {
		snprintf(err, (size_t)errlen, "VM count %lld out of range 1..100000", (long long)n);
		return -1;
	}
	m->requested = (int32_t)n;
	m->fds_per_vm = 2; /* the VM and its vCPU */
	int kvm = cb_kvm_pin_open(b->cpu_a, err, errlen);
	if (kvm < 0)
		return -1;
	cb_kvm_vm *vms = calloc((size_t)n, sizeof(*vms));
	if (!vms) {
		close(kvm);
		snprintf(err, (size_t)errlen, "out of memory");
		return -1;
	}
	cb_kvm_vm first;
	if (create_one(kvm, mode, &first, err, errlen) < 0) {
		free(vms);
		close(kvm);
		return -1;
	}
	cb_kvm_vm_close(&first);
	mem_snapshot(m->before);
	char why[160];
	for (int64_t i = 0; i < n; i++) {
		cb_kvm_vm_init(&vms[i]);
		if (create_one(kvm, mode, &vms[i], why, sizeof(why)) < 0) {
			snprintf(m->limit, sizeof(m->limit), "VM %lld: %s", (long long)i + 1, why);
			break;
		}
		m->created++;
	}
	mem_snapshot(m->after);
	for (int64_t i = 0; i < m->created; i++)
		cb_kvm_vm_close(&vms[i]);
	free(vms);
	close(kvm);
	if (m->created == 0) {
		snprintf(err, (size_t)errlen, "no VM could be created: %.170s", m->limit);
		return -1;
	}
	return 0;
}
