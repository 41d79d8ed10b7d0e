//go:build linux

/*
 * load.c: contexts woken by an open-loop generator (ctxbench load).
 *
 * One request: at the request's intended time on a schedule computed before
 * the block starts (constant gaps, or exponential gaps for Poisson
 * arrivals), the generator is woken by its timer (armed for that time
 * before the previous post), arms it for the next request, takes the post
 * timestamp, puts {intended, post} in the
 * mailbox of one context (the first asleep, else the least loaded), and
 * FUTEX_WAKEs that context if it was asleep. The context stamps the moment
 * it runs, does the request's work (work_iters iterations of a dependent
 * 64-bit multiply-add: computation, not a timed spin, so a preempted request
 * takes longer in wall time), and stamps its end. Per request it records:
 *   generator lag       = post - intended (in the generator)
 *   wake-up latency     = running - post, for a request whose context had
 *                         gone to sleep and was woken by it (a hop)
 *   request latency     = end - intended (corrected) and end - post
 *                         (uncorrected), side by side
 *   service time        = end - start of the work
 *   queueing            = start - post, for a request that found its
 *                         context awake (no wake-up happened)
 * in HdrHistogram-layout histograms (load.h), counted over the requests
 * intended after the warm-up. A context whose futex wait returned without
 * sleeping (the request arrived as it was about to sleep) made no hop.
 *
 * After a post the generator sleeps in FUTEX_WAIT until its timer's signal
 * interrupts it, so between a post and the generator giving up the CPU
 * lies exactly what a futex ping-pong's hop holds (a FUTEX_WAKE, the
 * waker's FUTEX_WAIT, the switch): on one CPU, at a light load, a wake-up
 * is one hop. Measured on the reference machine (AMD EPYC, 2-vCPU KVM
 * guest, PVM backend; Nov 2026, 20,000 posts 50 us apart, same CPU), from
 * the post to the woken thread running: 2.15 us when the waker then blocks
 * in FUTEX_WAIT (the ladder's thread/futex hop read 2.1 us), 3.5 us when it
 * blocks in read() on a timerfd armed beforehand, 9.5 us when it arms its
 * next deadline with clock_nanosleep (a timer programmed inside the window
 * is a trip through the hypervisor); a timer thread handing each request
 * to the poster was preempted by it at every hand-off and ran before the
 * woken context. The timer's signal is in the generator's lag, where it
 * belongs.
 *
 * The method is open loop: the schedule never waits for the contexts, so a
 * stall delays the posts behind it and the corrected latency, measured from
 * the intended time, keeps the delay that the uncorrected one (from the
 * post) leaves out: coordinated omission (Gil Tene, "How NOT to Measure
 * Latency", 2015; wrk2, https://github.com/giltene/wrk2, which takes latency
 * from when each request should have been sent). The generator's own lag is
 * kept as cyclictest keeps its timer latency (rt-tests, absolute deadlines).
 * schbench (Chris Mason, https://github.com/masoncl/schbench) is the
 * closest peer: its message threads wake workers through futexes and it
 * prints wake-up percentiles from a log-linear histogram, but its latency
 * starts when the work starts, and its rate mode posts each second's
 * requests as one burst.
 *
 * Every timestamp is CLOCK_MONOTONIC (vDSO), the clock of the timerfd's
 * absolute deadlines; NTP may slew it by at most 0.05%, nothing at
 * these lengths. The contexts are threads of this process (cb_load_run
 * with processes = 0) or single-threaded processes that map the same
 * region from a memfd (processes = 1, each running cb_load_st in st.c's
 * constructor before the Go runtime starts). Both sides count their own
 * switches (getrusage RUSAGE_THREAD), CPU time (CLOCK_THREAD_CPUTIME_ID)
 * and the kernel's account of their waiting (/proc/thread-self/schedstat:
 * run delay and timeslices), read before and after the block, outside the
 * timed stretches.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "load.h"

static inline uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int64_t thread_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static long futex(uint32_t *w, int op, uint32_t v, const struct timespec *t)
{
	return syscall(SYS_futex, w, op, v, t, NULL, 0);
}

static int op_wait(const cb_load *L) { return L->processes ? FUTEX_WAIT : FUTEX_WAIT_PRIVATE; }
static int op_wake(const cb_load *L) { return L->processes ? FUTEX_WAKE : FUTEX_WAKE_PRIVATE; }

/* The kernel's account of this thread: run delay (ns runnable but not
 * running) and timeslices, from schedstat; -1 where the kernel has none. */
