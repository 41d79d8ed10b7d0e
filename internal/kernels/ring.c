//go:build linux

/*
 * ring.c: N contexts pass a token around a ring of pipes (lmbench lat_ctx).
 *
 * One op is one round: the token goes once around the ring, N hops. Context
 * i blocks reading an 8-byte token from pipe i-1, sums its own working set
 * (an array of `ws` bytes, every 8-byte word: lmbench lat_ctx -s), adds one
 * to the token and writes it into pipe i. Context 0, the head, times: it
 * sums its own working set, writes the token into pipe 0 and blocks until it
 * comes back out of pipe N-1. The method is McVoy & Staelin's lmbench
 * lat_ctx (USENIX'96) and the published 400-context hot-potato ring; thread,
 * process and pipe creation happen before the first timestamp, and the
 * samples are consecutive runs of whole rounds.
 *
 * Kinds:
 *   cb_ring_threads — the N contexts are threads of this process: the head
 *     is the calling thread, members 1..N-1 are pthreads with small stacks;
 *   cb_ring_head + cb_ring_member — the N contexts are processes: the head
 *     runs in the worker, each member in a re-executed partner process that
 *     gets its two pipe ends as descriptors.
 * The links are pipes (lmbench, the published ring) or, where descriptors
 * are scarce, eventfds (one descriptor per link; see ring.h): the same
 * blocking read and waking write of 8 bytes through the VFS.
 *
 * Overheads (lmbench's "ovr"), measured after the ring in one context, so
 * with no switch at all: the token is written into and read back from each
 * of the N pipes in turn (the same pipes for threads, N new ones for
 * processes), and on every hop
 *   - ovh: the next of the N working sets is summed: what the ring does
 *     minus the switches (the cache misses of N working sets stay in it);
 *   - hot: the one working set of the head is summed: lmbench's baseline,
 *     whose array stays in the cache, so what the ring loses to refilling
 *     caches after each switch stays in raw - hot.
 *
 * Counting: every member counts its passes and its own context switches
 * (getrusage RUSAGE_THREAD) from its first token to the stop token, the
 * head its rounds and switches over the same span, so each blocking read of
 * a pass is counted once. The token counts hops: after R rounds it is N*R
 * exactly when no hop was lost or made twice.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "clock.h"
#include "kernels.h"
#include "ring.h"

/*
 * Sum every 8-byte word. Kept scalar (no vectorizing): vector registers in
 * the loop would make every switch save and restore wider FPU state, which
 * changes what is measured (a switch saves and restores only the FPU/vector
 * state in use; tsuna/contextswitch builds with -mno-avx for this reason).
 */
__attribute__((noinline, optimize("no-tree-vectorize"))) static uint64_t touch(const uint64_t *a, size_t words)
{
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t i = 0;
	for (; i + 4 <= words; i += 4) {
		s0 += a[i];
		s1 += a[i + 1];
		s2 += a[i + 2];
		s3 += a[i + 3];
	}
	for (; i < words; i++)
		s0 += a[i];
	return s0 + s1 + s2 + s3;
}

/* A working set of `bytes`, every page written once (lmbench zeroes its array). */
static uint64_t *ws_alloc(int64_t bytes)
{
	void *p = NULL;
	size_t sz;
	if (bytes <= 0)
		return NULL;
	sz = ((size_t)bytes + 63) & ~(size_t)63;
	if (posix_memalign(&p, 64, sz) != 0)
		return NULL;
	memset(p, 1, sz);
	return p;
}

static int rd_tok(int fd, uint64_t *t)
{
	for (;;) {
		ssize_t k = read(fd, t, sizeof(*t));
		if (k == (ssize_t)sizeof(*t))
			return 0;
		if (k < 0 && errno == EINTR)
			continue;
		if (k >= 0)
			errno = k == 0 ? 0 : EPROTO; /* 0: end of file, the writer is gone */
		return -1;
	}
}

