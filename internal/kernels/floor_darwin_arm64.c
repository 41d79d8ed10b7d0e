/*
 * floor_darwin_arm64.c: the physical floor of a context switch on Apple
 * silicon: floor_arm64.c's swap (what one op is, what is saved and why, why
 * br and not ret: see there), written for the Mach-O assembler — the
 * symbol carries Mach-O's leading underscore, and Mach-O has no .type or
 * .size. The swap leaves x18 alone, which Apple's arm64 ABI reserves for
 * the platform. Apple silicon's counter ticks at 24 MHz (41.67 ns): the
 * calibration makes every sample span at least 1,000 ticks.
 */
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
	".globl _cb_floor_swap_a64\n"
	".private_extern _cb_floor_swap_a64\n"
	"_cb_floor_swap_a64:\n"
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
	"	br x30\n");

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
