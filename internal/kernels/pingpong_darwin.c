/*
 * pingpong_darwin.c: blocking ping-pong between two OS threads or two
 * processes, on macOS (pingpong.c is Linux's).
 *
 * One op is a round trip A -> B -> A: two hops. Side A times; side B echoes.
 * Switches are counted per process (counts_darwin.c): two threads of one
 * process are counted once, by side A.
 *
 * thread/pipe, process/pipe — A writes a 4-byte int into pipe 1 and blocks
 *   reading pipe 2; B reads pipe 1 and writes pipe 2: Linux's pipe
 *   ping-pong (perf bench sched pipe's method; the fork-and-two-pipes
 *   program the published M1 figure came from), the same code.
 * thread/kqueue-user — where Linux has an eventfd, macOS has a kqueue user
 *   event: each side owns a kqueue with one EVFILT_USER event (EV_CLEAR);
 *   A triggers B's (NOTE_TRIGGER) and blocks in kevent on its own; B
 *   mirrors it. A kqueue is not passed between processes, so there is no
 *   process row.
 * thread/wait-on-address, process/wait-on-address — where Linux has the
 *   futex, macOS has wait-on-address: a shared 32-bit turn flag; A stores 1
 *   and wakes, then waits while the flag is still 1; B mirrors it; no
 *   spinning. os_sync_wait_on_address / os_sync_wake_by_address_any
 *   (macOS 14.4+, _SHARED across processes) where the system has them,
 *   else the private __ulock_wait / __ulock_wake they are built on
 *   (UL_COMPARE_AND_WAIT, _SHARED) — cb_wait_primitive names the one used.
 * thread/yield — both threads call sched_yield in a loop; a hop is one
 *   yield. Unpinned (macOS cannot pin), the two threads may sit on two CPUs
 *   and yield without switching: the switch count says so.
 * reference/cacheline — two threads hand a cache line back and forth by
 *   spinning: a handoff with no switch at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/event.h>
#include <sys/mman.h>
#include <unistd.h>

#include "clock.h"
#include "kernels.h"

/* ---- wait-on-address: the public API where it exists, else ulock ---- */

/* <os/os_sync_wait_on_address.h> (macOS 14.4 SDK); declared here, weakly,
 * so the binary loads on older systems, where they are NULL. */
extern int os_sync_wait_on_address(void *addr, uint64_t value, size_t size, uint32_t flags) __attribute__((weak_import));
extern int os_sync_wake_by_address_any(void *addr, size_t size, uint32_t flags) __attribute__((weak_import));
#define OS_SYNC_SHARED 0x1u /* OS_SYNC_WAIT_ON_ADDRESS_SHARED, OS_SYNC_WAKE_BY_ADDRESS_SHARED */

/* The private interface (xnu's sys/ulock.h), in libSystem since 10.12. */
extern int __ulock_wait(uint32_t operation, void *addr, uint64_t value, uint32_t timeout_us);
extern int __ulock_wake(uint32_t operation, void *addr, uint64_t wake_value);
#define UL_COMPARE_AND_WAIT 1u
#define UL_COMPARE_AND_WAIT_SHARED 3u

static int have_os_sync(void) { return os_sync_wait_on_address != NULL && os_sync_wake_by_address_any != NULL; }

const char *cb_wait_primitive(void)
{
	return have_os_sync() ? "os_sync_wait_on_address" : "__ulock_wait";
}

/* Sleep while *w == v (returns at once when it is not). */
static inline void woa_wait(int *w, int v, int shared)
{
	if (have_os_sync())
		os_sync_wait_on_address(w, (uint64_t)(uint32_t)v, sizeof(*w), shared ? OS_SYNC_SHARED : 0);
	else
		__ulock_wait(shared ? UL_COMPARE_AND_WAIT_SHARED : UL_COMPARE_AND_WAIT, w, (uint64_t)(uint32_t)v, 0);
}