static int wr_tok(int fd, uint64_t t)
{
	for (;;) {
		ssize_t k = write(fd, &t, sizeof(t));
		if (k == (ssize_t)sizeof(t))
			return 0;
		if (k < 0 && errno == EINTR)
			continue;
		if (k >= 0)
			errno = EPROTO;
		return -1;
	}
}

static const char *io_reason(int e)
{
	return e ? strerror(e) : "end of file: the previous context is gone";
}

/* ---- one member: read, sum, pass on, until the stop token ---- */

typedef struct member {
	int rd, wr;
	const uint64_t *a;
	size_t words;
	int cpu;
	const cb_block *b; /* for the perf flag */
	cb_counts c;
	uint64_t passes, acc;
	int err;        /* 0, or errno (-1: end of file) of the failure */
	char msg[160];
} member;

static int member_loop(member *m)
{
	uint64_t t;
	cb_counter ctr;
	if (rd_tok(m->rd, &t) != 0) {
		m->err = errno ? errno : -1;
		snprintf(m->msg, sizeof(m->msg), "ring member: first read: %s", io_reason(errno));
		return -1;
	}
	if (t & CB_RING_STOP)
		return wr_tok(m->wr, t) == 0 || errno == EPIPE ? 0 : -1;
	cb_counter_begin(&ctr, m->b);
	cb_note_cpu(&m->c);
	for (;;) {
		m->acc += touch(m->a, m->words);
		if (wr_tok(m->wr, t + 1) != 0) {
			m->err = errno;
			snprintf(m->msg, sizeof(m->msg), "ring member: write after %llu passes: %s",
				 (unsigned long long)m->passes, strerror(errno));
			break;
		}
		m->passes++;
		if (rd_tok(m->rd, &t) != 0) {
			m->err = errno ? errno : -1;
			snprintf(m->msg, sizeof(m->msg), "ring member: read after %llu passes: %s",
				 (unsigned long long)m->passes, io_reason(errno));
			break;
		}
		if (t & CB_RING_STOP)
			break;
	}
	cb_note_cpu(&m->c);
	cb_counter_end(&ctr, &m->c);
	if (m->err)
		return -1;
	/* Forward the stop token; the head may already be gone if it failed. */
	if (wr_tok(m->wr, t) != 0 && errno != EPIPE)
		return -1;
	return 0;
}

/* ---- the head: calibrate, warm up, time samples of whole rounds, stop ---- */