static void read_schedstat(int64_t *delay, int64_t *slices)
{
	char buf[128];
	unsigned long long run, wait, n;
	*delay = *slices = -1;
	int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	ssize_t r = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (r <= 0)
		return;
	buf[r] = 0;
	if (sscanf(buf, "%llu %llu %llu", &run, &wait, &n) == 3) {
		*delay = (int64_t)wait;
		*slices = (int64_t)n;
	}
}

static void rusage_thread(int64_t *v, int64_t *iv)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	*v = ru.ru_nvcsw;
	*iv = ru.ru_nivcsw;
}

static int pin(int cpu, char *err, int errlen)
{
	cpu_set_t set;
	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof set, &set) != 0) {
		snprintf(err, errlen, "cannot pin to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

static void note_cpu(uint64_t *seen)
{
	int cpu = sched_getcpu();
	if (cpu >= 0 && cpu < 64)
		*seen |= 1ull << cpu;
}

/* ---- histograms (HdrHistogram's layout, load.h) ---- */

uint32_t cb_lh_index(uint64_t v)
{
	if (v > CB_LH_HIGHEST)
		v = CB_LH_HIGHEST;
	int pow2ceil = 64 - __builtin_clzll(v | CB_LH_SUB_MASK);
	int bucket = pow2ceil - (CB_LH_SUB_HALF_MAG + 1);
	uint64_t sub = v >> bucket;
	return (uint32_t)(((uint64_t)(bucket + 1) << CB_LH_SUB_HALF_MAG) + sub - (1u << CB_LH_SUB_HALF_MAG));
}

static inline void lh_record(cb_lh *h, int64_t v)
{
	uint64_t u = v < 0 ? 0 : (uint64_t)v;
	h->counts[cb_lh_index(u)]++;
	h->n++;
	if (u > h->max)
		h->max = u;
}

/* ---- the work of one request ---- */

static uint64_t work_sink;

static inline void work(uint64_t iters)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (uint64_t i = 0; i < iters; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
	__atomic_store_n(&work_sink, x, __ATOMIC_RELAXED);
}

/* The work loop's ns per iteration on this thread: the least of reps runs. */
double cb_load_work_ns(uint64_t iters, int reps)
{
	double best = 0;
	if (iters == 0)
		return 0;
	for (int r = 0; r < reps; r++) {
		uint64_t t0 = now_ns();
		work(iters);
		double ns = (double)(now_ns() - t0) / (double)iters;
		if (r == 0 || ns < best)
			best = ns;
	}
	return best;
}

/* ---- the region ---- */

uint64_t cb_load_size(int32_t nctx)
{
	uint64_t n = sizeof(cb_load) + (uint64_t)nctx * sizeof(cb_load_ctx);
	return (n + 4095) & ~4095ull;
}

void cb_load_init(cb_load *L)
{
	for (int32_t i = 0; i < L->nctx; i++) {
		cb_load_ctx *c = &L->ctx[i];
		memset(c, 0, sizeof *c);
	}
}

/* ---- a woken context ---- */

static void serve(cb_load *L, cb_load_ctx *c, const cb_load_slot *s, int hop, uint64_t t_run)
{
	uint64_t start = hop ? t_run : now_ns();
	work(L->work_iters);
	uint64_t end = now_ns();
	c->done++;
	c->last_end = end;
	if (s->intended >= L->t_measure) {
		c->measured++;
		if (hop) {
			c->hops++;
			lh_record(&c->h[CB_LH_WAKE], (int64_t)(t_run - s->post));
		} else {
			c->queued++;
			lh_record(&c->h[CB_LH_QUEUE], (int64_t)(start - s->post));
		}
		lh_record(&c->h[CB_LH_REQ_C], (int64_t)(end - s->intended));
		lh_record(&c->h[CB_LH_REQ_U], (int64_t)(end - s->post));
		lh_record(&c->h[CB_LH_SERVICE], (int64_t)(end - start));
	}
	__atomic_add_fetch(&L->completed, 1, __ATOMIC_RELEASE);
	note_cpu(&c->cpus_seen);
}

int cb_load_context(cb_load *L, int32_t i)
{
	cb_load_ctx *c = &L->ctx[i];
	int64_t v0, iv0, d0, s0, d1, s1;
	if (pin(L->cpu_ctx, c->err, sizeof c->err) != 0) {
		__atomic_store_n(&c->failed, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&c->exited, 1, __ATOMIC_RELEASE);
		return -1;
	}
	rusage_thread(&v0, &iv0);
	read_schedstat(&d0, &s0);
	int64_t cpu0 = thread_cpu_ns();
	__atomic_store_n(&c->ready, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&L->go, __ATOMIC_ACQUIRE) == 0)
		futex(&L->go, op_wait(L), 0, NULL);
	note_cpu(&c->cpus_seen);
	int hop = 0;
	uint64_t t_run = 0;
	for (;;) {
		if (__atomic_load_n(&L->stop, __ATOMIC_ACQUIRE) == 2)
			break; /* abandoned: what is pending stays unserved */
		uint64_t h = c->head;
		if (h != __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE)) {
			cb_load_slot s = c->slot[h & (CB_LOAD_RING - 1)];
			__atomic_store_n(&c->head, h + 1, __ATOMIC_RELEASE);
			serve(L, c, &s, hop, t_run);
			hop = 0;
			continue;
		}
		hop = 0;
		if (__atomic_load_n(&L->stop, __ATOMIC_ACQUIRE))
			break;
		__atomic_store_n(&c->state, 1, __ATOMIC_SEQ_CST);
		if (c->head != __atomic_load_n(&c->tail, __ATOMIC_SEQ_CST) || __atomic_load_n(&L->stop, __ATOMIC_SEQ_CST)) {
			__atomic_store_n(&c->state, 0, __ATOMIC_SEQ_CST);
			continue; /* a request (or the stop) came as it was about to sleep: no hop */
		}
		long r = futex(&c->state, op_wait(L), 1, NULL);
		t_run = now_ns();
		/* Slept and woken (0), rather than finding the word already changed
		 * (EAGAIN) or a signal (EINTR): the next request it takes is the
		 * one whose post woke it. */
		hop = r == 0;
		__atomic_store_n(&c->state, 0, __ATOMIC_SEQ_CST);
	}
	c->cpu_ns = thread_cpu_ns() - cpu0;
	int64_t v1, iv1;
	rusage_thread(&v1, &iv1);
	read_schedstat(&d1, &s1);
	c->nvcsw = v1 - v0;
	c->nivcsw = iv1 - iv0;
	c->run_delay_ns = d0 >= 0 && d1 >= 0 ? d1 - d0 : -1;
	c->timeslices = s0 >= 0 && s1 >= 0 ? s1 - s0 : -1;
	__atomic_store_n(&c->exited, 1, __ATOMIC_RELEASE);
	return 0;
}

