/*
 * clock.h: the two clocks every kernel reads at sample boundaries.
 *
 * CLOCK_MONOTONIC_RAW is never slewed by NTP (CLOCK_REALTIME, used by tsuna
 * and eliben's programs, can be stepped); macOS's counterpart is
 * mach_absolute_time with its timebase (below). The second is the architecture's
 * reference counter (cb_tsc; internal/host/counter reads the same one in Go):
 *
 * x86-64: the TSC gives reference cycles: with constant_tsc it ticks at a
 * fixed rate, not the core clock, which is why ctxbench calls the figure "TSC
 * reference cycles". rdtscp waits for the earlier instructions to retire, so
 * the sample's work is inside the interval.
 *
 * arm64: the generic timer's virtual count, CNTVCT_EL0, at the fixed rate
 * CNTFRQ_EL0 states (1 GHz from Armv8.6, often 25 MHz before: a tick of 40
 * ns, which is also the resolution of CLOCK_MONOTONIC_RAW there, whose vDSO
 * reads the same counter). The isb before the read keeps it from being taken
 * before the earlier instructions, rdtscp's role. A coarse counter is why the
 * calibration makes every sample span at least 1,000 ticks
 * (counter.MinSampleTicks).
 */
#ifndef CTXBENCH_CLOCK_H
#define CTXBENCH_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#if defined(__APPLE__)
/*
 * macOS: mach_absolute_time, the counter macOS's own clocks are built on,
 * converted with mach_timebase_info (125/3 ns a tick on Apple silicon,
 * whose counter runs at 24 MHz; 1/1 on Intel Macs). The fraction is read
 * once, before any timed loop reads the clock (cb_clock_init, called by
 * every kernel's Go wrapper), so no sample pays for it.
 */
#include <mach/mach_time.h>
extern mach_timebase_info_data_t cb_timebase;
static inline void cb_clock_init(void)
{
	if (cb_timebase.denom == 0)
		mach_timebase_info(&cb_timebase);
}
static inline uint64_t cb_now_ns(void)
{
	return mach_absolute_time() * cb_timebase.numer / cb_timebase.denom;
}
#else
static inline void cb_clock_init(void) {}
static inline uint64_t cb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
#endif

static inline uint64_t cb_tsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int aux;
	return __rdtscp(&aux);
#elif defined(__aarch64__)
	uint64_t v;
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
	return v;
#else
	return 0;
#endif
}

/* Sample boundary bookkeeping shared by the kernels' loops. */
typedef struct cb_stamp {
	uint64_t ns, tsc;
} cb_stamp;

static inline cb_stamp cb_stamp_now(void)
{
	cb_stamp s;
	s.tsc = cb_tsc();
	s.ns = cb_now_ns();
	return s;
}

/* Store sample s of a block if it is past the warm-up. */
static inline void cb_store(uint64_t *ns, uint64_t *tsc, uint32_t s, uint32_t warmup,
			    cb_stamp t0, cb_stamp t1)
{
	if (s < warmup)
		return;
	ns[s - warmup] = t1.ns - t0.ns;
	tsc[s - warmup] = t1.tsc - t0.tsc;
}

/*
 * TIMED_LOOP is the whole block of a kernel whose op needs nothing per
 * sample and never ends the block early: warmup + samples samples of
 * b->iters ops, each
 * sample stamped at both ends, side A's counts (kernels.h) taken over the
 * block. body is one op; it is written out inside the loop, so the compiler
 * sees the op itself and nothing else runs between a sample's stamps.
 */
#define TIMED_LOOP(b, body)                                                   \
	do {                                                                  \
		cb_counter ctr_;                                              \
		cb_counter_begin(&ctr_, (b));                                 \
		for (uint32_t s_ = 0; s_ < (b)->warmup + (b)->samples; s_++) { \
			cb_note_cpu(&(b)->a);                                 \
			cb_stamp t0_ = cb_stamp_now();                        \
			for (uint64_t i_ = 0; i_ < (b)->iters; i_++) {        \
				body;                                         \
			}                                                     \
			cb_stamp t1_ = cb_stamp_now();                        \
			cb_store((b)->ns, (b)->tsc, s_, (b)->warmup, t0_, t1_); \
		}                                                             \
		cb_counter_end(&ctr_, &(b)->a);                               \
		(b)->a.ops = (uint64_t)((b)->warmup + (b)->samples) * (b)->iters; \
	} while (0)

#endif
