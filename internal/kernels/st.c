//go:build linux

/*
 * st.c: one side of a two-process kernel in a single-threaded process.
 *
 * A Go process is multi-threaded from its first instruction, and on the
 * reference machine's kernel a switch into a process that has any second
 * thread costs about 130 ns more per hop. So the process rungs' sides are
 * this binary re-executed with CTXBENCH_ST set: a C constructor, which runs
 * before the Go runtime starts (the way runc's nsexec prepares namespaces
 * before its Go runtime does), recognises the role, runs the side's C
 * kernel in the process's only thread and exits without ever returning
 * into Go. The parent is the worker; partners are started by re-executing
 * the binary, never by fork() in Go.
 *
 * Roles (CTXBENCH_ST): the two sides of the process pipe and futex
 * ping-pongs (pipe-a, pipe-b, futex-a, futex-b), a process ring's head
 * (ring-head, which times) and members (ring-member), and a context of the
 * load kernel (load-ctx: the region's memfd is fd 3, its index the arg), and
 * the known workload of ctxbench attach (pipe-load: its region is fd 3; its
 * second thread starts after the go). The rest of the
 * request is in CTXBENCH_ST_* variables (internal/partner writes them), the
 * descriptors are 3, 4, ... in order.
 *
 * In a container the side confines itself here, as a container runtime's
 * last step does (confine.c): CTXBENCH_ST_CAPS "<keep mask hex>:<last cap>"
 * drops the other capabilities, CTXBENCH_ST_SECCOMP (the filter's
 * instructions as hex bytes) installs the filter. Namespaces and the cgroup
 * were entered when the worker started the process; the worker verifies all
 * of it from outside after "ready".
 *
 * Protocol, one line each on stdout: "ready" once the side is set up; then
 * it waits for one byte on stdin; then "ok" and the side's counts (and, for
 * a timing side, its samples; for a ring head, "ring" and its rounds per
 * sample, rounds and token, then with CTXBENCH_ST_RING_OVERHEAD=1
 * "overhead" and per sample the one-context overhead's ns and TSC and the
 * hot-cache overhead's ns and TSC), or "error <why>".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/filter.h>

#include "kernels.h"
#include "load.h"
#include "ring.h"

int cb_proc_pipe_a(cb_block *b);
int cb_proc_pipe_b(cb_block *b);
int cb_proc_futex_a(cb_block *b);
int cb_proc_futex_b(cb_block *b);

static cb_ring st_ring; /* a ring head's parameters and results */

static int st_ring_head(cb_block *b) { return cb_ring_head(b, &st_ring); }

/* A context of the load kernel: fd 3 is the region, arg its index. */
static int st_load_ctx(cb_block *b) { return cb_load_st(b->fd[0], (int32_t)b->arg, b->cpu_b, b->err, sizeof b->err); }

int cb_pipeload_st(int fd, char *err, int errlen);

/* The known workload of ctxbench attach (pipeload.c): fd 3 is its region.
 * Its second thread starts after "go"; its counts are the whole process's. */
static int st_pipe_load(cb_block *b)
{
	int rc = cb_pipeload_st(b->fd[0], b->err, sizeof b->err);
	struct rusage ru;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		b->b.nvcsw = ru.ru_nvcsw;
		b->b.nivcsw = ru.ru_nivcsw;
	}
	b->b.perf_cs = b->b.perf_migrations = b->b.perf_instructions = b->b.perf_cycles = -1;
	return rc;
}