static int head_loop(cb_block *b, cb_ring *r, int rd, int wr, const uint64_t *a, size_t words)
{
	uint64_t tok = 0, acc = 0, iters = b->iters;
	int64_t n = r->n;
	cb_counter ctr;
	int failed = 0;

#define RING_ROUND()                                                            \
	do {                                                                    \
		acc += touch(a, words);                                         \
		if (wr_tok(wr, tok + 1) != 0 || rd_tok(rd, &tok) != 0) {        \
			failed = errno ? errno : -1;                            \
			goto out;                                               \
		}                                                               \
		if (tok & CB_RING_STOP) { /* the worker aborts the ring */      \
			failed = ECANCELED;                                     \
			goto out;                                               \
		}                                                               \
		r->rounds++;                                                    \
	} while (0)

	cb_counter_begin(&ctr, b);
	cb_note_cpu(&b->a);
	if (iters == 0) {
		/* One round wakes every member, then double the number of rounds
		 * until a run lasts a quarter of the target sample; that run is
		 * timed twice and the faster kept, so that one preemption does
		 * not shrink every sample of the block. */
		uint64_t k = 1, best = 0;
		RING_ROUND();
		for (int again = 0;;) {
			cb_stamp t0 = cb_stamp_now();
			for (uint64_t j = 0; j < k; j++)
				RING_ROUND();
			cb_stamp t1 = cb_stamp_now();
			uint64_t el = t1.ns - t0.ns;
			if (el == 0)
				el = 1;
			if (el >= r->min_sample_ns / 4 || k >= (1ull << 24)) {
				if (!again) {
					best = el;
					again = 1;
					continue;
				}
				if (el < best)
					best = el;
				double want = (double)k * (double)r->min_sample_ns / (double)best;
				iters = want < 1 ? 1 : (uint64_t)(want + 0.999);
				break;
			}
			k *= 2;
		}
		if (iters > (1ull << 30))
			iters = 1ull << 30;
	}
	r->rounds_per_sample = iters;
	for (uint32_t s = 0; s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		for (uint64_t i = 0; i < iters; i++)
			RING_ROUND();
		cb_stamp t1 = cb_stamp_now();
		cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
	}
out:
	cb_note_cpu(&b->a);
	cb_counter_end(&ctr, &b->a);
	b->a.ops = r->rounds;
	r->token = tok;
	r->sink += acc;
#undef RING_ROUND
	if (failed) {
		snprintf(b->err, sizeof(b->err), "ring head: after %llu rounds: %s",
			 (unsigned long long)r->rounds, io_reason(failed > 0 ? failed : 0));
		return -1;
	}
	/* Send the stop token around; it comes back once every member saw it. */
	uint64_t t = 0;
	if (wr_tok(wr, CB_RING_STOP | tok) != 0 || rd_tok(rd, &t) != 0) {
		snprintf(b->err, sizeof(b->err), "ring head: stop token: %s", io_reason(errno));
		return -1;
	}
	if (t != (CB_RING_STOP | tok)) {
		snprintf(b->err, sizeof(b->err), "ring head: stop token came back as %llx, sent %llx",
			 (unsigned long long)t, (unsigned long long)(CB_RING_STOP | tok));
		return -1;
	}
	if (tok != (uint64_t)n * r->rounds) {
		snprintf(b->err, sizeof(b->err), "ring head: the token counted %llu hops, %lld contexts x %llu rounds = %llu expected",
			 (unsigned long long)tok, (long long)n, (unsigned long long)r->rounds,
			 (unsigned long long)((uint64_t)n * r->rounds));
		return -1;
	}
	return 0;
}

/* ---- one context, no switch: the overheads ---- */

static int overhead_loop(cb_block *b, cb_ring *r, int (*p)[2], uint64_t **arrays, size_t words)
{
	uint64_t tok = 0, acc = 0, iters = r->rounds_per_sample ? r->rounds_per_sample : b->iters;
	int n = r->n;
	if (iters == 0)
		iters = 1;
	for (uint32_t s = 0; s < b->warmup + b->samples; s++) {
		for (int hot = 0; hot < 2; hot++) {
			cb_stamp t0 = cb_stamp_now();
			for (uint64_t i = 0; i < iters; i++) {
				for (int k = 0; k < n; k++) {
					acc += touch(arrays[hot ? 0 : k], words);
					if (wr_tok(p[k][1], tok + 1) != 0 || rd_tok(p[k][0], &tok) != 0) {
						snprintf(b->err, sizeof(b->err), "ring overhead: pipe %d: %s", k, io_reason(errno));
						return -1;
					}
				}
			}
			cb_stamp t1 = cb_stamp_now();
			if (hot)
				cb_store(r->hot_ns, r->hot_tsc, s, b->warmup, t0, t1);
			else
				cb_store(r->ovh_ns, r->ovh_tsc, s, b->warmup, t0, t1);
		}
	}
	r->sink += acc;
	return 0;
}

/* ---- shared set-up ---- */

typedef struct ring_res {
	int (*p)[2];
	uint64_t **a;
	int np, na;
} ring_res;

static void res_free(ring_res *x)
{
	for (int k = 0; k < x->np; k++) {
		close(x->p[k][0]);
		if (x->p[k][1] != x->p[k][0])
			close(x->p[k][1]);
	}
	for (int k = 0; k < x->na; k++)
		free(x->a[k]);
	free(x->p);
	free(x->a);
	memset(x, 0, sizeof(*x));
}

