//go:build linux

/*
 * spawn_park.c: threads parked for the memory-per-context measurement
 * (internal/memory). Not a timed kernel: one call creates n threads with
 * default attributes (or the given stack size) that block in
 * pthread_cond_wait until released, so that a re-executed ctxbench process
 * can be measured holding them (RSS, PSS, kernel stacks, page tables,
 * virtual reservation). Method: block many threads at once and divide each
 * delta by their number; virtual size is not memory, and RSS leaves out
 * kernel stacks and page tables, so each is read on its own.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spawn_kernels.h"

static pthread_mutex_t park_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t park_cv = PTHREAD_COND_INITIALIZER;
static int park_released;
static pthread_t *parked;
static int nparked;

static void *park_fn(void *arg)
{
	pthread_mutex_lock(&park_mu);
	while (!park_released)
		pthread_cond_wait(&park_cv, &park_mu);
	pthread_mutex_unlock(&park_mu);
	return arg;
}

/* Creates up to n parked threads; returns how many exist (all n, or fewer
 * with the reason in err). */
int cb_spawn_park_threads(int n, uint64_t stack_bytes, char *err, int errlen)
{
	pthread_attr_t attr;
	pthread_attr_t *ap = NULL;
	if (parked != NULL) {
		snprintf(err, errlen, "threads already parked");
		return 0;
	}
	parked = calloc((size_t)n, sizeof(pthread_t));
	if (parked == NULL) {
		snprintf(err, errlen, "calloc: %s", strerror(errno));
		return 0;
	}
	if (stack_bytes > 0) {
		pthread_attr_init(&attr);
		if (pthread_attr_setstacksize(&attr, (size_t)stack_bytes) != 0) {
			snprintf(err, errlen, "bad stack size %llu", (unsigned long long)stack_bytes);
			pthread_attr_destroy(&attr);
			return 0;
		}
		ap = &attr;
	}
	park_released = 0;
	for (nparked = 0; nparked < n; nparked++) {
		int rc = pthread_create(&parked[nparked], ap, park_fn, NULL);
		if (rc != 0) {
			snprintf(err, errlen, "pthread_create of thread %d: %s", nparked + 1, strerror(rc));
			break;
		}
	}
	if (ap)
		pthread_attr_destroy(ap);
	return nparked;
}

/* Releases and joins every parked thread; returns how many were joined. */
int cb_spawn_release_threads(void)
{
	int n = nparked;
	pthread_mutex_lock(&park_mu);
	park_released = 1;
	pthread_cond_broadcast(&park_cv);
	pthread_mutex_unlock(&park_mu);
	for (int i = 0; i < n; i++)
		pthread_join(parked[i], NULL);
	free(parked);
	parked = NULL;
	nparked = 0;
	return n;
}
