/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c - concurrent moves and decommits from several threads on
 * every host backend, including the first call (backend choice, probes);
 * and a moving thread whose signal handler reads the source, signalled
 * all the time by another thread: while the library holds the source
 * registered with its userfaultfd (its check), such a read would wait for
 * ever, so no handler may run then.
 */
#include "../sigreader.h"
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

#define SIG_PAGES	64
#define SIG_MOVES	2000

/* In a child: SIG_MOVES moves of an untouched source, signalled. */
static int signalled_moves(void)
{
	size_t len = SIG_PAGES * PS;
	pthread_t me, t;
	int runs;

	sigreader_start(&t, &me, SIG_PAGES, PS);
	for (int i = 0; i < SIG_MOVES; i++) {
		char *p = map_anon(len, PROT_READ | PROT_WRITE), *r;

		sigreader_range = p;
		r = mremap_retain(p, len, len, 0);
		sigreader_range = NULL;
		if (r == MAP_FAILED)
			return 1;
		munmap(r, len);
		munmap(p, len);
	}
	runs = sigreader_end(t);
	printf("# %d signals handled during %d moves\n", runs, SIG_MOVES);
	fflush(stdout);
	return runs ? 0 : 1;
}

static void run_signalled(const char *what)
{
	int rc = sigreader_watched(signalled_moves, 60);

	tap_ok(rc == 0,
	       "%s: %d moves, a handler reading the source signalled throughout%s",
	       what, SIG_MOVES, rc == -1 ? " (hung: killed after 60 s)" : "");
}

int main(void)
{
	int b;

	run("first use from threads");
	for_each_backend(b)
		run(mremap_retain_backend_name(b));
	for_each_backend(b)
		run_signalled(mremap_retain_backend_name(b));
	return tap_done();
}
