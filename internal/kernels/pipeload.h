/*
 * pipeload.h: the known workload of ctxbench attach (see pipeload.c): two
 * threads on one CPU passing a token through two pipes at a stated number
 * of hops per second, doing counted work in between. Its state is one
 * shared region (a memfd the parent maps too), so the parent reads its
 * progress while it runs, and stops it, without a syscall of the workload.
 */
#ifndef CTXBENCH_PIPELOAD_H
#define CTXBENCH_PIPELOAD_H

#include <stdint.h>

typedef struct cb_pipeload {
	/* in, set by the parent before the workload starts */
	uint64_t hops_per_s;   /* the stated rate (two hops per round trip); 0: back to back, no work */
	uint64_t work_iters;   /* iterations of one unit of work (a dependent multiply-add each) */
	int32_t cpu;           /* both threads pinned here; -1: leave the affinity alone */
	int32_t pad0;
	/* control */
	uint32_t stop __attribute__((aligned(64))); /* the parent sets 1: finish the round trip and stop */
	/* out, written by the timing thread after each round trip */
	uint64_t hops __attribute__((aligned(64))); /* hops made (two per round trip) */
	uint64_t work;         /* units of work done between them */
	uint64_t late;         /* round trips that began more than one period after their time */
	uint64_t t0_ns;        /* CLOCK_MONOTONIC when the schedule began */
	uint64_t now_ns;       /* CLOCK_MONOTONIC at the last update */
	uint64_t sink;         /* the work's result, so that it is not optimised away */
	int32_t tid_a, tid_b;  /* the two threads (for the parent's /proc reads) */
	int32_t running;       /* 1 once both threads run the schedule */
	int32_t failed;
	char err[120];
} cb_pipeload;

#endif