static int res_alloc(cb_block *b, cb_ring *r, ring_res *x, int want_pipes)
{
	int n = r->n;
	memset(x, 0, sizeof(*x));
	x->p = calloc((size_t)n, sizeof(*x->p));
	x->a = calloc((size_t)n, sizeof(*x->a));
	if (!x->p || !x->a) {
		r->fail_errno = ENOMEM;
		snprintf(b->err, sizeof(b->err), "out of memory for a ring of %d", n);
		res_free(x);
		return -1;
	}
	for (; want_pipes && x->np < n; x->np++) {
		int rc;
		if (r->ipc == CB_RING_EVENTFD) {
			rc = x->p[x->np][0] = x->p[x->np][1] = eventfd(0, EFD_CLOEXEC);
		} else {
			rc = pipe2(x->p[x->np], O_CLOEXEC);
		}
		if (rc < 0) {
			r->fail_errno = errno;
			snprintf(b->err, sizeof(b->err), "%s failed after %d of %d links: %s",
				 r->ipc == CB_RING_EVENTFD ? "eventfd" : "pipe2", x->np, n, strerror(errno));
			res_free(x);
			return -1;
		}
	}
	for (; r->ws > 0 && x->na < n; x->na++) {
		if (!(x->a[x->na] = ws_alloc(r->ws))) {
			r->fail_errno = ENOMEM;
			snprintf(b->err, sizeof(b->err), "out of memory after %d of %d working sets of %lld bytes",
				 x->na, n, (long long)r->ws);
			res_free(x);
			return -1;
		}
	}
	return 0;
}

/* ---- threads ---- */

static void *member_thread(void *arg)
{
	member *m = arg;
	char err[200] = "";
	if (cb_pin_self(m->cpu, err, sizeof(err)) != 0)
		snprintf(m->msg, sizeof(m->msg), "ring member thread: %s", err); /* runs unpinned; the ring fails after */
	member_loop(m);
	return NULL;
}

int cb_ring_threads(cb_block *b, cb_ring *r)
{
	int n = r->n, rc = 0;
	size_t words = r->ws > 0 ? (size_t)r->ws / 8 : 0;
	ring_res x;
	member *m;
	pthread_t *th;
	pthread_attr_t attr;

	r->started = 0;
	if (n < 1 || b->samples == 0) {
		snprintf(b->err, sizeof(b->err), "ring: need at least one context and one sample");
		return -1;
	}
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	if (res_alloc(b, r, &x, 1) != 0)
		return -1;
	m = calloc((size_t)n, sizeof(*m));
	th = calloc((size_t)n, sizeof(*th));
	if (!m || !th) {
		free(m);
		free(th);
		res_free(&x);
		r->fail_errno = ENOMEM;
		snprintf(b->err, sizeof(b->err), "out of memory for %d ring members", n);
		return -1;
	}
	pthread_attr_init(&attr);
	if (r->stack > 0) {
		size_t st = (size_t)r->stack;
		long min = sysconf(_SC_THREAD_STACK_MIN);
		if (min > 0 && st < (size_t)min)
			st = (size_t)min;
		pthread_attr_setstacksize(&attr, st);
	}
	for (int i = 1; i < n; i++) {
		m[i].rd = x.p[i - 1][0];
		m[i].wr = x.p[i][1];
		m[i].a = x.a[i];
		m[i].words = words;
		m[i].cpu = (i % 2) ? b->cpu_b : b->cpu_a;
		m[i].b = b;
		int e = pthread_create(&th[i], &attr, member_thread, &m[i]);
		if (e != 0) {
			r->fail_errno = e;
			snprintf(b->err, sizeof(b->err), "could not start thread %d of %d: %s", i + 1, n, strerror(e));
			rc = -1;
			break;
		}
		r->started++;
	}
	pthread_attr_destroy(&attr);

	if (rc == 0)
		rc = head_loop(b, r, x.p[n - 1][0], x.p[0][1], x.a[0], words);
	if (rc != 0 && r->started > 0) {
		/* Stop the members that run: they forward the stop token down the
		 * ring; the last one writes it into a pipe nobody reads. */
		wr_tok(x.p[0][1], CB_RING_STOP);
	}
	for (int i = 1; i <= r->started; i++)
		pthread_join(th[i], NULL);

	r->min_passes = r->started ? UINT64_MAX : 0;
	for (int i = 1; i <= r->started; i++) {
		cb_counts *c = &m[i].c;
		r->members.nvcsw += c->nvcsw;
		r->members.nivcsw += c->nivcsw;
		if (c->perf_cs >= 0)
			r->members.perf_cs = (r->members.perf_cs < 0 ? 0 : r->members.perf_cs) + c->perf_cs;
		if (c->perf_migrations >= 0)
			r->members.perf_migrations = (r->members.perf_migrations < 0 ? 0 : r->members.perf_migrations) + c->perf_migrations;
		if (c->perf_instructions >= 0)
			r->members.perf_instructions = (r->members.perf_instructions < 0 ? 0 : r->members.perf_instructions) + c->perf_instructions;
		if (c->perf_cycles >= 0)
			r->members.perf_cycles = (r->members.perf_cycles < 0 ? 0 : r->members.perf_cycles) + c->perf_cycles;
		r->members.cpus_seen |= c->cpus_seen;
		r->passes += m[i].passes;
		if (m[i].passes < r->min_passes)
			r->min_passes = m[i].passes;
		if (m[i].passes > r->max_passes)
			r->max_passes = m[i].passes;
		r->sink += m[i].acc;
		if (rc == 0 && m[i].msg[0]) {
			snprintf(b->err, sizeof(b->err), "member %d: %s", i, m[i].msg);
			rc = -1;
		}
	}
	r->members.ops = r->passes;
	if (rc == 0 && r->overhead)
		rc = overhead_loop(b, r, x.p, x.a, words);
	free(m);
	free(th);
	res_free(&x);
	return rc;
}

