/*
 * floor.c: the physical floor of a context switch, and glibc swapcontext.
 *
 * floor/asm-swap (x86-64; arm64's is floor_arm64.c) — one op is a round
 * trip A -> B -> A, i.e. two hops. A hop
 * is the smallest correct stack switch: push a resume address, store the
 * stack pointer, load the other context's, pop its resume address and jump
 * there. The switch is inline assembly that tells the compiler every
 * general-purpose register is clobbered, so the compiler saves exactly the
 * callee-saved registers that are live across it (in this loop: the loop
 * counter, spilled to the stack) and nothing else — the design of
 * corosensei (https://github.com/Amanieu/corosensei), whose switch is the
 * same few instructions, rather than a called function that saves all six
 * callee-saved registers whether they hold anything or not. rbp is pushed
 * and popped by hand (it may be the frame pointer, which a clobber list
 * cannot name). No signal mask, no FPU/SSE control word (MXCSR, x87 CW), no
 * XSAVE. The switch ends in an indirect jmp, never a ret into the other
 * stack: a ret whose return address was pushed on another stack
 * mispredicts the return-stack buffer every time (also corosensei's and
 * Boost.Context's jump_fcontext's choice, https://www.boost.org/doc/libs/release/libs/context/).
 * Each side's jmp always goes to the same place, so it is predicted.
 *
 * floor/swapcontext — one op is a round trip through glibc swapcontext(3)
 * (libSystem's on macOS, deprecated there), two hops. glibc saves the full ucontext and calls rt_sigprocmask on every
 * switch, so this row measures a system call as much as a switch: it is here
 * for contrast (Seastar replaced it with setjmp/longjmp for that reason).
 */
#define _GNU_SOURCE
#define _XOPEN_SOURCE 700 /* macOS declares the ucontext functions only with it; glibc's _GNU_SOURCE implies it */
#define _DARWIN_C_SOURCE  /* and macOS then hides the rest without this */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "clock.h"
#include "floor.h"
#include "kernels.h"

#if defined(__x86_64__)

/* The stack pointers of the two contexts while switched out; the top of
 * each stack holds its resume address. */
static void *floor_a_sp, *floor_b_sp;
static uint64_t floor_b_ops; /* counted so the run can show B ran once per round trip */

/* floor_swap saves the running context's stack pointer in *save and
 * resumes the one in *load. Every general-purpose register but rsp and rbp
 * is declared clobbered (rdi and rsi as outputs), so the compiler keeps
 * nothing in them across the switch. */
#define floor_swap(save, load)                                               \
	do {                                                                  \
		void **s_ = (save), **l_ = (load);                            \
		__asm__ volatile("leaq 1f(%%rip), %%rax\n\t"                 \
				 "pushq %%rbp\n\t"                           \
				 "pushq %%rax\n\t"                           \
				 "movq %%rsp, (%%rdi)\n\t"                   \
				 "movq (%%rsi), %%rsp\n\t"                   \
				 "popq %%rax\n\t"                            \
				 "jmpq *%%rax\n"                              \
				 "1:\n\t"                                     \
				 "popq %%rbp\n\t"                            \
				 : "+D"(s_), "+S"(l_)                         \
				 :                                             \
				 : "rax", "rbx", "rcx", "rdx", "r8", "r9",    \
				   "r10", "r11", "r12", "r13", "r14", "r15",  \
				   "memory", "cc");                            \
	} while (0)

static void __attribute__((noreturn, used)) floor_b_entry(void)
{
	for (;;) {
		floor_b_ops++;
		floor_swap(&floor_b_sp, &floor_a_sp);
	}
}

int cb_floor_asm(cb_block *b)
{
	const size_t stack_size = 64 * 1024;
	char *stack = floor_begin(b, aligned_alloc(64, stack_size));
	if (!stack)
		return -1;
	/* B's first resume: its entry address on top of a 16-byte aligned
	 * stack, so that after the pop rsp % 16 == 8, as at a call's entry. */
	uintptr_t top = ((uintptr_t)(stack + stack_size)) & ~(uintptr_t)15;
	uint64_t *sp = (uint64_t *)(top - 16);
	sp[0] = (uint64_t)(uintptr_t)floor_b_entry;
	sp[1] = 0;
	floor_b_sp = sp;
	floor_b_ops = 0;

	TIMED_LOOP(b, floor_swap(&floor_a_sp, &floor_b_sp));
	return floor_end(b, floor_b_ops, stack);
}

#elif !defined(__aarch64__) /* arm64's swap is floor_arm64.c (Linux) or floor_darwin_arm64.c */

int cb_floor_asm(cb_block *b)
{
	snprintf(b->err, sizeof(b->err), "the hand-written swap exists for x86-64 and arm64 only");
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
	char *stack = floor_begin(b, malloc(stack_size));
	if (!stack)
		return -1;
	getcontext(&uc_b);
	uc_b.uc_stack.ss_sp = stack;
	uc_b.uc_stack.ss_size = stack_size;
	uc_b.uc_link = NULL;
	makecontext(&uc_b, uc_b_entry, 0);
	uc_b_ops = 0;

	TIMED_LOOP(b, swapcontext(&uc_a, &uc_b));
	return floor_end(b, uc_b_ops, stack);
}
