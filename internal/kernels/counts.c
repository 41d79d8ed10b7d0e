//go:build linux

/*
 * counts.c: what each side of a measurement counts about itself.
 *
 * A figure is only called a context-switch cost when the switches were
 * counted ("verified" in docs/methodology.md). Each side opens its counters
 * on itself, at the start of its loop, and reads them at the end:
 *   - getrusage(RUSAGE_THREAD): voluntary + involuntary switches of this
 *     thread only. Both are needed: on one CPU about 40% of the switches in a
 *     ping-pong are involuntary (the wakee preempts the waker inside write or
 *     futex_wake);
 *   - the perf software events context-switches and cpu-migrations on this
 *     thread (pid 0, cpu -1), as a cross-check and to catch migrations;
 *   - the perf hardware events instructions and cycles, where the machine has
 *     a PMU (many virtual machines do not: the open fails and -1 is reported).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernels.h"

static int open_event(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 0;
	attr.exclude_hv = 1;
	/* pid 0, cpu -1: this thread, wherever it runs. */
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM)) {
		/* Unprivileged with perf_event_paranoid >= 2: user-space only. */
		attr.exclude_kernel = 1;
		fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

static int64_t read_event(int fd)
{
	uint64_t v;
	if (fd < 0)
		return -1;
	if (read(fd, &v, sizeof(v)) != sizeof(v))
		v = (uint64_t)-1;
	close(fd);
	return (int64_t)v;
}

void cb_counter_begin(cb_counter *c, const cb_block *b)
{
	struct rusage ru;
	c->fd_cs = c->fd_migr = c->fd_instr = c->fd_cycles = -1;
	if (b->perf) {
		c->fd_cs = open_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES);
		c->fd_migr = open_event(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS);
		c->fd_instr = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
		c->fd_cycles = open_event(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	}
	getrusage(RUSAGE_THREAD, &ru);
	c->nvcsw0 = ru.ru_nvcsw;
	c->nivcsw0 = ru.ru_nivcsw;
}

void cb_counter_end(cb_counter *c, cb_counts *out)
{
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	out->nvcsw = ru.ru_nvcsw - c->nvcsw0;
	out->nivcsw = ru.ru_nivcsw - c->nivcsw0;
	out->perf_cs = read_event(c->fd_cs);
	out->perf_migrations = read_event(c->fd_migr);
	out->perf_instructions = read_event(c->fd_instr);
	out->perf_cycles = read_event(c->fd_cycles);
}

int cb_pin_self(int cpu, char *err, int errlen)
{
	cpu_set_t set;
	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		snprintf(err, errlen, "cannot pin to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	return 0;
}

void cb_note_cpu(cb_counts *c)
{
	int cpu = sched_getcpu();
	if (cpu >= 0 && cpu < 64)
		c->cpus_seen |= 1ull << cpu;
}

/* The compiler that built the kernels, for the result file's tool record. */
const char *cb_cc_version(void)
{
#if defined(__clang__)
	return "clang " __clang_version__;
#elif defined(__GNUC__)
	return "gcc " __VERSION__;
#else
	return "unknown C compiler";
#endif
}
