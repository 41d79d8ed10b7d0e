//go:build linux && amd64

/*
 * kvm_switch.c: a switch from one VM to another — two VMs, each with one
 * vCPU, owned by two processes (side A times, side B is the partner, run by
 * a re-executed ctxbench) pinned to one CPU. One op is a round trip
 * A -> B -> A: two hops. Method: a KVM vCPU is a host thread, so a
 * guest-to-guest switch is an exit, a host process switch and an entry
 * (Avi Kivity's original KVM submission to Linux, 2006; Landau, Ben-Yehuda
 * and Gordon, "SplitX: Split Guest/Hypervisor Execution on Multi-Core",
 * WIOV'11).
 *
 * Variant U (through user space), cb_kvm_vmswitch_u_a / _b:
 *   A: KVM_RUN until guest A's `out` to the user port, write a 4-byte token
 *   to B, block reading B's answer. B: read the token, KVM_RUN until guest
 *   B's `out`, write the token back. Each hop is an exit to user space, a
 *   pipe write, a process switch and a KVM_RUN entry on the other side.
 *   fd[0]: read end of the pipe from the other side, fd[1]: write end of the
 *   pipe to it (the descriptors of cb_proc_pipe_a/b). arg: guest mode
 *   (CB_KVM_GUEST_*, bits 32..39). Protocol: B writes one token once its VM
 *   has run to its first exit, A reads it before its first sample; then each
 *   side does (warmup + samples) * iters ops. A dead side gives the other
 *   end of file.
 * Variant K (in the kernel), cb_kvm_vmswitch_k_a / _b:
 *   each guest's doorbell port is a KVM_IOEVENTFD whose eventfd is a
 *   KVM_IRQFD (MSI route, vector 0x40) of the other VM; no VMM code runs per
 *   op. Guest A rings, halts; B's vCPU thread wakes (irqfd -> LAPIC -> kick),
 *   B takes the interrupt, EOIs, rings A, halts. The guests (kvm_guest.c,
 *   DOORBELL) count the round trips; A's guest exits to its VMM every iters
 *   round trips, which is where A stamps samples. The in-kernel irqchip is
 *   needed, so the guests run at CPL0 (hlt and interrupt handlers are kernel
 *   code): on an emulating backend their instructions are emulated.
 *   fd[0]: eventfd A->B (A's ioeventfd, B's irqfd), fd[1]: eventfd B->A.
 *   arg (low 32 bits, signed): per-VM halt-polling limit in ns set with
 *   KVM_CAP_HALT_POLL; -1 leaves KVM's default (module halt_poll_ns).
 *   Protocol: B writes 1 to fd[1] from user space when its VM is ready; A
 *   reads it before binding its irqfd to fd[1]. A 1 s APIC-timer tick in
 *   each guest exits to its VMM, which gives up when the other side has not
 *   answered for CB_KVM_K_STALL_S seconds (a dead partner cannot hang it).
 *
 * Both sides count their own context switches over the whole block
 * (cb_counter); out->stat holds that side's vCPU statistics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/kvm.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "kvm_vmm.h"

#define CB_KVM_TOKEN_READY 0x52454459 /* "READY" from B once its VM is runnable */
#define CB_KVM_K_STALL_S 10           /* variant K: ticks without progress before giving up */
#define CB_KVM_K_READY_MS 60000       /* variant K: how long A waits for B to be ready */

/* tok_io moves one token; on failure errno is the error, or 0 for end of
 * file (as pingpong.c's pipe_io). */
static int tok_io(int fd, int wr, int *v)
{
	for (;;) {
		ssize_t n = wr ? write(fd, v, sizeof(*v)) : read(fd, v, sizeof(*v));
		if (n == (ssize_t)sizeof(*v))
			return 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n >= 0)
			errno = 0;
		return -1;
	}
}

/* A's part of a round trip once its guest has exited: the token to B, and
 * B's answer back. Inline: it is half of variant U's timed op. */
static inline int hop_to_b(cb_block *b, int *tok)
{
	if (tok_io(b->fd[1], 1, tok) < 0 || tok_io(b->fd[0], 0, tok) < 0) {
		snprintf(b->err, sizeof(b->err), "partner closed the pipe (%s)",
			 errno ? strerror(errno) : "end of file");
		return -1;
	}
	return 0;
}

