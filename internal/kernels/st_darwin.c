/*
 * st_darwin.c: one side of a two-process kernel in a single-threaded
 * process, on macOS (st.c is Linux's, where sides may also be containers,
 * ring members and load contexts).
 *
 * As on Linux: a Go process is multi-threaded from its first instruction,
 * so the process rungs' sides are this binary re-executed with CTXBENCH_ST
 * set; a C constructor, which runs before the Go runtime starts, runs the
 * side's C kernel in the process's only thread and exits without returning
 * into Go. Roles: pipe-a, pipe-b (the pipe ping-pong) and woa-a, woa-b
 * (wait-on-address over a shared page). The request is in CTXBENCH_ST_*
 * variables (internal/partner writes them); the descriptors are 3, 4, ...
 *
 * Protocol, one line each on stdout: "ready" once the side is set up; then
 * it waits for one byte on stdin; then "ok" and the side's counts (and, for
 * the timing side, its samples), or "error <why>". A side whose parent dies
 * sees end of file on stdin (before it starts) or on its pipe, or fails to
 * write its report, and exits: macOS has no parent-death signal.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kernels.h"

int cb_proc_pipe_a(cb_block *b);
int cb_proc_pipe_b(cb_block *b);
int cb_proc_wait_on_address_a(cb_block *b);
int cb_proc_wait_on_address_b(cb_block *b);

static long long st_env(const char *name, long long def)
{
	const char *v = getenv(name);
	return v && *v ? strtoll(v, NULL, 10) : def;
}

static void st_say(const char *s)
{
	size_t n = strlen(s);
	while (n > 0) {
		ssize_t w = write(1, s, n);
		if (w <= 0)
			_exit(3);
		s += w;
		n -= (size_t)w;
	}
}

__attribute__((constructor)) static void cb_st_main(void)
{
	const char *role = getenv("CTXBENCH_ST");
	if (!role || !*role)
		return; /* not a side: the Go program starts as usual */
	int (*run)(cb_block *) = NULL;
	int side_a = 0;
	if (!strcmp(role, "pipe-a")) run = cb_proc_pipe_a, side_a = 1;
	else if (!strcmp(role, "pipe-b")) run = cb_proc_pipe_b;
	else if (!strcmp(role, "woa-a")) run = cb_proc_wait_on_address_a, side_a = 1;
	else if (!strcmp(role, "woa-b")) run = cb_proc_wait_on_address_b;
	char line[256];
	if (!run) {
		snprintf(line, sizeof line, "error unknown single-threaded side %s on macOS\n", role);
		st_say(line);
		_exit(2);
	}
	cb_block b;
	memset(&b, 0, sizeof b);
	b.iters = (uint64_t)st_env("CTXBENCH_ST_ITERS", 0);
	b.samples = (uint32_t)st_env("CTXBENCH_ST_SAMPLES", 0);
	b.warmup = (uint32_t)st_env("CTXBENCH_ST_WARMUP", 0);
	b.cpu_a = (int32_t)st_env("CTXBENCH_ST_CPU_A", -1);
	b.cpu_b = (int32_t)st_env("CTXBENCH_ST_CPU_B", -1);
	b.arg = st_env("CTXBENCH_ST_ARG", 0);
	for (int i = 0; i < 4; i++)
		b.fd[i] = 3 + i; /* the files the parent handed over, in order */
	uint32_t n = b.samples ? b.samples : 1;
	b.ns = calloc(n, sizeof *b.ns);
	b.tsc = calloc(n, sizeof *b.tsc);
	if (!b.ns || !b.tsc || b.iters == 0) {
		st_say("error bad single-threaded side request\n");
		_exit(2);
	}
	if (getenv("CTXBENCH_ST_CAPS") || getenv("CTXBENCH_ST_SECCOMP")) {
		st_say("error macOS has no capabilities or seccomp to confine a side with\n");
		_exit(2);
	}
	st_say("ready\n");
	char go;
	if (read(0, &go, 1) != 1)
		_exit(3); /* the parent went away: nothing to report to */
	int rc = run(&b);
	if (rc != 0) {
		snprintf(line, sizeof line, "error %s\n", b.err[0] ? b.err : "the kernel failed");
		st_say(line);
		_exit(1);
	}
	const cb_counts *c = side_a ? &b.a : &b.b;
	snprintf(line, sizeof line, "ok %lld %lld %lld %lld %lld %lld %llu %llu %u",
		 (long long)c->nvcsw, (long long)c->nivcsw, (long long)c->perf_cs, (long long)c->perf_migrations,
		 (long long)c->perf_instructions, (long long)c->perf_cycles,
		 (unsigned long long)c->cpus_seen, (unsigned long long)c->ops, side_a ? b.samples : 0);
	st_say(line);
	for (uint32_t i = 0; side_a && i < b.samples; i++) {
		snprintf(line, sizeof line, " %llu %llu", (unsigned long long)b.ns[i], (unsigned long long)b.tsc[i]);
		st_say(line);
	}
	st_say("\n");
	_exit(0);
}