/* A context in a single-threaded process (st.c): map the region from fd
 * and serve as context i. */
int cb_load_st(int fd, int32_t i, int32_t cpu, char *err, int errlen)
{
	(void)cpu; /* the region says where contexts run */
	cb_load *head = mmap(NULL, sizeof(cb_load), PROT_READ, MAP_SHARED, fd, 0);
	if (head == MAP_FAILED) {
		snprintf(err, errlen, "mmap of the load region: %s", strerror(errno));
		return -1;
	}
	int32_t n = head->nctx;
	munmap(head, sizeof(cb_load));
	if (i < 0 || i >= n) {
		snprintf(err, errlen, "context %d of %d", i, n);
		return -1;
	}
	uint64_t size = cb_load_size(n);
	cb_load *L = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (L == MAP_FAILED) {
		snprintf(err, errlen, "mmap of the load region: %s", strerror(errno));
		return -1;
	}
	int rc = cb_load_context(L, i);
	if (rc != 0)
		snprintf(err, errlen, "%s", L->ctx[i].err);
	munmap(L, size);
	return rc;
}

/* ---- the generator ---- */

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1Dull;
}

/* The schedule: offsets from t0 of every request, computed before the
 * block starts so that nothing but the posts happens while it runs. */
static uint64_t *schedule(const cb_load *L, uint64_t *n)
{
	double mean = 1e9 / L->rate;
	uint64_t cap = (uint64_t)(L->rate * (double)L->duration_ns / 1e9 * 1.5) + 16;
	uint64_t *off = malloc(cap * sizeof *off);
	if (!off)
		return NULL;
	uint64_t s = L->seed ? L->seed : 0x853c49e6748fea9bull, k = 0;
	double t = 0;
	for (;;) {
		if (L->poisson) {
			double u = ((double)(xorshift(&s) >> 11) + 1.0) / 9007199254740993.0; /* (0, 1] */
			t += -log(u) * mean;
		} else {
			t = (double)k * mean;
		}
		if (t >= (double)L->duration_ns || k == cap)
			break;
		off[k++] = (uint64_t)t;
	}
	*n = k;
	return off;
}

