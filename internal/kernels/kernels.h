/*
 * kernels.h: the C side of ctxbench.
 *
 * Every kernel owns its whole timed loop. Go prepares a cb_block (how many
 * operations per sample, how many samples, where to pin, which descriptors to
 * use), calls one C function, and reads the results back. Nothing of the Go
 * harness runs between the first and the last timestamp of a sample.
 *
 * Conventions shared by all kernels:
 *   - one "op" is what the kernel's header comment says (a round trip, a hop,
 *     a syscall...); the Go registry knows how many hops one op is;
 *   - time is read with clock_gettime(CLOCK_MONOTONIC_RAW) and, where the TSC
 *     is usable, with rdtscp; both are taken at every sample boundary;
 *   - switch counts (getrusage RUSAGE_THREAD, perf software events) cover the
 *     whole block, warm-up included, for each side, so that both sides count
 *     over the same operations;
 *   - on failure a kernel returns -1 and leaves a one-line reason in err.
 */
#ifndef CTXBENCH_KERNELS_H
#define CTXBENCH_KERNELS_H

#include <stdint.h>

/* What one side of a measurement did, counted over the whole block. */
typedef struct cb_counts {
	int64_t nvcsw;             /* voluntary context switches (getrusage RUSAGE_THREAD) */
	int64_t nivcsw;            /* involuntary context switches */
	int64_t perf_cs;           /* perf software event context-switches; -1 if unavailable */
	int64_t perf_migrations;   /* perf software event cpu-migrations; -1 if unavailable */
	int64_t perf_instructions; /* perf hardware event instructions; -1 if unavailable */
	int64_t perf_cycles;       /* perf hardware event cpu-cycles; -1 if unavailable */
	uint64_t cpus_seen;        /* bit i: sched_getcpu() returned i at some sample boundary */
	uint64_t ops;              /* operations this side performed in the block */
} cb_counts;

typedef struct cb_block {
	/* in */
	uint64_t iters;   /* operations per sample */
	uint32_t samples; /* measured samples */
	uint32_t warmup;  /* samples taken first and discarded */
	int32_t cpu_a;    /* CPU for side A (the timing side); -1: leave affinity alone */
	int32_t cpu_b;    /* CPU for side B (the partner); -1: leave affinity alone */
	int32_t fd[4];    /* kernel-specific descriptors (pipes, shared memory) */
	int64_t arg;      /* kernel-specific parameter (working set bytes, spin count...) */
	int32_t perf;     /* 1: also open perf events on each side (see cb_counter_begin) */
	/* out */
	uint64_t *ns;     /* [samples] elapsed CLOCK_MONOTONIC_RAW ns per sample */
	uint64_t *tsc;    /* [samples] elapsed TSC ticks per sample; 0 when not measured */
	cb_counts a;      /* side A */
	cb_counts b;      /* side B, when it runs in this process (threads) */
	char err[200];    /* one-line reason when the kernel returns -1 */
} cb_block;

/*
 * Per-thread counting: begin at the start of a side's loop, end at its end.
 * getrusage is always read. perf events are opened only when b->perf is set:
 * an active per-task perf event makes every context switch of that task do
 * perf bookkeeping, which on this project's reference machine (a KVM guest)
 * raised a same-CPU pipe hop from 2.4 to 3.9 us. So the runner verifies with
 * perf in a separate block whose samples are not part of the figure.
 */
typedef struct cb_counter {
	int64_t nvcsw0, nivcsw0;
	int fd_cs, fd_migr, fd_instr, fd_cycles;
} cb_counter;

void cb_counter_begin(cb_counter *c, const cb_block *b);
void cb_counter_end(cb_counter *c, cb_counts *out);
int cb_pin_self(int cpu, char *err, int errlen);
void cb_note_cpu(cb_counts *c);

/* confine.c: keep only keep_caps (when drop_caps), then no_new_privs and
 * the seccomp filter (a struct sock_fprog *, or NULL). 0, or 1 when the
 * capability drop failed, 2 when the filter did. Raw system calls only. */
int cb_confine(int drop_caps, uint64_t keep_caps, int last_cap, const void *seccomp_fprog);

#endif
