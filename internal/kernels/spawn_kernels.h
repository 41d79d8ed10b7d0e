/*
 * spawn_kernels.h: the creation-cost kernels (spawn.c, spawn_ctr.c) and the thread
 * parking used by the memory measurement (spawn_park.c).
 *
 * Each creation kernel runs b->warmup + b->samples samples; one sample is
 * b->iters creations (each created, run to its end and reaped), and
 * b->ns[s] / b->tsc[s] is the elapsed time of the sample. b->cpu_a pins the
 * creating thread (children inherit the affinity). b->fd[0] is the exec
 * target: a sealed memfd holding a static x86-64 ELF that only calls
 * exit_group(0) (built by internal/spawn). b->arg, for the process kernels,
 * is the size in bytes of a private anonymous heap (4 KiB pages,
 * MADV_NOHUGEPAGE) the parent writes to before timing; 0 for none.
 *
 * The whole creating thread runs with all signals blocked (set up before
 * the first sample): a forked or vforked child of a Go process must never
 * run the Go signal handler. Children inherit the mask, exec, and exit.
 */
#ifndef CTXBENCH_SPAWN_KERNELS_H
#define CTXBENCH_SPAWN_KERNELS_H

#include <stdint.h>
#include "kernels.h"

/* A container creation, described by Go (internal/spawn). */
typedef struct cb_spawn_ctr {
	uint64_t clone_flags;      /* CLONE_NEW* flags for clone(2) */
	int32_t user_ns;           /* 1: parent writes uid_map/gid_map "0 <uid> 1" (setgroups deny) */
	int32_t uid, gid;          /* host ids mapped to 0 in the user namespace */
	int32_t ndirs;             /* cgroup directories created and removed per container */
	const char *const *dirs;   /* [ndirs] absolute paths, outermost first */
	const char *procs;         /* the leaf's cgroup.procs (NULL: no cgroup) */
	int32_t cgroupns_after;    /* 1: child unshares CLONE_NEWCGROUP once it is in its cgroup */
	const void *seccomp;       /* struct sock_fprog * installed by the child, or NULL */
	uint64_t keep_caps;        /* capabilities the child keeps (others dropped from all sets) */
	int32_t drop_caps;         /* 1: drop capabilities */
	int32_t last_cap;          /* /proc/sys/kernel/cap_last_cap */
} cb_spawn_ctr;

int cb_spawn_thread(cb_block *b);
int cb_spawn_fork(cb_block *b);
int cb_spawn_fork_exec(cb_block *b);
int cb_spawn_vfork_exec(cb_block *b);
int cb_spawn_posix_spawn(cb_block *b);
int cb_spawn_container(cb_block *b, const cb_spawn_ctr *c);

/* Set by Go (SpawnStop) to make a running creation kernel return after
 * the current creation, so that a signal handler can clean up behind it. */
extern volatile int cb_spawn_stop;

/* Shared by spawn.c and spawn_ctr.c. */
#include <signal.h>
#include <stddef.h>
typedef struct cb_spawn_env {
	sigset_t old_mask;
	int masked; /* old_mask holds the mask to restore (begin got that far) */
	void *heap;
	size_t heap_len;
} cb_spawn_env;
int cb_spawn_begin(cb_block *b, cb_spawn_env *e);
void cb_spawn_end(cb_spawn_env *e);
int cb_spawn_reap(int pid, cb_block *b, const char *what);
int cb_spawn_loop(cb_block *b, int (*one)(cb_block *, const void *), const void *arg);

int cb_spawn_park_threads(int n, uint64_t stack_bytes, char *err, int errlen);
int cb_spawn_release_threads(void);

#endif