static long long st_env(const char *name, long long def)
{
	const char *v = getenv(name);
	return v && *v ? strtoll(v, NULL, 10) : def;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The seccomp filter from CTXBENCH_ST_SECCOMP: NULL when there is none,
 * *bad set when the text is not a whole number of instructions. */
static struct sock_fprog *st_filter(int *bad)
{
	static struct sock_fprog prog;
	const char *h = getenv("CTXBENCH_ST_SECCOMP");
	if (!h || !*h)
		return NULL;
	size_t n = strlen(h);
	if (n % (2 * sizeof(struct sock_filter)) != 0 || n / (2 * sizeof(struct sock_filter)) > 4096) {
		*bad = 1;
		return NULL;
	}
	unsigned char *buf = malloc(n / 2);
	if (!buf) {
		*bad = 1;
		return NULL;
	}
	for (size_t i = 0; i < n / 2; i++) {
		int hi = hexval(h[2 * i]), lo = hexval(h[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			*bad = 1;
			free(buf);
			return NULL;
		}
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	prog.len = (unsigned short)(n / 2 / sizeof(struct sock_filter));
	prog.filter = (struct sock_filter *)buf;
	return &prog;
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
	else if (!strcmp(role, "futex-a")) run = cb_proc_futex_a, side_a = 1;
	else if (!strcmp(role, "futex-b")) run = cb_proc_futex_b;
	else if (!strcmp(role, "ring-head")) run = st_ring_head, side_a = 1;
	else if (!strcmp(role, "ring-member")) run = cb_ring_member;
	else if (!strcmp(role, "load-ctx")) run = st_load_ctx;
	else if (!strcmp(role, "pipe-load")) run = st_pipe_load;
	char line[256];
	if (!run) {
		snprintf(line, sizeof line, "error unknown single-threaded side %s\n", role);
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
	b.perf = (int32_t)st_env("CTXBENCH_ST_PERF", 0);
	b.arg = st_env("CTXBENCH_ST_ARG", 0);
	st_ring.n = (int32_t)st_env("CTXBENCH_ST_RING_N", 0);
	st_ring.ws = b.arg;
	st_ring.min_sample_ns = (uint64_t)st_env("CTXBENCH_ST_RING_MIN_NS", 0);
	st_ring.ipc = (int32_t)st_env("CTXBENCH_ST_RING_IPC", CB_RING_PIPE);
	st_ring.overhead = (int32_t)st_env("CTXBENCH_ST_RING_OVERHEAD", 0);
	int is_ring_head = run == st_ring_head;
	for (int i = 0; i < 4; i++)
		b.fd[i] = 3 + i; /* the files the parent handed over, in order */
	uint32_t n = b.samples ? b.samples : 1;
	b.ns = calloc(n, sizeof *b.ns);
	b.tsc = calloc(n, sizeof *b.tsc);
	st_ring.ovh_ns = calloc(n, sizeof(uint64_t));
	st_ring.ovh_tsc = calloc(n, sizeof(uint64_t));
	st_ring.hot_ns = calloc(n, sizeof(uint64_t));
	st_ring.hot_tsc = calloc(n, sizeof(uint64_t));
	/* A ring head may calibrate its rounds (iters 0) to a sample length. */
	int ok = is_ring_head ? st_ring.n >= 1 && (b.iters > 0 || st_ring.min_sample_ns > 0) : b.iters > 0;
	if (!b.ns || !b.tsc || !st_ring.ovh_ns || !st_ring.ovh_tsc || !st_ring.hot_ns || !st_ring.hot_tsc || !ok) {
		st_say("error bad single-threaded side request\n");
		_exit(2);
	}
	int bad = 0;
	struct sock_fprog *filter = st_filter(&bad);
	const char *caps = getenv("CTXBENCH_ST_CAPS");
	unsigned long long keep = 0;
	int last_cap = -1;
	if (caps && *caps && sscanf(caps, "%llx:%d", &keep, &last_cap) != 2)
		bad = 1;
	if (bad) {
		st_say("error unreadable CTXBENCH_ST_CAPS or CTXBENCH_ST_SECCOMP\n");
		_exit(2);
	}
	switch (cb_confine(last_cap >= 0, keep, last_cap, filter)) {
	case 1:
		st_say("error dropping capabilities failed\n");
		_exit(1);
	case 2:
		st_say("error installing the seccomp filter failed\n");
		_exit(1);
	}
	st_say("ready\n");
	char go;
	if (read(0, &go, 1) != 1)
		_exit(3); /* the parent went away: nothing to report to */
	int rc = run(&b);
	/* The ring's overheads (one context, no switch) in this same
	 * single-threaded process, after the ring, as lmbench measures them. */
	if (rc == 0 && is_ring_head && st_ring.overhead)
		rc = cb_ring_overhead(&b, &st_ring);
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
	if (is_ring_head) {
		snprintf(line, sizeof line, " ring %llu %llu %llu", (unsigned long long)st_ring.rounds_per_sample,
			 (unsigned long long)st_ring.rounds, (unsigned long long)st_ring.token);
		st_say(line);
		for (uint32_t i = 0; st_ring.overhead && i < b.samples; i++) {
			snprintf(line, sizeof line, "%s %llu %llu %llu %llu", i ? "" : " overhead",
				 (unsigned long long)st_ring.ovh_ns[i], (unsigned long long)st_ring.ovh_tsc[i],
				 (unsigned long long)st_ring.hot_ns[i], (unsigned long long)st_ring.hot_tsc[i]);
			st_say(line);
		}
	}
	st_say("\n");
	_exit(0);
}
