//go:build linux

/*
 * spawn.c: what it costs to create an execution context, run it to its end
 * and reap it. One op (one creation) is, per kernel:
 *
 *   cb_spawn_thread      pthread_create of a thread whose function returns at
 *                        once, then pthread_join. Default attributes (8 MiB
 *                        stack reservation); glibc reuses cached stacks, so
 *                        after the warm-up this is the steady-state cost.
 *   cb_spawn_fork        fork(); the child calls _exit(0); waitpid().
 *   cb_spawn_fork_exec   fork(); the child execveat()s the exit-only ELF;
 *                        waitpid().
 *   cb_spawn_vfork_exec  vfork(); the child execveat()s the ELF; waitpid().
 *   cb_spawn_posix_spawn posix_spawn("/proc/self/fd/N") of the ELF (glibc
 *                        clones with CLONE_VM|CLONE_VFORK); waitpid().
 *
 * With b->arg > 0 the parent first maps and writes a heap of that size, so
 * fork pays for copying its page tables (the cost grows with the parent's
 * touched memory) while vfork and posix_spawn do not.
 *
 * Method: lmbench's lat_proc (fork+exit, fork+exec) and TLPI section 28.3
 * (Table 28-3: fork/vfork cost against parent size), timing each creation
 * with CLOCK_MONOTONIC_RAW; the exec target is a static program with no
 * dynamic loading so that exec measures the kernel, not ld.so (the exec
 * of a dynamic target is dominated by its loading). The child only calls
 * _exit or execveat (async-signal-safe), as the project's rules require of
 * fork in a kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "spawn_kernels.h"

volatile int cb_spawn_stop;

static char *const exec_argv[] = {"ctxbench-exit", NULL};
static char *const exec_envp[] = {NULL};

/* Shared set-up of every creation kernel: pin, heap, signal mask. */
int cb_spawn_begin(cb_block *b, cb_spawn_env *e)
{
	sigset_t all;
	memset(e, 0, sizeof(*e));
	if (b->samples == 0 || b->iters == 0) {
		snprintf(b->err, sizeof(b->err), "need samples > 0 and iterations > 0");
		return -1;
	}
	if (cb_pin_self(b->cpu_a, b->err, sizeof(b->err)) != 0)
		return -1;
	if (b->arg > 0) {
		long page = sysconf(_SC_PAGESIZE);
		e->heap_len = (size_t)b->arg;
		e->heap = mmap(NULL, e->heap_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (e->heap == MAP_FAILED) {
			e->heap = NULL;
			snprintf(b->err, sizeof(b->err), "mapping a %zu-byte heap: %s", e->heap_len, strerror(errno));
			return -1;
		}
		/* 4 KiB pages, as a long-running program's heap mostly has. */
		madvise(e->heap, e->heap_len, MADV_NOHUGEPAGE);
		for (size_t off = 0; off < e->heap_len; off += (size_t)page)
			((volatile char *)e->heap)[off] = 1;
	}
	sigfillset(&all);
	if (pthread_sigmask(SIG_BLOCK, &all, &e->old_mask) == 0)
		e->masked = 1;
	return 0;
}

void cb_spawn_end(cb_spawn_env *e)
{
	/* After a begin that failed early, old_mask is zeroed, not a mask. */
	if (e->masked)
		pthread_sigmask(SIG_SETMASK, &e->old_mask, NULL);
	if (e->heap)
		munmap(e->heap, e->heap_len);
}

/* reap waits for pid and checks it exited with status 0. */
int cb_spawn_reap(int pid, cb_block *b, const char *what)
{
	int st;
	pid_t r;
	do
		r = waitpid(pid, &st, __WALL);
	while (r < 0 && errno == EINTR);
	if (r != pid) {
		snprintf(b->err, sizeof(b->err), "%s: waitpid: %s", what, strerror(errno));
		return -1;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(b->err, sizeof(b->err), "%s: child ended with %s %d", what,
			 WIFEXITED(st) ? "exit status" : "signal",
			 WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		return -1;
	}
	return 0;
}

static void *thread_return(void *arg)
{
	return arg;
}

static int one_thread(cb_block *b)
{
	pthread_t t;
	int rc = pthread_create(&t, NULL, thread_return, NULL);
	if (rc != 0) {
		snprintf(b->err, sizeof(b->err), "pthread_create: %s", strerror(rc));
		return -1;
	}
	rc = pthread_join(t, NULL);
	if (rc != 0) {
		snprintf(b->err, sizeof(b->err), "pthread_join: %s", strerror(rc));
		return -1;
	}
	return 0;
}

static int one_fork(cb_block *b)
{
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(b->err, sizeof(b->err), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		_exit(0);
	return cb_spawn_reap(pid, b, "fork");
}

static int one_fork_exec(cb_block *b)
{
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(b->err, sizeof(b->err), "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		syscall(SYS_execveat, b->fd[0], "", exec_argv, exec_envp, AT_EMPTY_PATH);
		_exit(127);
	}
	return cb_spawn_reap(pid, b, "fork+exec");
}

static int one_vfork_exec(cb_block *b)
{
	pid_t pid = vfork();
	if (pid < 0) {
		snprintf(b->err, sizeof(b->err), "vfork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		syscall(SYS_execveat, b->fd[0], "", exec_argv, exec_envp, AT_EMPTY_PATH);
		_exit(127);
	}
	return cb_spawn_reap(pid, b, "vfork+exec");
}

static char spawn_path[64];

static int one_posix_spawn(cb_block *b)
{
	pid_t pid;
	int rc = posix_spawn(&pid, spawn_path, NULL, NULL, exec_argv, exec_envp);
	if (rc != 0) {
		snprintf(b->err, sizeof(b->err), "posix_spawn %s: %s", spawn_path, strerror(rc));
		return -1;
	}
	return cb_spawn_reap(pid, b, "posix_spawn");
}

/* The shared timed loop: warm-up samples, then measured samples, each of
 * b->iters creations by one(). */
int cb_spawn_loop(cb_block *b, int (*one)(cb_block *, const void *), const void *arg)
{
	uint32_t total = b->warmup + b->samples;
	for (uint32_t s = 0; s < total; s++) {
		if (cb_spawn_stop) {
			snprintf(b->err, sizeof(b->err), "stopped");
			return -1;
		}
		cb_stamp t0 = cb_stamp_now();
		for (uint64_t i = 0; i < b->iters; i++)
			if (one(b, arg) != 0)
				return -1;
		cb_stamp t1 = cb_stamp_now();
		cb_store(b->ns, b->tsc, s, b->warmup, t0, t1);
	}
	b->a.ops = (uint64_t)total * b->iters;
	return 0;
}

#define ADAPT(fn)                                                  \
	static int fn##_adapt(cb_block *b, const void *arg)        \
	{                                                          \
		(void)arg;                                         \
		return fn(b);                                      \
	}
ADAPT(one_thread)
ADAPT(one_fork)
ADAPT(one_fork_exec)
ADAPT(one_vfork_exec)
ADAPT(one_posix_spawn)

static int run_simple(cb_block *b, int (*one)(cb_block *, const void *), int needs_exec)
{
	cb_spawn_env e;
	if (needs_exec && b->fd[0] < 0) {
		snprintf(b->err, sizeof(b->err), "no exec target descriptor");
		return -1;
	}
	if (cb_spawn_begin(b, &e) != 0) {
		cb_spawn_end(&e);
		return -1;
	}
	int rc = cb_spawn_loop(b, one, NULL);
	cb_spawn_end(&e);
	return rc;
}

int cb_spawn_thread(cb_block *b) { return run_simple(b, one_thread_adapt, 0); }
int cb_spawn_fork(cb_block *b) { return run_simple(b, one_fork_adapt, 0); }
int cb_spawn_fork_exec(cb_block *b) { return run_simple(b, one_fork_exec_adapt, 1); }
int cb_spawn_vfork_exec(cb_block *b) { return run_simple(b, one_vfork_exec_adapt, 1); }

int cb_spawn_posix_spawn(cb_block *b)
{
	snprintf(spawn_path, sizeof(spawn_path), "/proc/self/fd/%d", b->fd[0]);
	return run_simple(b, one_posix_spawn_adapt, 1);
}
