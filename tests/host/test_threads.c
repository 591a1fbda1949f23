/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - concurrent moves and decommits from several threads on
 * every host backend, including the first call (backend choice, probes).
 */
#include <pthread.h>

#include "../tap.h"
#include "util.h"

#define THREADS	4
#define ROUNDS	200

static int errors;

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	size_t len = (seed % 3 + 1) * PS;
	char *p = map_anon(len, PROT_READ | PROT_WRITE), *r;

	for (int i = 0; i < ROUNDS; i++) {
		fill(p, len, seed + i);
		r = mremap_retain(p, len, len + PS, 0);
		if (r == MAP_FAILED || !has_pattern(r, len, seed + i) || !is_zero(p, len) ||
		    !is_zero(r + len, PS)) {
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
			break;
		}
		if (mremap_retain_decommit(r, len + PS))
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
		munmap(r, len + PS);
	}
	munmap(p, len);
	return NULL;
}

static void run(const char *what)
{
	pthread_t t[THREADS];

	errors = 0;
	for (uintptr_t i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	tap_ok(errors == 0, "%s: %d threads x %d moves and decommits (%d errors)",
	       what, THREADS, ROUNDS, errors);
}

int main(void)
{
	int b;

	run("first use from threads");
	for_each_backend(b)
		run(mremap_retain_backend_name(b));
	return tap_done();
}
