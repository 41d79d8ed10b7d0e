//go:build linux && amd64

/*
 * kvm_exit.c: VM exits on one vCPU, timed from the host around KVM_RUN.
 *
 * cb_kvm_exit_user — one op is an exit to user space and back: the guest
 *   executes `out` to an unassigned port, KVM_RUN returns KVM_EXIT_IO to this
 *   VMM, which checks the port and calls KVM_RUN again (E-user). This is
 *   kvm-unit-tests' inl_from_qemu on a VMM of our own (x86/vmexit.c; Bonzini,
 *   commit 00bfecaa), and the KVM_RUN loop of LWN "Using the KVM API".
 * cb_kvm_exit_kernel — one op is an exit completed inside the host kernel:
 *   param 0: `out` to a port bound to an ioeventfd (vmexit.c outl_to_kernel);
 *   param 1: `cpuid` (vmexit.c cpuid). The guest loops `iters` times (plus
 *   its dec/jnz, and an xor for cpuid), then one `out` to the unassigned port
 *   ends the sample: that one user-space exit is 1/iters of the sample and
 *   is not subtracted. vmexit.c times its loop with the guest TSC; here the
 *   host stamps KVM_RUN, so a sample is what the host waited for.
 * cb_kvm_selfcheck — one op is one pass of `pad` x `inc %ecx`, `out`, `jmp`:
 *   an E-user round trip with pad extra guest instructions. The slope over
 *   pad (0, 100, 1000) is the cost of one guest instruction: well under 1 ns
 *   when the guest runs on the CPU, hundreds of ns when KVM emulates it.
 *
 * cb_block: arg = guest mode (bits 32..39: CB_KVM_GUEST_*) | parameter (low
 * 32 bits: the exit_kernel method, or the self-check padding); cpu_a pins
 * the vCPU thread; fd[] unused (the kernel opens /dev/kvm itself). Counts:
 * a.ops = exits the VMM saw on the expected port (user exits), or the
 * ioeventfd's counter (in-kernel); out->stat = KVM's own vCPU statistics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kvm_vmm.h"

/* The timed loop of cb_kvm_exit_user and cb_kvm_selfcheck: every KVM_RUN
 * must come back with an `out` to the user port. */
static int user_exit_loop(cb_block *b, cb_kvm_out *o, int mode, const cb_kvm_image *img)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	cb_kvm_vm vm;
	int kvm;
	if (cb_kvm_side_open(&vm, &kvm, b->cpu_a, mode, CB_KVM_STATS, img, err, errlen) < 0)
		return -1;
	/* First entry outside the block: it faults in the guest pages. */
	int rc = cb_kvm_run_to_port(&vm, CB_KVM_PORT_USER, err, errlen);
	cb_kvm_meter m;
	uint64_t seen = 0;
	cb_kvm_meter_begin(&m, &vm, b);
	for (uint32_t s = 0; rc == 0 && s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		for (uint64_t i = 0; i < b->iters; i++) {
			/* KVM_RUN again after a signal (not a guest exit), then the
			 * exit must be the guest's out to the user port. */
			if (cb_kvm_run_to_port(&vm, CB_KVM_PORT_USER, err, errlen) < 0) {
				rc = -1;
				break;
			}
			seen++;
		}
		cb_stamp t1 = cb_stamp_now();
		cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
	}
	cb_kvm_meter_end(&m, &vm, &b->a, o);
	b->a.ops = seen;
	o->guest_ops = seen;
	cb_kvm_side_close(&vm, kvm);
	return rc;
}

int cb_kvm_exit_user(cb_block *b, cb_kvm_out *o)
{
	int mode = CB_KVM_ARG_MODE(b->arg);
	cb_kvm_image img;
	cb_kvm_image_user(mode, &img);
	return user_exit_loop(b, o, mode, &img);
}

