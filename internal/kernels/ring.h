/*
 * ring.h: rings of N contexts passing a token (see ring.c for what is timed).
 *
 * A ring call takes the usual cb_block (samples, warm-up, CPUs, ns/tsc
 * output) plus a cb_ring with the ring's own parameters and results.
 */
#ifndef CTXBENCH_RING_H
#define CTXBENCH_RING_H

#include <stdint.h>

#include "kernels.h"

/* What carries the token from one context to the next. A pipe takes two
 * descriptors per link; an eventfd one (its 64-bit counter is the token: it
 * is 0 whenever the token is elsewhere, so a write sets it and the read
 * that returns it resets it), which is what fits 10,000 threads under a
 * 20,000-descriptor limit. */
#define CB_RING_PIPE 0
#define CB_RING_EVENTFD 1

/* A token with this bit set tells every member to stop after forwarding it. */
#define CB_RING_STOP (1ull << 63)

typedef struct cb_ring {
	/* in */
	int32_t n;              /* contexts in the ring, the timing head included */
	int64_t ws;             /* working-set bytes each context sums per pass */
	uint64_t stack;         /* member thread stack bytes (thread rings) */
	uint64_t min_sample_ns; /* block iters == 0: calibrate rounds per sample to this */
	int32_t overhead;       /* 1: measure the one-context overheads after the ring */
	int32_t ipc;            /* CB_RING_PIPE or CB_RING_EVENTFD: what links the contexts */
	/* out */
	uint64_t rounds_per_sample;
	uint64_t rounds;     /* rounds the head made: calibration + warm-up + samples */
	uint64_t token;      /* hop counter carried by the token when it stopped */
	uint64_t passes;     /* passes counted by members 1..n-1, summed */
	uint64_t min_passes; /* the smallest and largest single member's count */
	uint64_t max_passes;
	int32_t started;     /* member threads started (thread rings) */
	int32_t fail_errno;  /* errno of a failed thread or pipe creation */
	cb_counts members;   /* members 1..n-1, summed (thread rings) */
	uint64_t *ovh_ns;    /* [samples] one context, same pipes, same working sets */
	uint64_t *ovh_tsc;
	uint64_t *hot_ns;    /* [samples] one context, same pipes, one working set (lmbench) */
	uint64_t *hot_tsc;
	uint64_t sink;       /* sums of the working sets, so the compiler keeps them */
} cb_ring;

int cb_ring_threads(cb_block *b, cb_ring *r);
int cb_ring_head(cb_block *b, cb_ring *r);
int cb_ring_member(cb_block *b);
int cb_ring_overhead(cb_block *b, cb_ring *r);

#endif
