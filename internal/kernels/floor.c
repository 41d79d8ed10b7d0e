/*
 * floor.c: the physical floor of a context switch, and glibc swapcontext.
 *
 * floor/asm-swap — one op is a round trip A -> B -> A, i.e. two hops. A hop
 * saves the six callee-saved registers of the System V ABI (rbx, rbp,
 * r12-r15), the stack pointer and a resume address, loads the other
 * context's, and jumps to it. Nothing else: no signal mask, no FPU/SSE control
 * word (MXCSR, x87 CW), no XSAVE. The switch ends in an indirect jmp rather
 * than a ret into the other stack, because a ret whose return address was
 * pushed on another stack mispredicts the return-stack buffer every time
 * (the same design choice as corosensei's,
 * https://github.com/Amanieu/corosensei, and Boost.Context's jump_fcontext).
 *
 * floor/swapcontext — one op is a round trip through glibc swapcontext(3),
 * two hops. glibc saves the full ucontext and calls rt_sigprocmask on every
 * switch, so this row measures a system call as much as a switch: it is here
 * for contrast (Seastar replaced it with setjmp/longjmp for that reason).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "clock.h"
#include "kernels.h"

#if defined(__x86_64__)

typedef struct cb_fctx {
	void *sp;
	void *pc;
} cb_fctx;

void cb_floor_swap(cb_fctx *from, cb_fctx *to);

__asm__(".text\n"
	".p2align 4\n"
	".globl cb_floor_swap\n"
	".type cb_floor_swap,@function\n"
	"cb_floor_swap:\n"
	"	popq %rax\n"          /* our resume address; the stack is now as after a ret */
	"	pushq %rbp\n"
	"	pushq %rbx\n"
	"	pushq %r12\n"
	"	pushq %r13\n"
	"	pushq %r14\n"
	"	pushq %r15\n"
	"	movq %rsp, 0(%rdi)\n"
	"	movq %rax, 8(%rdi)\n"
	"	movq 0(%rsi), %rsp\n"
	"	popq %r15\n"
	"	popq %r14\n"
	"	popq %r13\n"
	"	popq %r12\n"
	"	popq %rbx\n"
	"	popq %rbp\n"
	"	jmpq *8(%rsi)\n"
	".size cb_floor_swap, .-cb_floor_swap\n");

static cb_fctx floor_a, floor_b;
static uint64_t floor_b_ops; /* counted so the run can show B ran once per round trip */

static void floor_b_entry(void)
{
	for (;;) {
		floor_b_ops++;
		cb_floor_swap(&floor_b, &floor_a);
	}
}

int cb_floor_asm(cb_block *b)
{
	const size_t stack_size = 64 * 1024;
	char *stack = aligned_alloc(64, stack_size);
	if (!stack) {
		snprintf(b->err, sizeof(b->err), "cannot allocate the second stack");
		return -1;
	}
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0) {
		free(stack);
		return -1;
	}
	/* B's first resume: six zero registers, then entry as if just called. */
	uintptr_t top = ((uintptr_t)(stack + stack_size)) & ~(uintptr_t)15;
	uint64_t *sp = (uint64_t *)top;
	*--sp = 0;         /* fake return address slot: rsp % 16 == 8 at entry */
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	floor_b.sp = sp;
	floor_b.pc = (void *)floor_b_entry;
	floor_b_ops = 0;

	cb_counter ctr;
	cb_counter_begin(&ctr, b);
	for (uint32_t s = 0; s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		for (uint64_t i = 0; i < b->iters; i++)
			cb_floor_swap(&floor_a, &floor_b);
		cb_stamp t1 = cb_stamp_now();
		cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
	}
	cb_counter_end(&ctr, &b->a);
	b->a.ops = (uint64_t)(b->warmup + b->samples) * b->iters;
	b->b.ops = floor_b_ops;
	b->b.cpus_seen = b->a.cpus_seen;
	b->b.perf_cs = b->b.perf_migrations = b->b.perf_instructions = b->b.perf_cycles = -1;
	free(stack);
	return 0;
}

#else

int cb_floor_asm(cb_block *b)
{
	snprintf(b->err, sizeof(b->err), "the hand-written swap exists for x86-64 only");
	return -1;
}

#endif

static ucontext_t uc_a, uc_b;
static volatile uint64_t uc_b_ops;

static void uc_b_entry(void)
{
	for (;;) {
		uc_b_ops++;
		swapcontext(&uc_b, &uc_a);
	}
}

int cb_floor_swapcontext(cb_block *b)
{
	const size_t stack_size = 64 * 1024;
	char *stack = malloc(stack_size);
	if (!stack) {
		snprintf(b->err, sizeof(b->err), "cannot allocate the second stack");
		return -1;
	}
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0) {
		free(stack);
		return -1;
	}
	getcontext(&uc_b);
	uc_b.uc_stack.ss_sp = stack;
	uc_b.uc_stack.ss_size = stack_size;
	uc_b.uc_link = NULL;
	makecontext(&uc_b, uc_b_entry, 0);
	uc_b_ops = 0;

	cb_counter ctr;
	cb_counter_begin(&ctr, b);
	for (uint32_t s = 0; s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		for (uint64_t i = 0; i < b->iters; i++)
			swapcontext(&uc_a, &uc_b);
		cb_stamp t1 = cb_stamp_now();
		cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
	}
	cb_counter_end(&ctr, &b->a);
	b->a.ops = (uint64_t)(b->warmup + b->samples) * b->iters;
	b->b.ops = uc_b_ops;
	b->b.cpus_seen = b->a.cpus_seen;
	b->b.perf_cs = b->b.perf_migrations = b->b.perf_instructions = b->b.perf_cycles = -1;
	free(stack);
	return 0;
}
