//go:build linux

/*
 * reference.c: rows that are not context switches, to put the ladder in
 * perspective (the "reference" rows of docs/methodology.md). One op each:
 *
 * reference/syscall    one raw getppid system call through syscall(2): the
 *                      kernel entry and exit every blocking switch pays twice
 *                      or more (tsuna's timesyscall uses gettid the same way;
 *                      the vDSO is bypassed on purpose).
 * reference/mutex      pthread_mutex_lock + pthread_mutex_unlock of an
 *                      uncontended default mutex: no syscall, two atomics.
 * reference/atomic     one sequentially consistent atomic add (lock xadd).
 * reference/pipe-self  write 4 bytes into a pipe and read them back in the same
 *                      thread: the IPC cost of a pipe ping-pong hop without a
 *                      switch, which lmbench's lat_ctx subtracts as "overhead".
 * (reference/cacheline lives in pingpong.c: two threads hand a cache line back
 *                      and forth by spinning, on two CPUs, with no switch.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "kernels.h"

int cb_ref_syscall(cb_block *b)
{
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	TIMED_LOOP(b, syscall(SYS_getppid));
	return 0;
}

int cb_ref_mutex(cb_block *b)
{
	static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	TIMED_LOOP(b, { pthread_mutex_lock(&m); pthread_mutex_unlock(&m); });
	return 0;
}

int cb_ref_atomic(cb_block *b)
{
	static uint64_t counter __attribute__((aligned(64)));
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	TIMED_LOOP(b, __atomic_fetch_add(&counter, 1, __ATOMIC_SEQ_CST));
	return 0;
}

int cb_ref_pipe_self(cb_block *b)
{
	int p[2], v = 0;
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	if (pipe2(p, O_CLOEXEC) != 0) {
		snprintf(b->err, sizeof(b->err), "pipe2: %s", strerror(errno));
		return -1;
	}
	int bad = 0;
	TIMED_LOOP(b, {
		if (write(p[1], &v, sizeof(v)) != sizeof(v) || read(p[0], &v, sizeof(v)) != sizeof(v))
			bad = 1;
	});
	close(p[0]);
	close(p[1]);
	if (bad) {
		snprintf(b->err, sizeof(b->err), "pipe write/read failed");
		return -1;
	}
	return 0;
}
