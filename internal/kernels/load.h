/*
 * load.h: the open-loop load kernel (see load.c for what one request is).
 *
 * The whole experiment lives in one shared region (cb_load followed by its
 * contexts), so the woken contexts may be threads of the worker or
 * single-threaded processes that map the same memfd. Everything a block
 * measured is left in the region; the Go side only reads it afterwards.
 */
#ifndef CTXBENCH_LOAD_H
#define CTXBENCH_LOAD_H

#include <stdint.h>

/*
 * Histograms: HdrHistogram's bucket layout (Gil Tene,
 * https://github.com/HdrHistogram/HdrHistogram) for values 1 ns to 1e11 ns
 * at 2 significant digits: 256 sub-buckets per power of two, so a recorded
 * value and its bucket's ends differ by at most 1/128 (0.78%). The counts
 * are laid out exactly as hdrhistogram-go's (lowest 1, highest 1e11,
 * 2 figures: 31 x 128 counts), so the Go side imports them as they are.
 */
#define CB_LH_SUB_HALF_MAG 7 /* log2(half the sub-buckets) */
#define CB_LH_SUB_MASK 255ull
#define CB_LH_HIGHEST 100000000000ull
#define CB_LH_COUNTS 3968 /* (30 buckets + 1) * 128 */

/* The histograms of a context; the generator's lag is kept in cb_load. */
enum {
	CB_LH_WAKE = 0,  /* post -> the woken context running (hops only) */
	CB_LH_REQ_C,     /* intended -> end of the work (corrected) */
	CB_LH_REQ_U,     /* post -> end of the work (uncorrected) */
	CB_LH_SERVICE,   /* start of the work -> its end */
	CB_LH_QUEUE,     /* post -> start, for requests that found their context awake */
	CB_LH_PER_CTX
};

typedef struct cb_lh {
	uint64_t n, max;
	uint32_t counts[CB_LH_COUNTS];
} cb_lh;

/* A request's mailbox slot. */
typedef struct cb_load_slot {
	uint64_t intended, post;
} cb_load_slot;

#define CB_LOAD_RING 4096 /* requests a context's mailbox holds (a power of two) */

/* One woken context. Fields written by the generator and by the context sit
 * on cache lines of their own. */
typedef struct cb_load_ctx {
	uint32_t state __attribute__((aligned(64))); /* futex word: 0 awake, 1 asleep */
	uint64_t tail __attribute__((aligned(64)));  /* requests posted (generator) */
	uint64_t head __attribute__((aligned(64)));  /* requests taken (context) */
	/* results, written by the context */
	uint64_t done;          /* requests served, warm-up included */
	uint64_t measured;      /* requests served whose intended time is past the warm-up */
	uint64_t hops;          /* measured requests this context slept for and was woken to serve */
	uint64_t queued;        /* measured requests that found it awake */
	uint64_t last_end;      /* the end of its last request */
	int64_t nvcsw, nivcsw;  /* its switches over the block (getrusage RUSAGE_THREAD) */
	int64_t cpu_ns;         /* its CPU time over the block (CLOCK_THREAD_CPUTIME_ID) */
	int64_t run_delay_ns;   /* the kernel's account: time runnable but waiting (schedstat) */
	int64_t timeslices;     /* times it was put on a CPU (schedstat) */
	uint64_t cpus_seen;     /* bit i: seen running on CPU i */
	int32_t ready, exited, failed;
	char err[120];
	cb_lh h[CB_LH_PER_CTX];
	cb_load_slot slot[CB_LOAD_RING];
} cb_load_ctx;

typedef struct cb_load {
	/* in */
	int32_t nctx;           /* woken contexts */
	int32_t poisson;        /* 1: exponential gaps; 0: constant */
	double rate;            /* requests per second */
	uint64_t seed;          /* of the Poisson schedule */
	uint64_t duration_ns;   /* the schedule's length, warm-up included */
	uint64_t warmup_ns;     /* requests intended before this are served, not measured */
	uint64_t work_iters;    /* the work of one request: iterations of a dependent multiply-add */
	int32_t cpu_gen;        /* the generator's CPU (-1: not pinned) */
	int32_t cpu_ctx;        /* the contexts' CPU (-1: not pinned) */
	int32_t gen_on_ctx_cpu; /* 1: the generator shares the contexts' CPUs (its CPU time is load) */
	int32_t processes;      /* 1: the contexts are other processes mapping this region */
	uint64_t drain_ns;      /* how long the contexts may take to serve what is pending once the schedule ends */
	int32_t keep_busy;      /* 1: a SCHED_IDLE spinner keeps the contexts' CPU from idling between requests */
	/* control */
	uint32_t go __attribute__((aligned(64))); /* futex word: 1 starts the contexts */
	uint32_t stop;
	uint32_t finished; /* futex word the generator sleeps on while the contexts drain */
	uint64_t t0, t_measure;
	uint64_t completed __attribute__((aligned(64))); /* requests served, all contexts */
	/* out: the generator */
	uint64_t scheduled, posted, dropped, unserved, measured_scheduled;
	uint64_t t_last_intended, t_end;
	int64_t gen_nvcsw, gen_nivcsw, gen_cpu_ns, gen_run_delay_ns;
	uint64_t gen_cpus_seen;
	double ns_per_iter; /* the work loop's cost on this CPU, measured before the schedule */
	cb_lh lag;          /* intended -> post, measured requests */
	char err[200];
	cb_load_ctx ctx[];
} cb_load;

uint64_t cb_load_size(int32_t nctx);
void cb_load_init(cb_load *L);
int cb_load_run(cb_load *L);
int cb_load_context(cb_load *L, int32_t i);
int cb_load_st(int fd, int32_t i, int32_t cpu, char *err, int errlen);
uint32_t cb_lh_index(uint64_t v);
double cb_load_work_ns(uint64_t iters, int reps);

#endif