/* The context a request goes to: the first asleep with nothing pending,
 * looking from *rr on, else the one with the least pending; -1 when every
 * mailbox is full. */
static int32_t choose(cb_load *L, int32_t *rr)
{
	int32_t best = -1;
	uint64_t least = CB_LOAD_RING;
	for (int32_t k = 0; k < L->nctx; k++) {
		int32_t i = (*rr + k) % L->nctx;
		cb_load_ctx *c = &L->ctx[i];
		uint64_t pending = c->tail - __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
		if (pending == 0 && __atomic_load_n(&c->state, __ATOMIC_ACQUIRE) == 1) {
			best = i;
			break;
		}
		if (pending < least) {
			least = pending;
			best = i;
		}
	}
	if (best >= 0)
		*rr = (best + 1) % L->nctx;
	return best;
}

static cb_load *cb_load_current; /* the region thread contexts serve (one block per worker) */

static void *thread_main(void *arg)
{
	cb_load_context(cb_load_current, (int32_t)(intptr_t)arg);
	return NULL;
}

static int wait_ready(cb_load *L)
{
	uint64_t deadline = now_ns() + 20000000000ull;
	for (int32_t i = 0; i < L->nctx; i++) {
		while (!__atomic_load_n(&L->ctx[i].ready, __ATOMIC_ACQUIRE)) {
			if (__atomic_load_n(&L->ctx[i].failed, __ATOMIC_ACQUIRE)) {
				snprintf(L->err, sizeof L->err, "context %d: %s", i, L->ctx[i].err);
				return -1;
			}
			if (now_ns() > deadline) {
				snprintf(L->err, sizeof L->err, "context %d was not ready within 20 s", i);
				return -1;
			}
			usleep(200);
		}
	}
	return 0;
}

static void stop_all(cb_load *L, uint32_t how)
{
	__atomic_store_n(&L->stop, how, __ATOMIC_SEQ_CST);
	for (int32_t i = 0; i < L->nctx; i++) {
		__atomic_store_n(&L->ctx[i].state, 0, __ATOMIC_SEQ_CST);
		futex(&L->ctx[i].state, op_wake(L), INT_MAX, NULL);
	}
	/* contexts that never started (a failed start) must not wait for go */
	__atomic_store_n(&L->go, 1, __ATOMIC_SEQ_CST);
	futex(&L->go, op_wake(L), INT_MAX, NULL);
}

static void wait_exited(cb_load *L)
{
	uint64_t deadline = now_ns() + 5000000000ull;
	for (int32_t i = 0; i < L->nctx; i++)
		while (!__atomic_load_n(&L->ctx[i].exited, __ATOMIC_ACQUIRE) && now_ns() < deadline)
			usleep(200);
}

