/*
 * counts_darwin.c: what each side of a measurement counts about itself, on
 * macOS (counts.c is Linux's).
 *
 * macOS counts context switches per task (process), not per thread:
 * task_info(TASK_EVENTS_INFO).csw is every switch of every thread of the
 * process, and it does not tell voluntary from involuntary (getrusage's
 * ru_nvcsw and ru_nivcsw are not maintained by its kernel). So a side
 * records its process's switches over its loop in nvcsw, and nivcsw is 0:
 *   - a side that is a single-threaded process (the process rungs' sides,
 *     st_darwin.c) counts exactly its own switches;
 *   - two sides that are threads of one process are counted once, by side
 *     A (pingpong_darwin.c leaves side B's count at 0), and the count holds
 *     the Go runtime's own threads too.
 * There are no perf events: every perf field stays -1 ("not measured").
 * The CPU a side runs on is pthread_cpu_number_np (macOS 11.0+), read at
 * every sample boundary; nothing can be pinned (cb_pin_self refuses).
 */
#include <errno.h>
#include <mach/mach.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "kernels.h"

/* The timebase cb_now_ns converts with (clock.h): read before any loop
 * times (cb_counter_begin, which every loop calls first) and at load. */
mach_timebase_info_data_t cb_timebase;
__attribute__((constructor)) static void cb_timebase_init(void) { cb_clock_init(); }

/* The task's context switches so far; -1 when task_info fails. */
static int64_t task_csw(void)
{
	task_events_info_data_t ev;
	mach_msg_type_number_t n = TASK_EVENTS_INFO_COUNT;
	if (task_info(mach_task_self(), TASK_EVENTS_INFO, (task_info_t)&ev, &n) != KERN_SUCCESS)
		return -1;
	return (int64_t)ev.csw;
}

void cb_counter_begin(cb_counter *c, const cb_block *b)
{
	(void)b; /* no perf events to open on macOS */
	cb_clock_init();
	c->fd_cs = c->fd_migr = c->fd_instr = c->fd_cycles = -1;
	c->nvcsw0 = task_csw();
	c->nivcsw0 = 0;
}

void cb_counter_end(cb_counter *c, cb_counts *out)
{
	int64_t now = task_csw();
	out->nvcsw = (now >= 0 && c->nvcsw0 >= 0) ? now - c->nvcsw0 : -1;
	out->nivcsw = 0;
	out->perf_cs = out->perf_migrations = out->perf_instructions = out->perf_cycles = -1;
}

/* macOS cannot pin: a request to is refused, never ignored (a label that
 * said "pinned" would be false). cpu < 0 asks for nothing. */
int cb_pin_self(int cpu, char *err, int errlen)
{
	if (cpu < 0)
		return 0;
	snprintf(err, errlen, "cannot pin to CPU %d: macOS cannot pin a thread to a CPU", cpu);
	return -1;
}

void cb_note_cpu(cb_counts *c)
{
	size_t cpu;
	if (pthread_cpu_number_np(&cpu) == 0 && cpu < 64)
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