/* ---- processes: the head in the worker, members in partners ---- */

/* fd[0]: read end of the last member's pipe; fd[1]: write end of the pipe
 * to member 1. The head's own working set is allocated here. */
int cb_ring_head(cb_block *b, cb_ring *r)
{
	size_t words = r->ws > 0 ? (size_t)r->ws / 8 : 0;
	uint64_t *a = NULL;
	int rc;
	if (r->n < 1 || b->samples == 0) {
		snprintf(b->err, sizeof(b->err), "ring: need at least one context and one sample");
		return -1;
	}
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	if (r->ws > 0 && !(a = ws_alloc(r->ws))) {
		snprintf(b->err, sizeof(b->err), "out of memory for a working set of %lld bytes", (long long)r->ws);
		return -1;
	}
	rc = head_loop(b, r, b->fd[0], b->fd[1], a, words);
	free(a);
	return rc;
}

/* A partner's side. fd[0]: read end of the previous context's pipe; fd[1]:
 * write end of this member's pipe; arg: working-set bytes; cpu_b: its CPU.
 * Counts go into b->b, passes into b->b.ops. */
int cb_ring_member(cb_block *b)
{
	member m;
	memset(&m, 0, sizeof(m));
	if (cb_pin_self(b->cpu_b, b->err, sizeof(b->err)) != 0)
		return -1;
	m.rd = b->fd[0];
	m.wr = b->fd[1];
	m.words = b->arg > 0 ? (size_t)b->arg / 8 : 0;
	m.b = b;
	m.c = b->b;
	if (b->arg > 0 && !(m.a = ws_alloc(b->arg))) {
		snprintf(b->err, sizeof(b->err), "out of memory for a working set of %lld bytes", (long long)b->arg);
		return -1;
	}
	int rc = member_loop(&m);
	free((void *)m.a);
	b->b = m.c;
	b->b.ops = m.passes;
	if (rc != 0) {
		snprintf(b->err, sizeof(b->err), "%s", m.msg[0] ? m.msg : "ring member failed");
		return -1;
	}
	return 0;
}

/* The overheads of a process ring, in the worker: N new pipes, N working
 * sets of this process (a process cannot touch its partners' memory). */
int cb_ring_overhead(cb_block *b, cb_ring *r)
{
	size_t words = r->ws > 0 ? (size_t)r->ws / 8 : 0;
	ring_res x;
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	if (res_alloc(b, r, &x, 1) != 0)
		return -1;
	int rc = overhead_loop(b, r, x.p, x.a, words);
	res_free(&x);
	return rc;
}