int cb_kvm_selfcheck(cb_block *b, cb_kvm_out *o)
{
	int mode = CB_KVM_ARG_MODE(b->arg);
	int64_t pad = CB_KVM_ARG_PARAM(b->arg);
	uint8_t *code = malloc(CB_KVM_CODE_MAX);
	if (!code) {
		snprintf(b->err, sizeof(b->err), "out of memory");
		return -1;
	}
	size_t n = pad < 0 ? 0 : cb_kvm_build_padded(code, CB_KVM_CODE_MAX, (uint32_t)pad, mode);
	if (n == 0) {
		free(code);
		snprintf(b->err, sizeof(b->err), "self-check padding %lld out of range (0..%u)",
			 (long long)pad, (CB_KVM_CODE_MAX - 16) / 2);
		return -1;
	}
	cb_kvm_image img = {code, n, 0};
	int rc = user_exit_loop(b, o, mode, &img);
	free(code);
	return rc;
}

int cb_kvm_exit_kernel(cb_block *b, cb_kvm_out *o)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	int mode = CB_KVM_ARG_MODE(b->arg);
	int64_t method = CB_KVM_ARG_PARAM(b->arg);
	if (mode == CB_KVM_GUEST_REAL) {
		snprintf(err, (size_t)errlen, "the in-kernel exit guests are 64-bit only");
		return -1;
	}
	if (method != 0 && method != 1) {
		snprintf(err, (size_t)errlen, "unknown in-kernel exit method %lld (0: ioeventfd, 1: cpuid)", (long long)method);
		return -1;
	}
	if (b->iters > 0xffffffffull) {
		snprintf(err, (size_t)errlen, "iters too large");
		return -1;
	}
	cb_kvm_image img;
	cb_kvm_image_get(method == 0 ? CB_KVM_IMG_IOEVENTFD : CB_KVM_IMG_CPUID, &img);
	cb_kvm_vm vm;
	int kvm;
	if (cb_kvm_side_open(&vm, &kvm, b->cpu_a, mode, CB_KVM_STATS, &img, err, errlen) < 0)
		return -1;
	int efd = -1, rc = 0;
	if (method == 0) {
		efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		if (efd < 0) {
			snprintf(err, (size_t)errlen, "eventfd: %s", strerror(errno));
			rc = -1;
		} else {
			rc = cb_kvm_ioeventfd(&vm, CB_KVM_PORT_KERNEL, efd, 1, err, errlen);
		}
	}
	/* A first pass of one op outside the block faults the guest pages in. */
	cb_kvm_poke(&vm, CB_KVM_DATA_ITERS, 1);
	if (rc == 0)
		rc = cb_kvm_run_to_port(&vm, CB_KVM_PORT_USER, err, errlen);
	cb_kvm_poke(&vm, CB_KVM_DATA_ITERS, b->iters);
	uint64_t warm = 0;
	if (rc == 0 && efd >= 0 && read(efd, &warm, sizeof(warm)) != (ssize_t)sizeof(warm))
		warm = 0;

	cb_kvm_meter m;
	uint64_t samples_done = 0;
	cb_kvm_meter_begin(&m, &vm, b);
	for (uint32_t s = 0; rc == 0 && s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		rc = cb_kvm_run_to_port(&vm, CB_KVM_PORT_USER, err, errlen);
		cb_stamp t1 = cb_stamp_now();
		if (rc == 0) {
			cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
			samples_done++;
		}
	}
	cb_kvm_meter_end(&m, &vm, &b->a, o);
	b->a.ops = samples_done * b->iters;
	if (efd >= 0) {
		/* The eventfd counted every `out` KVM completed in the kernel. */
		uint64_t n = 0;
		if (read(efd, &n, sizeof(n)) != (ssize_t)sizeof(n))
			n = 0;
		o->guest_ops = n;
		b->a.ops = n;
	}
	cb_kvm_vm_close(&vm);
	if (efd >= 0)
		close(efd);
	close(kvm);
	return rc;
}
