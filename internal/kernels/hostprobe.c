/*
 * hostprobe.c: the host probe, a fixed piece of work timed on each of a
 * block's CPUs before and after its samples, to see the speed the host
 * gives the vCPU in that stretch (docs/methodology.md, "The host's state").
 *
 * One probe is a dependent pointer chase through a 64 KiB ring (8192
 * 8-byte slots in one random cycle, Sattolo's algorithm): larger than an
 * L1 data cache, inside any L2 of the last decade, and every load waits for
 * the one before. On the reference machine (AMD EPYC, 2-vCPU
 * Firecracker/KVM guest) such a chase ran 5-50% slower for stretches of
 * 1-15 s while a plain integer loop did not move, and same-CPU pipe hops
 * slowed with the chase (r = +0.97 over 50 ms windows): the host's slow
 * states are shared caches and memory, not frequency. It is a known work
 * whose time says nothing of ctxbench's kernels, in the spirit of a
 * calibration run (lmbench's own timing calibration; cf. Kalibera and
 * Jones on measuring the platform's drift).
 *
 * cb_host_probe runs reps chases of steps steps each and returns the median
 * nanoseconds of one chase; the ring is built once per process.
 */
#include <stdint.h>
#include <stdlib.h>

#include "clock.h"

#define CB_PROBE_SLOTS 8192 /* 64 KiB of 8-byte slots */

static uint64_t cb_probe_ring[CB_PROBE_SLOTS];
static int cb_probe_ready;

static void cb_probe_build(void)
{
	/* Sattolo: one cycle through every slot; a fixed seed, so every
	 * process walks the same ring. */
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < CB_PROBE_SLOTS; i++)
		cb_probe_ring[i] = (uint64_t)i;
	for (int i = CB_PROBE_SLOTS - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int j = (int)(x % (uint64_t)i);
		uint64_t t = cb_probe_ring[i];
		cb_probe_ring[i] = cb_probe_ring[j];
		cb_probe_ring[j] = t;
	}
	cb_probe_ready = 1;
}

static int cb_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t cb_host_probe(int steps, int reps)
{
	uint64_t t[16];
	volatile uint64_t sink;
	if (!cb_probe_ready)
		cb_probe_build();
	if (reps > 16)
		reps = 16;
	if (reps < 1)
		reps = 1;
	for (int r = 0; r < reps; r++) {
		uint64_t p = 0;
		uint64_t t0 = cb_now_ns();
		for (int i = 0; i < steps; i++)
			p = cb_probe_ring[p];
		t[r] = cb_now_ns() - t0;
		sink = p;
	}
	(void)sink;
	qsort(t, (size_t)reps, sizeof t[0], cb_cmp_u64);
	return t[reps / 2];
}