/* The generator's timer: a POSIX timer armed for the next intended time
 * before each post, delivering a real-time signal to the generator thread
 * itself, whose handler only sets tick (so no syscall, lock or allocation
 * runs in it); the generator waits for it in FUTEX_WAIT on tick, which the
 * signal interrupts. */
#define CB_LOAD_SIG (SIGRTMAX - 3)
static uint32_t tick;
static void on_tick(int sig)
{
	(void)sig;
	__atomic_store_n(&tick, 1, __ATOMIC_SEQ_CST);
}

static void arm_at(timer_t t, uint64_t at)
{
	struct itimerspec its;
	memset(&its, 0, sizeof its);
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	timer_settime(t, TIMER_ABSTIME, &its, NULL);
}

/* wait_until blocks until at, its timer already armed: the flag is cleared
 * before the clock is read, so a signal after the read sets it again and
 * FUTEX_WAIT returns at once (no tick is lost). */
static void wait_until(uint64_t at)
{
	for (;;) {
		__atomic_store_n(&tick, 0, __ATOMIC_SEQ_CST);
		if (now_ns() >= at)
			return;
		syscall(SYS_futex, &tick, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	}
}

/* The spinner of keep_busy: a SCHED_IDLE thread on the contexts' CPU, so
 * the CPU never idles between requests (as a busy machine's does not) yet
 * any generator or context that becomes runnable runs at once. */
static void *spin_main(void *arg)
{
	cb_load *L = arg;
	struct sched_param sp = { 0 };
	char err[120];
	pin(L->cpu_ctx, err, sizeof err);
	sched_setscheduler(0, SCHED_IDLE, &sp);
	while (!__atomic_load_n(&L->stop, __ATOMIC_RELAXED))
		for (int i = 0; i < 1000; i++)
			__asm__ __volatile__("" ::: "memory");
	return NULL;
}

static int generate(cb_load *L)
{
	uint64_t n;
	int64_t v0, iv0, d0, s0, d1, s1, v1, iv1;
	uint64_t *off = schedule(L, &n);
	if (!off) {
		snprintf(L->err, sizeof L->err, "out of memory for the schedule");
		return -1;
	}
	if (pin(L->cpu_gen, L->err, sizeof L->err) != 0) {
		free(off);
		return -1;
	}
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0); /* deadlines to the nanosecond, not the default 50 us */
	L->ns_per_iter = cb_load_work_ns(L->work_iters > 0 ? L->work_iters : 1000, 5);
	if (wait_ready(L) != 0) {
		free(off);
		return -1;
	}
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_tick;
	sigemptyset(&sa.sa_mask);
	sigset_t unblock, oldmask;
	sigemptyset(&unblock);
	sigaddset(&unblock, CB_LOAD_SIG);
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = CB_LOAD_SIG;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	timer_t timer;
	if (sigaction(CB_LOAD_SIG, &sa, &old) != 0 || pthread_sigmask(SIG_UNBLOCK, &unblock, &oldmask) != 0 ||
	    timer_create(CLOCK_MONOTONIC, &sev, &timer) != 0) {
		snprintf(L->err, sizeof L->err, "the generator's timer: %s", strerror(errno));
		free(off);
		return -1;
	}
	rusage_thread(&v0, &iv0);
	read_schedstat(&d0, &s0);
	int64_t cpu0 = thread_cpu_ns();
	L->scheduled = n;
	L->t0 = now_ns() + 1000000; /* the first request a millisecond from now */
	L->t_measure = L->t0 + L->warmup_ns;
	for (uint64_t k = 0; k < n; k++)
		if (off[k] >= L->warmup_ns)
			L->measured_scheduled++;
	pthread_t spinner;
	int spinning = L->keep_busy && pthread_create(&spinner, NULL, spin_main, L) == 0;
	__atomic_store_n(&L->go, 1, __ATOMIC_SEQ_CST);
	futex(&L->go, op_wake(L), INT_MAX, NULL);
	note_cpu(&L->gen_cpus_seen);
	if (n > 0)
		arm_at(timer, L->t0 + off[0]);
	int32_t rr = 0;
	for (uint64_t k = 0; k < n; k++) {
		uint64_t intended = L->t0 + off[k];
		wait_until(intended);
		if (k + 1 < n)
			arm_at(timer, L->t0 + off[k + 1]);
		int32_t i = choose(L, &rr);
		if (i < 0) {
			L->dropped++;
			continue;
		}
		cb_load_ctx *c = &L->ctx[i];
		cb_load_slot *s = &c->slot[c->tail & (CB_LOAD_RING - 1)];
		uint64_t post = now_ns();
		s->intended = intended;
		s->post = post;
		__atomic_store_n(&c->tail, c->tail + 1, __ATOMIC_SEQ_CST);
		if (__atomic_exchange_n(&c->state, 0, __ATOMIC_SEQ_CST) == 1)
			futex(&c->state, op_wake(L), 1, NULL);
		L->posted++;
		if (intended >= L->t_measure)
			lh_record(&L->lag, (int64_t)(post - intended));
		L->t_last_intended = intended;
	}
	timer_delete(timer);
	pthread_sigmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(CB_LOAD_SIG, &old, NULL);
	note_cpu(&L->gen_cpus_seen);
	/* Drain: wait for the contexts to serve what is pending, up to drain_ns. */
	uint64_t deadline = now_ns() + L->drain_ns;
	while (__atomic_load_n(&L->completed, __ATOMIC_ACQUIRE) < L->posted && now_ns() < deadline) {
		struct timespec ts = { 0, 1000000 };
		futex(&L->finished, op_wait(L), 0, &ts);
	}
	int abandoned = __atomic_load_n(&L->completed, __ATOMIC_ACQUIRE) < L->posted;
	L->gen_cpu_ns = thread_cpu_ns() - cpu0;
	rusage_thread(&v1, &iv1);
	read_schedstat(&d1, &s1);
	L->gen_nvcsw = v1 - v0;
	L->gen_nivcsw = iv1 - iv0;
	L->gen_run_delay_ns = d0 >= 0 && d1 >= 0 ? d1 - d0 : -1;
	stop_all(L, abandoned ? 2 : 1);
	if (spinning)
		pthread_join(spinner, NULL);
	free(off);
	return 0;
}