/* Open /dev/kvm and a VM for one side; the first KVM_RUN (to the first exit)
 * happens here, outside the block. */
static int side_vm(cb_block *b, int cpu, int mode, cb_kvm_vm *vm, int *kvm)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	cb_kvm_image img;
	cb_kvm_image_user(mode, &img);
	if (cb_kvm_side_open(vm, kvm, cpu, mode, CB_KVM_STATS, &img, err, errlen) < 0)
		return -1;
	if (cb_kvm_run_to_port(vm, CB_KVM_PORT_USER, err, errlen) < 0) {
		cb_kvm_side_close(vm, *kvm);
		*kvm = -1;
		return -1;
	}
	return 0;
}

int cb_kvm_vmswitch_u_a(cb_block *b, cb_kvm_out *o)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	cb_kvm_vm vm;
	int kvm = -1;
	if (side_vm(b, b->cpu_a, CB_KVM_ARG_MODE(b->arg), &vm, &kvm) < 0)
		return -1;
	int tok = 0, rc = 0;
	if (tok_io(b->fd[0], 0, &tok) < 0 || tok != CB_KVM_TOKEN_READY) {
		snprintf(err, (size_t)errlen, "partner VM did not come up (%s)",
			 tok == 0 ? "end of file" : "unexpected token");
		rc = -1;
	}
	cb_kvm_meter m;
	uint64_t done = 0;
	cb_kvm_meter_begin(&m, &vm, b);
	for (uint32_t s = 0; rc == 0 && s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		for (uint64_t i = 0; i < b->iters; i++) {
			if (cb_kvm_run_to_port(&vm, CB_KVM_PORT_USER, err, errlen) < 0 || hop_to_b(b, &tok) < 0) {
				rc = -1;
				break;
			}
			done++;
		}
		cb_stamp t1 = cb_stamp_now();
		if (rc == 0)
			cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
	}
	cb_kvm_meter_end(&m, &vm, &b->a, o);
	b->a.ops = done;
	o->guest_ops = done;
	cb_kvm_side_close(&vm, kvm);
	return rc;
}

int cb_kvm_vmswitch_u_b(cb_block *b, cb_kvm_out *o)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	cb_kvm_vm vm;
	int kvm = -1;
	if (side_vm(b, b->cpu_b, CB_KVM_ARG_MODE(b->arg), &vm, &kvm) < 0)
		return -1; /* exiting closes our pipe ends: A sees end of file */
	uint64_t total = (uint64_t)(b->warmup + b->samples) * b->iters, done = 0;
	int tok = CB_KVM_TOKEN_READY, rc = 0;
	cb_kvm_meter m;
	cb_kvm_meter_begin(&m, &vm, b);
	cb_note_cpu(&b->b);
	if (tok_io(b->fd[1], 1, &tok) < 0) {
		snprintf(err, (size_t)errlen, "cannot signal readiness: %s", strerror(errno));
		rc = -1;
	}
	for (; rc == 0 && done < total; done++) {
		if (tok_io(b->fd[0], 0, &tok) < 0)
			break;
		if (cb_kvm_run_to_port(&vm, CB_KVM_PORT_USER, err, errlen) < 0) {
			rc = -1;
			break;
		}
		if (tok_io(b->fd[1], 1, &tok) < 0)
			break;
	}
	cb_note_cpu(&b->b);
	cb_kvm_meter_end(&m, &vm, &b->b, o);
	b->b.ops = done;
	o->guest_ops = done;
	cb_kvm_side_close(&vm, kvm);
	if (rc == 0 && done != total) {
		snprintf(err, (size_t)errlen, "partner side stopped after %llu of %llu ops",
			 (unsigned long long)done, (unsigned long long)total);
		rc = -1;
	}
	return rc;
}

/* ---- variant K ---- */

#define K_VEC_RING 0x40
#define K_VEC_TICK 0x42

