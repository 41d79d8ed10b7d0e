//go:build linux

/*
 * pipeload.c: the known workload of ctxbench attach: a program that makes a
 * stated number of pipe hops per second on one CPU and does counted work in
 * between, so that what the attach measures of it can be checked against
 * what it is known to do.
 *
 * One op is a round trip A -> B -> A, two hops, as in pingpong.c's
 * thread/pipe (A writes a 4-byte token into pipe 1 and blocks reading pipe
 * 2; B reads pipe 1 and writes pipe 2: Ingo Molnar's pipe-test-1m.c as
 * `perf bench sched pipe -T` runs it), with both threads pinned to one CPU.
 * Between round trips A works: units of work_iters iterations of a
 * dependent 64-bit multiply-add (computation, as load.c's requests are),
 * counted in `work`, until the next round trip's time on an open-loop
 * schedule (round trip i at t0 + i * 2/hops_per_s seconds, CLOCK_MONOTONIC,
 * vDSO). So the hops per second are what was stated, while the CPU keeps
 * up (a round trip more than one period late is counted in `late`), and
 * the work done is the workload's throughput: what anything that slows its
 * hops (an attached tracer) takes from it. With hops_per_s 0 it makes its
 * round trips back to back and does no work.
 *
 * The process is this binary re-executed (st.c's constructor runs
 * cb_pipeload_st before the Go runtime starts), so its only threads are A
 * and B: every switch of the process is the workload's. B is created when
 * the parent says go. The parent reads the region while the workload runs
 * and sets `stop`; the workload finishes its round trip, B is released
 * with a last token, and the process reports its switches (getrusage
 * RUSAGE_SELF, both threads) and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "kernels.h"
#include "pipeload.h"

static inline uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

typedef struct pl_side {
	cb_pipeload *r;
	int rd, wr;
} pl_side;

/* B: echo every token until A's last one (0). */
static void *pl_echo(void *arg)
{
	pl_side *s = arg;
	cb_pipeload *r = s->r;
	char err[100];
	if (cb_pin_self(r->cpu, err, sizeof err) != 0) {
		snprintf(r->err, sizeof r->err, "%s", err);
		__atomic_store_n(&r->failed, 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->tid_b, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (;;) {
		int32_t v;
		if (read(s->rd, &v, sizeof v) != (ssize_t)sizeof v)
			return NULL;
		if (write(s->wr, &v, sizeof v) != (ssize_t)sizeof v || v == 0)
			return NULL;
	}
}

static inline uint64_t pl_work(uint64_t x, uint64_t iters)
{
	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	return x;
}

/* A: the schedule. fd is the region's memfd. */
int cb_pipeload_st(int fd, char *err, int errlen)
{
	cb_pipeload *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED) {
		snprintf(err, errlen, "mmap of the region: %s", strerror(errno));
		return -1;
	}
	if (cb_pin_self(r->cpu, err, errlen) != 0)
		return -1;
	r->tid_a = (int32_t)syscall(SYS_gettid);
	int p1[2], p2[2];
	if (pipe(p1) != 0 || pipe(p2) != 0) {
		snprintf(err, errlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pl_side b = {.r = r, .rd = p1[0], .wr = p2[1]};
	pthread_t tb;
	if (pthread_create(&tb, NULL, pl_echo, &b) != 0) {
		snprintf(err, errlen, "pthread_create failed");
		return -1;
	}
	while (!__atomic_load_n(&r->tid_b, __ATOMIC_ACQUIRE) && !__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE))
		sched_yield();
	if (__atomic_load_n(&r->failed, __ATOMIC_ACQUIRE)) {
		snprintf(err, errlen, "%s", r->err);
		return -1;
	}
	uint64_t period = r->hops_per_s ? 2000000000ull / r->hops_per_s : 0;
	uint64_t sink = 1, work = 0, hops = 0, late = 0;
	uint64_t t0 = mono_ns();
	r->t0_ns = t0;
	__atomic_store_n(&r->running, 1, __ATOMIC_RELEASE);
	int rc = 0;
	for (uint64_t i = 0; !__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE); i++) {
		uint64_t now = mono_ns();
		if (period) {
			uint64_t due = t0 + i * period;
			while (now < due) {
				sink = pl_work(sink, r->work_iters);
				work++;
				now = mono_ns();
			}
			if (now > due + period)
				late++;
		}
		int32_t v = 1;
		if (write(p1[1], &v, sizeof v) != (ssize_t)sizeof v || read(p2[0], &v, sizeof v) != (ssize_t)sizeof v) {
			snprintf(err, errlen, "the pipe broke: %s", strerror(errno));
			rc = -1;
			break;
		}
		hops += 2;
		__atomic_store_n(&r->work, work, __ATOMIC_RELAXED);
		__atomic_store_n(&r->late, late, __ATOMIC_RELAXED);
		__atomic_store_n(&r->now_ns, now, __ATOMIC_RELAXED);
		__atomic_store_n(&r->hops, hops, __ATOMIC_RELEASE);
	}
	int32_t last = 0;
	if (write(p1[1], &last, sizeof last) == (ssize_t)sizeof last)
		(void)!read(p2[0], &last, sizeof last);
	pthread_join(tb, NULL);
	r->sink = sink;
	return rc;
}