static void finish(cb_load *L)
{
	uint64_t end = 0;
	for (int32_t i = 0; i < L->nctx; i++)
		if (L->ctx[i].last_end > end)
			end = L->ctx[i].last_end;
	L->t_end = end;
	L->unserved = L->posted - __atomic_load_n(&L->completed, __ATOMIC_ACQUIRE);
}

int cb_load_run(cb_load *L)
{
	if (L->nctx < 1 || !(L->rate > 0) || L->duration_ns == 0) {
		snprintf(L->err, sizeof L->err, "load: need contexts, a rate and a duration");
		return -1;
	}
	if (L->processes) {
		int rc = generate(L);
		if (rc != 0)
			stop_all(L, 2);
		wait_exited(L);
		finish(L);
		return rc;
	}
	pthread_t *th = calloc((size_t)L->nctx, sizeof *th);
	if (!th) {
		snprintf(L->err, sizeof L->err, "out of memory");
		return -1;
	}
	cb_load_current = L;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 256 << 10);
	int32_t started = 0;
	for (; started < L->nctx; started++) {
		if (pthread_create(&th[started], &attr, thread_main, (void *)(intptr_t)started) != 0) {
			snprintf(L->err, sizeof L->err, "pthread_create failed after %d contexts", started);
			break;
		}
	}
	pthread_attr_destroy(&attr);
	int rc = -1;
	if (started == L->nctx)
		rc = generate(L);
	else
		for (int32_t i = started; i < L->nctx; i++)
			L->ctx[i].exited = 1;
	if (rc != 0)
		stop_all(L, 2);
	for (int32_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	finish(L);
	return rc;
}
