//go:build linux

/*
 * pingpong.c: blocking ping-pong between two OS threads or two processes.
 *
 * One op is a round trip A -> B -> A: two hops. Side A times; side B echoes.
 * Both sides count their own context switches over the whole block.
 *
 * thread/pipe, process/pipe — A writes a 4-byte int into pipe 1 and blocks
 *   reading pipe 2; B reads pipe 1 and writes pipe 2. This is Ingo Molnar's
 *   pipe-test-1m.c as run by `perf bench sched pipe` (-T for threads), and the
 *   fork-and-two-pipes program of the published experiment, with the timed
 *   region cut into samples and fork/pthread_create outside of it.
 * thread/eventfd — the pipe ping-pong over two eventfds (eventfd(2)): A adds 1
 *   to B's counter and blocks reading its own; B mirrors it. An eventfd is the
 *   kernel's lightest blocking notification (an 8-byte counter, no buffer):
 *   the difference to thread/pipe is what the pipe's buffer costs per hop.
 * thread/futex, process/futex — a shared int as a turn flag: A stores 1 and
 *   FUTEX_WAKEs, then FUTEX_WAITs while the flag is still 1; B mirrors it. No
 *   spinning: every wait that finds the turn not yet passed sleeps. The method
 *   of tsuna/contextswitch (timectxsw), minus its sched_yield calls, which made
 *   its switch count 2.5x what it assumed (perf counts 5.0M switches where
 *   timectxsw reports 2.0M; github.com/tsuna/contextswitch issue #3 also
 *   reports its assumed count as wrong).
 * thread/futex-spin — the same, but each waiter first polls the flag for
 *   `arg` iterations before sleeping, as adaptive mutexes do. Across CPUs the
 *   answer usually arrives while polling, so no switch happens: this row exists
 *   to show the "not one switch per hop" flag firing.
 * thread/yield — both threads call sched_yield() in a loop on one CPU; a hop
 *   is one yield. One op is A's yield plus B's yield (two hops); the counted
 *   yields of both sides give the real number of hops.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "kernels.h"

enum { PP_PIPE = 1, PP_FUTEX, PP_FUTEX_SPIN, PP_YIELD, PP_SPINLINE };

static inline long sys_futex(int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* The spin-wait hint: pause on x86, yield on arm64 (what the Linux kernel's
 * cpu_relax is on each). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#endif
}

/* Wait until *w != v, optionally polling first. */
static inline void futex_wait_ne(int *w, int v, int op_wait, int64_t spins)
{
	for (int64_t k = 0; k < spins && __atomic_load_n(w, __ATOMIC_ACQUIRE) == v; k++)
		cpu_relax();
	while (__atomic_load_n(w, __ATOMIC_ACQUIRE) == v)
		sys_futex(w, op_wait, v);
}

/* pipe_io moves one token of `width` bytes (4 through a pipe, 8 through an
 * eventfd); on failure errno is the error, or 0 for end of file (a read
 * returning 0 leaves errno as some earlier call set it). */
static inline int pipe_io(int fd, int write_side, uint64_t *v, size_t width)
{
	ssize_t n = write_side ? write(fd, v, width) : read(fd, v, width);
	if (n == (ssize_t)width)
		return 0;
	if (n >= 0)
		errno = 0;
	return -1;
}

/* Shared description of one ping-pong, for both sides. */
typedef struct pp {
	int mode;
	int rd, wr;        /* side's read and write fds (pipe mode) */
	size_t width;      /* bytes per token (pipe mode): 4, or 8 for eventfds */
	int *word;         /* turn flag (futex and spin modes) */
	int op_wait, op_wake;
	int64_t spins;
	volatile int stop; /* yield mode: A tells B to finish */
} pp;

