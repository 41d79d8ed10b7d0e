/*
 * floor.h: what the floor kernels of every architecture share (floor.c,
 * floor_arm64.c): B's stack and A's pinning before the timed loop, B's
 * counts after it. Nothing here runs inside a timed loop.
 */
#ifndef CTXBENCH_FLOOR_H
#define CTXBENCH_FLOOR_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels.h"

/* floor_begin takes B's newly allocated stack and pins A's thread: the
 * stack, or NULL if either failed (reason in b->err, the stack freed). */
static char *floor_begin(cb_block *b, char *stack)
{
	if (!stack) {
		snprintf(b->err, sizeof(b->err), "cannot allocate the second stack");
		return NULL;
	}
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0) {
		free(stack);
		return NULL;
	}
	return stack;
}

/* B is a context on A's thread: it ran b_ops times on A's CPUs, and the
 * thread's counts are A's; there are no perf figures of B's own. */
static int floor_end(cb_block *b, uint64_t b_ops, char *stack)
{
	b->b.ops = b_ops;
	b->b.cpus_seen = b->a.cpus_seen;
	b->b.perf_cs = b->b.perf_migrations = b->b.perf_instructions = b->b.perf_cycles = -1;
	free(stack);
	return 0;
}

#endif