static inline void woa_wake(int *w, int shared)
{
	if (have_os_sync())
		os_sync_wake_by_address_any(w, sizeof(*w), shared ? OS_SYNC_SHARED : 0);
	else
		__ulock_wake(shared ? UL_COMPARE_AND_WAIT_SHARED : UL_COMPARE_AND_WAIT, w, 0);
}

static inline void wait_ne(int *w, int v, int shared)
{
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == v)
		woa_wait(w, v, shared);
}

/* ---- one side's loop ---- */

enum { PP_PIPE = 1, PP_KQUEUE, PP_WOA, PP_YIELD, PP_SPINLINE };

typedef struct pp {
	int mode;
	int rd, wr;        /* pipe mode: this side's read and write fds */
	int kq_own, kq_peer; /* kqueue mode: this side's kqueue, the other's */
	int *word;         /* wait-on-address and spin modes: the turn flag */
	int shared;        /* wait-on-address across processes */
	int counted;       /* this side counts its process's switches */
	volatile int stop; /* yield mode: A tells B to finish */
} pp;

static inline int pipe_io(int fd, int write_side, int *v)
{
	ssize_t n = write_side ? write(fd, v, sizeof(*v)) : read(fd, v, sizeof(*v));
	if (n == (ssize_t)sizeof(*v))
		return 0;
	if (n >= 0)
		errno = 0;
	return -1;
}

/* Trigger the peer's user event, or wait for this side's. */
static inline int kq_trigger(int kq)
{
	struct kevent ev;
	EV_SET(&ev, 1, EVFILT_USER, 0, NOTE_TRIGGER, 0, NULL);
	return kevent(kq, &ev, 1, NULL, 0, NULL) < 0 ? -1 : 0;
}