static void idt_gate(uint8_t *idt, int vec, uint64_t handler)
{
	uint8_t *g = idt + vec * 16;
	memset(g, 0, 16);
	g[0] = (uint8_t)handler;
	g[1] = (uint8_t)(handler >> 8);
	g[2] = 0x08; /* selector: 64-bit code */
	g[5] = 0x8E; /* present, DPL0, 64-bit interrupt gate */
	g[6] = (uint8_t)(handler >> 16);
	g[7] = (uint8_t)(handler >> 24);
	/* bytes 8..11: handler bits 32..63 are zero (the guest is below 4 GiB) */
}

/* Build a doorbell VM: in-kernel irqchip, IDT with the ring and tick
 * handlers, gsi 0 -> MSI vector 0x40, ring port -> ioeventfd ring_fd. The
 * irqfd (wake_fd) is bound by the caller when the protocol allows. */
static int k_vm(cb_block *b, int cpu, int initiator, int ring_fd, cb_kvm_vm *vm, int *kvm, cb_kvm_out *o)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	cb_kvm_image img;
	const uint8_t vec[1] = {K_VEC_RING};
	int64_t poll = CB_KVM_ARG_PARAM(b->arg);
	if (CB_KVM_ARG_MODE(b->arg) != CB_KVM_GUEST_KERNEL) {
		snprintf(err, (size_t)errlen, "variant K runs 64-bit CPL0 guests only (interrupt handlers and hlt)");
		return -1;
	}
	cb_kvm_image_get(CB_KVM_IMG_DOORBELL, &img);
	if (cb_kvm_side_open(vm, kvm, cpu, CB_KVM_GUEST_KERNEL, CB_KVM_IRQCHIP | CB_KVM_STATS, &img, err, errlen) < 0)
		return -1;
	uint8_t *idt = vm->mem + CB_KVM_GPA_IDT;
	idt_gate(idt, K_VEC_RING, CB_KVM_GPA_CODE + cb_kvm_doorbell_ring_off());
	idt_gate(idt, K_VEC_TICK, CB_KVM_GPA_CODE + cb_kvm_doorbell_tick_off());
	o->halt_poll_ns = -1;
	if (poll >= 0) {
		if (cb_kvm_set_halt_poll(vm, poll, err, errlen) < 0)
			goto fail;
		o->halt_poll_ns = poll;
	}
	if (cb_kvm_msi_setup(vm, vec, 1, err, errlen) < 0 ||
	    cb_kvm_ioeventfd(vm, CB_KVM_PORT_DOORBELL, ring_fd, 1, err, errlen) < 0 ||
	    cb_kvm_set_reg_rsi(vm, initiator ? 1 : 0, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	cb_kvm_side_close(vm, *kvm);
	*kvm = -1;
	return -1;
}

/* KVM_RUN until the guest exits to the sample port; watchdog ticks in
 * between check that the round-trip count still moves: first_limit ticks
 * before the first round trip (the other side may still be starting), limit
 * ticks after. */
static int k_run(cb_kvm_vm *vm, uint64_t *last_total, int *stalled, int first_limit, int limit,
		 char *err, int errlen)
{
	for (;;) {
		if (ioctl(vm->vcpu_fd, KVM_RUN, 0) < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			snprintf(err, (size_t)errlen, "KVM_RUN: %s", strerror(errno));
			return -1;
		}
		if (vm->run->exit_reason != KVM_EXIT_IO) {
			cb_kvm_bad_exit(vm, "an I/O exit", err, errlen);
			return -1;
		}
		if (vm->run->io.port == CB_KVM_PORT_USER)
			return 0;
		if (vm->run->io.port != CB_KVM_PORT_TICK) {
			cb_kvm_bad_exit(vm, "an I/O exit on the sample or tick port", err, errlen);
			return -1;
		}
		uint64_t t = cb_kvm_peek(vm, CB_KVM_DATA_TOTAL);
		if (t != *last_total) {
			*last_total = t;
			*stalled = 0;
		} else if (++*stalled >= (t == 0 ? first_limit : limit)) {
			snprintf(err, (size_t)errlen, "the other VM stopped answering (no round trip for %d s)", *stalled);
			return -1;
		}
	}
}

int cb_kvm_vmswitch_k_a(cb_block *b, cb_kvm_out *o)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	cb_kvm_vm vm;
	int kvm = -1, rc = 0;
	if (k_vm(b, b->cpu_a, 1, b->fd[0], &vm, &kvm, o) < 0)
		return -1;
	/* Wait for B's readiness on fd[1] before binding fd[1] as our irqfd. */
	struct pollfd p = {.fd = b->fd[1], .events = POLLIN};
	int pr;
	do
		pr = poll(&p, 1, CB_KVM_K_READY_MS);
	while (pr < 0 && errno == EINTR);
	uint64_t ready = 0;
	if (pr <= 0 || read(b->fd[1], &ready, sizeof(ready)) != (ssize_t)sizeof(ready)) {
		snprintf(err, (size_t)errlen, "partner VM did not come up within %d s", CB_KVM_K_READY_MS / 1000);
		rc = -1;
	}
	if (rc == 0)
		rc = cb_kvm_irqfd(&vm, 0, b->fd[1], 1, err, errlen);
	cb_kvm_poke(&vm, CB_KVM_DATA_TARGET, b->iters);
	cb_kvm_meter m;
	uint64_t last = 0, samples_done = 0;
	int stalled = 0;
	cb_kvm_meter_begin(&m, &vm, b);
	for (uint32_t s = 0; rc == 0 && s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		rc = k_run(&vm, &last, &stalled, CB_KVM_K_STALL_S, CB_KVM_K_STALL_S, err, errlen);
		cb_stamp t1 = cb_stamp_now();
		if (rc == 0) {
			cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
			samples_done++;
		}
	}
	cb_kvm_meter_end(&m, &vm, &b->a, o);
	o->guest_ops = cb_kvm_peek(&vm, CB_KVM_DATA_TOTAL);
	b->a.ops = samples_done * b->iters;
	if (rc == 0 && o->guest_ops != b->a.ops) {
		snprintf(err, (size_t)errlen, "guest A counted %llu round trips, expected %llu",
			 (unsigned long long)o->guest_ops, (unsigned long long)b->a.ops);
		rc = -1;
	}
	cb_kvm_side_close(&vm, kvm); /* also drops the irqfd and ioeventfd bindings */
	return rc;
}

