//go:build linux

/*
 * floor_arm64.c: the physical floor of a context switch on arm64.
 *
 * floor/asm-swap — one op is a round trip A -> B -> A, i.e. two hops. A hop
 * is one call of floor_swap(save, load): it saves on the running stack
 * exactly what the Procedure Call Standard for the Arm 64-bit Architecture
 * (AAPCS64, section 6.1.1 and 6.1.2) says a called function must give back
 * unchanged — x19 to x28, the frame pointer x29, the link register x30 (the
 * resume address), and the low 64 bits of v8 to v15 (d8 to d15) — stores sp
 * in *save, loads the other context's sp from load, restores the same
 * registers from its stack and branches to its x30. That is what makes it a
 * switch the compiler can call like any function: every register the caller
 * may hold across a call survives it, and the caller already assumes the
 * rest (x0 to x18, v0 to v7, v16 to v31, the flags) are lost. It saves all
 * twenty callee-saved registers whether they hold anything or not, as
 * Boost.Context's jump_fcontext does on arm64
 * (https://www.boost.org/doc/libs/release/libs/context/) — where the x86-64
 * swap in floor.c lets the compiler save only the registers live across an
 * inline switch — so the arm64 floor is the cost of a complete callee-saved
 * swap, not of the smallest possible one. Nothing else: x18, the platform
 * register, is not a callee's to keep; no signal mask, no FPCR or FPSR (both
 * contexts run with the same), no SVE state.
 *
 * The swap ends in br x30, never ret: a ret pops the return-address
 * predictor, whose top was pushed by this context's own call, and would
 * mispredict at every switch into the other stack (floor.c's jmp, for the
 * same reason). A br to the same two places in turn is predicted.
 *
 * The counter on arm64 (clock.h) often ticks at 25 MHz, 40 ns a tick, some
 * forty hops: the calibration makes every sample span at least 1,000 ticks
 * (counter.MinSampleTicks), and the figure's row says the counter's
 * resolution.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"
#include "floor.h"
#include "kernels.h"

/* void floor_swap(void **save, void *load): x0 = save, x1 = load. The frame
 * is 160 bytes, 16-byte aligned as sp must be: x19..x30 at 0..88, d8..d15 at
 * 96..152. */
__asm__(".text\n"
	".p2align 4\n"
	".globl cb_floor_swap_a64\n"
	".hidden cb_floor_swap_a64\n"
	".type cb_floor_swap_a64, %function\n"
	"cb_floor_swap_a64:\n"
	"	sub sp, sp, #160\n"
	"	stp x19, x20, [sp, #0]\n"
	"	stp x21, x22, [sp, #16]\n"
	"	stp x23, x24, [sp, #32]\n"
	"	stp x25, x26, [sp, #48]\n"
	"	stp x27, x28, [sp, #64]\n"
	"	stp x29, x30, [sp, #80]\n"
	"	stp d8, d9, [sp, #96]\n"
	"	stp d10, d11, [sp, #112]\n"
	"	stp d12, d13, [sp, #128]\n"
	"	stp d14, d15, [sp, #144]\n"
	"	mov x2, sp\n"
	"	str x2, [x0]\n"
	"	mov sp, x1\n"
	"	ldp x19, x20, [sp, #0]\n"
	"	ldp x21, x22, [sp, #16]\n"
	"	ldp x23, x24, [sp, #32]\n"
	"	ldp x25, x26, [sp, #48]\n"
	"	ldp x27, x28, [sp, #64]\n"
	"	ldp x29, x30, [sp, #80]\n"
	"	ldp d8, d9, [sp, #96]\n"
	"	ldp d10, d11, [sp, #112]\n"
	"	ldp d12, d13, [sp, #128]\n"
	"	ldp d14, d15, [sp, #144]\n"
	"	add sp, sp, #160\n"
	"	br x30\n"
	".size cb_floor_swap_a64, .-cb_floor_swap_a64\n");

void cb_floor_swap_a64(void **save, void *load);

enum { FRAME_WORDS = 20, FRAME_X30 = 11 }; /* the frame in 8-byte words; x30's slot */

/* The stack pointers of the two contexts while switched out; each points at
 * its context's saved frame. */
static void *floor_a_sp, *floor_b_sp;
static uint64_t floor_b_ops; /* counted so the run can show B ran once per round trip */

static void __attribute__((noreturn, used)) floor_b_entry(void)
{
	for (;;) {
		floor_b_ops++;
		cb_floor_swap_a64(&floor_b_sp, floor_a_sp);
	}
}

int cb_floor_asm(cb_block *b)
{
	const size_t stack_size = 64 * 1024;
	char *stack = floor_begin(b, aligned_alloc(64, stack_size));
	if (!stack)
		return -1;
	/* B's first resume: a frame of zeros whose x30 is B's entry, on top of
	 * a 16-byte aligned stack, so that B starts with sp aligned and a null
	 * frame pointer, as at a call's entry. */
	uintptr_t top = ((uintptr_t)(stack + stack_size)) & ~(uintptr_t)15;
	uint64_t *frame = (uint64_t *)(top - FRAME_WORDS * 8);
	for (int i = 0; i < FRAME_WORDS; i++)
		frame[i] = 0;
	frame[FRAME_X30] = (uint64_t)(uintptr_t)floor_b_entry;
	floor_b_sp = frame;
	floor_b_ops = 0;

	TIMED_LOOP(b, cb_floor_swap_a64(&floor_a_sp, floor_b_sp));
	return floor_end(b, floor_b_ops, stack);
}