static int side_a_loop(cb_block *b, pp *p)
{
	uint64_t v = 1; /* an eventfd's write must not add 0 */
	cb_counter ctr;
	cb_counter_begin(&ctr, b);
	for (uint32_t s = 0; s < b->warmup + b->samples; s++) {
		cb_note_cpu(&b->a);
		cb_stamp t0 = cb_stamp_now();
		switch (p->mode) {
		case PP_PIPE:
			for (uint64_t i = 0; i < b->iters; i++) {
				v = 1;
				if (pipe_io(p->wr, 1, &v, p->width) || pipe_io(p->rd, 0, &v, p->width)) {
					cb_counter_end(&ctr, &b->a);
					snprintf(b->err, sizeof(b->err), "partner closed the pipe (%s)",
						 errno ? strerror(errno) : "end of file");
					return -1;
				}
			}
			break;
		case PP_FUTEX:
		case PP_FUTEX_SPIN:
			for (uint64_t i = 0; i < b->iters; i++) {
				__atomic_store_n(p->word, 1, __ATOMIC_RELEASE);
				sys_futex(p->word, p->op_wake, 1);
				futex_wait_ne(p->word, 1, p->op_wait, p->spins);
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
	uint64_t v = 1;
	cb_counter ctr;
	cb_counter_begin(&ctr, b);
	cb_note_cpu(&b->b);
	switch (p->mode) {
	case PP_PIPE:
		for (; done < total; done++) {
			if (pipe_io(p->rd, 0, &v, p->width) || (v = 1, pipe_io(p->wr, 1, &v, p->width)))
				break;
		}
		break;
	case PP_FUTEX:
	case PP_FUTEX_SPIN:
		for (; done < total; done++) {
			futex_wait_ne(p->word, 0, p->op_wait, p->spins);
			__atomic_store_n(p->word, 0, __ATOMIC_RELEASE);
			sys_futex(p->word, p->op_wake, 1);
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
	cb_counter_end(&ctr, &b->b);
	b->b.ops = done;
	if (p->mode != PP_YIELD && done != total) {
		snprintf(b->err, sizeof(b->err), "partner side stopped after %llu of %llu ops",
			 (unsigned long long)done, (unsigned long long)total);
		return -1;
	}
	return 0;
}

/* ---- two threads of this process ---- */

typedef struct thread_arg {
	cb_block *b;
	pp *p;
	pthread_barrier_t *bar;
	int ok;
} thread_arg;

static void *thread_b(void *arg)
{
	thread_arg *t = arg;
	char err[200] = "";
	t->ok = cb_pin_self(t->b->cpu_b, err, sizeof(err)) == 0;
	pthread_barrier_wait(t->bar);
	if (!t->ok) {
		snprintf(t->b->err, sizeof(t->b->err), "partner thread: %s", err);
		return NULL;
	}
	side_b_loop(t->b, t->p);
	return NULL;
}

static int run_threads(cb_block *b, pp *pa, pp *pb)
{
	pthread_barrier_t bar;
	pthread_t th;
	thread_arg t = { b, pb, &bar, 0 };
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	pthread_barrier_init(&bar, NULL, 2);
	if (pthread_create(&th, NULL, thread_b, &t) != 0) {
		snprintf(b->err, sizeof(b->err), "pthread_create failed");
		pthread_barrier_destroy(&bar);
		return -1;
	}
	pthread_barrier_wait(&bar);
	int rc = -1;
	if (t.ok) {
		rc = side_a_loop(b, pa);
		pb->stop = 1;
	}
	pthread_join(th, NULL);
	pthread_barrier_destroy(&bar);
	if (rc == 0 && b->err[0])
		rc = -1;
	return rc;
}

static int thread_pipe_like(cb_block *b)
{
	int p1[2], p2[2];
	if (pipe2(p1, O_CLOEXEC) || pipe2(p2, O_CLOEXEC)) {
		snprintf(b->err, sizeof(b->err), "pipe2: %s", strerror(errno));
		return -1;
	}
	pp pa = { .mode = PP_PIPE, .rd = p2[0], .wr = p1[1], .width = 4 };
	pp pb = { .mode = PP_PIPE, .rd = p1[0], .wr = p2[1], .width = 4 };
	int rc = run_threads(b, &pa, &pb);
	close(p1[0]); close(p1[1]); close(p2[0]); close(p2[1]);
	return rc;
}

int cb_thread_pipe(cb_block *b) { return thread_pipe_like(b); }

int cb_thread_eventfd(cb_block *b)
{
	int ea = eventfd(0, EFD_CLOEXEC), eb = eventfd(0, EFD_CLOEXEC);
	if (ea < 0 || eb < 0) {
		snprintf(b->err, sizeof(b->err), "eventfd: %s", strerror(errno));
		if (ea >= 0) close(ea);
		if (eb >= 0) close(eb);
		return -1;
	}
	pp pa = { .mode = PP_PIPE, .rd = ea, .wr = eb, .width = 8 };
	pp pb = { .mode = PP_PIPE, .rd = eb, .wr = ea, .width = 8 };
	int rc = run_threads(b, &pa, &pb);
	close(ea); close(eb);
	return rc;
}

static int thread_word(cb_block *b, int mode, int64_t spins)
{
	static int word __attribute__((aligned(64)));
	word = 0;
	pp pa = { .mode = mode, .word = &word, .op_wait = FUTEX_WAIT_PRIVATE,
		  .op_wake = FUTEX_WAKE_PRIVATE, .spins = spins };
	pp pb = pa;
	return run_threads(b, &pa, &pb);
}

int cb_thread_futex(cb_block *b) { return thread_word(b, PP_FUTEX, 0); }
int cb_thread_futex_spin(cb_block *b) { return thread_word(b, PP_FUTEX_SPIN, b->arg > 0 ? b->arg : 2000); }
int cb_ref_cacheline(cb_block *b) { return thread_word(b, PP_SPINLINE, 0); }

int cb_thread_yield(cb_block *b)
{
	pp pa = { .mode = PP_YIELD };
	pp pb = { .mode = PP_YIELD };
	return run_threads(b, &pa, &pb); /* run_threads raises pb.stop when A is done */
}

/* ---- two processes: side A here, side B in a re-executed partner ---- */

/* fd[0]: read end of the pipe from B, fd[1]: write end of the pipe to B. */
int cb_proc_pipe_a(cb_block *b)
{
	pp pa = { .mode = PP_PIPE, .rd = b->fd[0], .wr = b->fd[1], .width = 4 };
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	return side_a_loop(b, &pa);
}

/* fd[0]: read end of the pipe from A, fd[1]: write end of the pipe to A. */
int cb_proc_pipe_b(cb_block *b)
{
	pp pb = { .mode = PP_PIPE, .rd = b->fd[0], .wr = b->fd[1], .width = 4 };
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

/* fd[0]: a shared-memory fd (memfd) of at least one page; the flag starts at 0. */
int cb_proc_futex_a(cb_block *b)
{
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	int *w = map_word(b);
	if (!w)
		return -1;
	pp pa = { .mode = PP_FUTEX, .word = w, .op_wait = FUTEX_WAIT, .op_wake = FUTEX_WAKE };
	int rc = side_a_loop(b, &pa);
	munmap(w, 4096);
	return rc;
}

int cb_proc_futex_b(cb_block *b)
{
	if (cb_pin_self(b->cpu_b, b->err, sizeof(b->err)) != 0)
		return -1;
	int *w = map_word(b);
	if (!w)
		return -1;
	pp pb = { .mode = PP_FUTEX, .word = w, .op_wait = FUTEX_WAIT, .op_wake = FUTEX_WAKE };
	int rc = side_b_loop(b, &pb);
	munmap(w, 4096);
	return rc;
}