int cb_kvm_vmswitch_k_b(cb_block *b, cb_kvm_out *o)
{
	char *err = b->err;
	int errlen = (int)sizeof(b->err);
	cb_kvm_vm vm;
	int kvm = -1, rc = 0;
	uint64_t total = (uint64_t)(b->warmup + b->samples) * b->iters;
	if (k_vm(b, b->cpu_b, 0, b->fd[1], &vm, &kvm, o) < 0)
		return -1;
	rc = cb_kvm_irqfd(&vm, 0, b->fd[0], 1, err, errlen);
	cb_kvm_poke(&vm, CB_KVM_DATA_TARGET, total);
	uint64_t one = 1;
	if (rc == 0 && write(b->fd[1], &one, sizeof(one)) != (ssize_t)sizeof(one)) {
		snprintf(err, (size_t)errlen, "cannot signal readiness: %s", strerror(errno));
		rc = -1;
	}
	cb_kvm_meter m;
	uint64_t last = 0;
	int stalled = 0;
	cb_kvm_meter_begin(&m, &vm, b);
	cb_note_cpu(&b->b);
	/* B may wait up to the readiness timeout for A's first ring. */
	if (rc == 0)
		rc = k_run(&vm, &last, &stalled, CB_KVM_K_READY_MS / 1000, CB_KVM_K_STALL_S, err, errlen);
	cb_note_cpu(&b->b);
	cb_kvm_meter_end(&m, &vm, &b->b, o);
	o->guest_ops = cb_kvm_peek(&vm, CB_KVM_DATA_TOTAL);
	b->b.ops = o->guest_ops;
	if (rc == 0 && o->guest_ops != total) {
		snprintf(err, (size_t)errlen, "partner side stopped after %llu of %llu ops",
			 (unsigned long long)o->guest_ops, (unsigned long long)total);
		rc = -1;
	}
	cb_kvm_side_close(&vm, kvm);
	return rc;
}
