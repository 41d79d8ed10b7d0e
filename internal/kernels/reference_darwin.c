/*
 * reference_darwin.c: the reference rows on macOS (reference.c is Linux's;
 * reference/cacheline is in pingpong_darwin.c). One op each:
 *
 * reference/syscall    one getppid system call: libSystem's getppid is a
 *                      plain trap into the kernel, cached nowhere (macOS
 *                      deprecates syscall(2), which Linux's row calls).
 * reference/mutex      pthread_mutex_lock + pthread_mutex_unlock of an
 *                      uncontended default mutex.
 * reference/atomic     one sequentially consistent atomic add.
 * reference/pipe-self  write 4 bytes into a pipe and read them back in the
 *                      same thread (what lmbench's lat_ctx subtracts).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "kernels.h"

int cb_ref_syscall(cb_block *b)
{
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	TIMED_LOOP(b, getppid());
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
	static uint64_t counter __attribute__((aligned(128)));
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
	if (pipe(p) != 0) {
		snprintf(b->err, sizeof(b->err), "pipe: %s", strerror(errno));
		return -1;
	}
	fcntl(p[0], F_SETFD, FD_CLOEXEC);
	fcntl(p[1], F_SETFD, FD_CLOEXEC);
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