static inline int kq_wait(int kq)
{
	struct kevent ev;
	int n;
	while ((n = kevent(kq, NULL, 0, &ev, 1, NULL)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

static int side_a_loop(cb_block *b, pp *p)
{
	int v = 1;
	cb_counter ctr;
	cb_counter_begin(&ctr, b);
	for (uint32_t s = 0; s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		switch (p->mode) {
		case PP_PIPE:
			for (uint64_t i = 0; i < b->iters; i++) {
				if (pipe_io(p->wr, 1, &v) || pipe_io(p->rd, 0, &v)) {
					cb_counter_end(&ctr, &b->a);
					snprintf(b->err, sizeof(b->err), "partner closed the pipe (%s)",
						 errno ? strerror(errno) : "end of file");
					return -1;
				}
			}
			break;
		case PP_KQUEUE:
			for (uint64_t i = 0; i < b->iters; i++) {
				if (kq_trigger(p->kq_peer) || kq_wait(p->kq_own)) {
					cb_counter_end(&ctr, &b->a);
					snprintf(b->err, sizeof(b->err), "kevent: %s", strerror(errno));
					return -1;
				}
			}
			break;
		case PP_WOA:
			for (uint64_t i = 0; i < b->iters; i++) {
				__atomic_store_n(p->word, 1, __ATOMIC_RELEASE);
				woa_wake(p->word, p->shared);
				wait_ne(p->word, 1, p->shared);
			}
			break;
		case PP_YIELD:
			for (uint64_t i = 0; i < b->iters; i++)
				sched_yield();
			break;
		case PP_SPINLINE:
			for (uint64_t i = 0; i < b->iters; i++) {
				__atomic_store_n(p->word, 1, __ATOMIC_RELEASE);
				while (__atomic_load_n(p->word, __ATOMIC_ACQUIRE) == 1)
					;
			}
			break;
		}
		cb_stamp t1 = cb_stamp_now();
		cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
	}
	cb_counter_end(&ctr, &b->a);
	b->a.ops = (uint64_t)(b->warmup + b->samples) * b->iters;
	return 0;
}

static int side_b_loop(cb_block *b, pp *p)
{
	uint64_t total = (uint64_t)(b->warmup + b->samples) * b->iters;
	uint64_t done = 0;
	int v = 1;
	cb_counter ctr;
	if (p->counted)
		cb_counter_begin(&ctr, b);
	cb_note_cpu(&b->b);
	switch (p->mode) {
	case PP_PIPE:
		for (; done < total; done++) {
			if (pipe_io(p->rd, 0, &v) || pipe_io(p->wr, 1, &v))
				break;
		}
		break;
	case PP_KQUEUE:
		for (; done < total; done++) {
			if (kq_wait(p->kq_own) || kq_trigger(p->kq_peer))
				break;
		}
		break;
	case PP_WOA:
		for (; done < total; done++) {
			wait_ne(p->word, 0, p->shared);
			__atomic_store_n(p->word, 0, __ATOMIC_RELEASE);
			woa_wake(p->word, p->shared);
		}
		break;
	case PP_YIELD:
		while (!p->stop) {
			sched_yield();
			done++;
		}
		break;
	case PP_SPINLINE:
		for (; done < total; done++) {
			while (__atomic_load_n(p->word, __ATOMIC_ACQUIRE) == 0)
				;
			__atomic_store_n(p->word, 0, __ATOMIC_RELEASE);
		}
		break;
	}
	cb_note_cpu(&b->b);
	if (p->counted) {
		cb_counter_end(&ctr, &b->b);
	} else {
		/* side A's count is the process's: both threads, once */
		b->b.nvcsw = b->b.nivcsw = 0;
		b->b.perf_cs = b->b.perf_migrations = b->b.perf_instructions = b->b.perf_cycles = -1;
	}
	b->b.ops = done;
	if (p->mode != PP_YIELD && done != total) {
		snprintf(b->err, sizeof(b->err), "partner side stopped after %llu of %llu ops",
			 (unsigned long long)done, (unsigned long long)total);
		return -1;
	}
	return 0;
}

/* ---- two threads of this process ---- */

/* macOS has no pthread barriers: a two-party one. */
typedef struct barrier2 {
	pthread_mutex_t m;
	pthread_cond_t c;
	int n;
} barrier2;

static void barrier2_wait(barrier2 *b)
{
	pthread_mutex_lock(&b->m);
	if (++b->n == 2)
		pthread_cond_broadcast(&b->c);
	while (b->n < 2)
		pthread_cond_wait(&b->c, &b->m);
	pthread_mutex_unlock(&b->m);
}

typedef struct thread_arg {
	cb_block *b;
	pp *p;
	barrier2 *bar;
	int ok;
} thread_arg;

static void *thread_b(void *arg)
{
	thread_arg *t = arg;
	char err[200] = "";
	t->ok = cb_pin_self(t->b->cpu_b, err, sizeof(err)) == 0;
	barrier2_wait(t->bar);
	if (!t->ok) {
		snprintf(t->b->err, sizeof(t->b->err), "partner thread: %s", err);
		return NULL;
	}
	side_b_loop(t->b, t->p);
	return NULL;
}

static int run_threads(cb_block *b, pp *pa, pp *pb)
{
	barrier2 bar = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
	pthread_t th;
	thread_arg t = { b, pb, &bar, 0 };
	pa->counted = 1; /* the process's count, once: side A's */
	pb->counted = 0;
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	if (pthread_create(&th, NULL, thread_b, &t) != 0) {
		snprintf(b->err, sizeof(b->err), "pthread_create failed");
		return -1;
	}
	barrier2_wait(&bar);
	int rc = -1;
	if (t.ok) {
		rc = side_a_loop(b, pa);
		pb->stop = 1;
	}
	pthread_join(th, NULL);
	if (rc == 0 && b->err[0])
		rc = -1;
	return rc;
}

/* pipe with close-on-exec on both ends (macOS has no pipe2) */
static int pipe_cloexec(int p[2])
{
	if (pipe(p) != 0)
		return -1;
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
	return 0;
}

int cb_thread_pipe(cb_block *b)
{
	int p1[2], p2[2];
	if (pipe_cloexec(p1) || pipe_cloexec(p2)) {
		snprintf(b->err, sizeof(b->err), "pipe: %s", strerror(errno));
		return -1;
	}
	pp pa = { .mode = PP_PIPE, .rd = p2[0], .wr = p1[1] };
	pp pb = { .mode = PP_PIPE, .rd = p1[0], .wr = p2[1] };
	int rc = run_threads(b, &pa, &pb);
	close(p1[0]); close(p1[1]); close(p2[0]); close(p2[1]);
	return rc;
}

/* A kqueue with one user event, ident 1, cleared when retrieved. */
static int user_kqueue(void)
{
	int kq = kqueue();
	if (kq < 0)
		return -1;
	struct kevent ev;
	EV_SET(&ev, 1, EVFILT_USER, EV_ADD | EV_CLEAR, 0, 0, NULL);
	if (kevent(kq, &ev, 1, NULL, 0, NULL) < 0) {
		close(kq);
		return -1;
	}
	return kq;
}

int cb_thread_kqueue_user(cb_block *b)
{
	int ka = user_kqueue(), kb = user_kqueue();
	if (ka < 0 || kb < 0) {
		snprintf(b->err, sizeof(b->err), "kqueue EVFILT_USER: %s", strerror(errno));
		if (ka >= 0) close(ka);
		if (kb >= 0) close(kb);
		return -1;
	}
	pp pa = { .mode = PP_KQUEUE, .kq_own = ka, .kq_peer = kb };
	pp pb = { .mode = PP_KQUEUE, .kq_own = kb, .kq_peer = ka };
	int rc = run_threads(b, &pa, &pb);
	close(ka); close(kb);
	return rc;
}

static int thread_word(cb_block *b, int mode)
{
	static int word __attribute__((aligned(128))); /* Apple silicon's cache line is 128 bytes */
	word = 0;
	pp pa = { .mode = mode, .word = &word };
	pp pb = pa;
	return run_threads(b, &pa, &pb);
}

int cb_thread_wait_on_address(cb_block *b) { return thread_word(b, PP_WOA); }
int cb_ref_cacheline(cb_block *b) { return thread_word(b, PP_SPINLINE); }

int cb_thread_yield(cb_block *b)
{
	pp pa = { .mode = PP_YIELD };
	pp pb = { .mode = PP_YIELD };
	return run_threads(b, &pa, &pb); /* run_threads raises pb.stop when A is done */
}

/* ---- two processes: each side counts its own process ---- */

/* fd[0]: read end of the pipe from B, fd[1]: write end of the pipe to B. */
int cb_proc_pipe_a(cb_block *b)
{
	pp pa = { .mode = PP_PIPE, .rd = b->fd[0], .wr = b->fd[1], .counted = 1 };
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	return side_a_loop(b, &pa);
}

/* fd[0]: read end of the pipe from A, fd[1]: write end of the pipe to A. */
int cb_proc_pipe_b(cb_block *b)
{
	pp pb = { .mode = PP_PIPE, .rd = b->fd[0], .wr = b->fd[1], .counted = 1 };
	if (cb_pin_self(b->cpu_b, b->err, sizeof(b->err)) != 0)
		return -1;
	return side_b_loop(b, &pb);
}

static int *map_word(cb_block *b)
{
	void *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd[0], 0);
	if (m == MAP_FAILED) {
		snprintf(b->err, sizeof(b->err), "mmap of the shared page: %s", strerror(errno));
		return NULL;
	}
	return (int *)m;
}

/* fd[0]: a file of at least one page both processes map; the flag starts at 0. */
static int proc_woa(cb_block *b, int side_a)
{
	if (cb_pin_self(side_a ? b->cpu_a : b->cpu_b, b->err, sizeof(b->err)) != 0)
		return -1;
	int *w = map_word(b);
	if (!w)
		return -1;
	pp p = { .mode = PP_WOA, .word = w, .shared = 1, .counted = 1 };
	int rc = side_a ? side_a_loop(b, &p) : side_b_loop(b, &p);
	munmap(w, 4096);
	return rc;
}

int cb_proc_wait_on_address_a(cb_block *b) { return proc_woa(b, 1); }
int cb_proc_wait_on_address_b(cb_block *b) { return proc_woa(b, 0); }
