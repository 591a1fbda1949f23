// SPDX-License-Identifier: MIT
/*
 * threads.c - concurrent use, for every backend: threads each growing
 * their own regions in a loop, and threads moving disjoint parts of one
 * shared mapping out and back in (FIXED) at the same time.
 */
#include <pthread.h>

#include "testlib.h"

#define NTHREADS 4

static int errors[NTHREADS];
static char *shared_map;
static size_t part_len;

/* Each thread: a vector doubled from one page to 256 KiB, five times. */
static void *grow_thread(void *arg)
{
	int id = (int)(intptr_t)arg, round;
	uint64_t seed = 100 + id;

	for (round = 0; round < 5; round++) {
		size_t sz = ps;
		char *v = mmap(NULL, sz, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *r;

		if (v == MAP_FAILED) {
			errors[id]++;
			return NULL;
		}
		tl_fill(v, sz, seed);
		while (sz < (256u << 10)) {
			r = mremap_retain(v, sz, 2 * sz, 0, NULL);
			if (r == MAP_FAILED) {
				errors[id]++;
				break;
			}
			if (!tl_check(r, sz, seed) || !tl_zero(r + sz, sz) ||
			    !tl_zero(v, sz))
				errors[id]++;
			munmap(v, sz);
			tl_fill_range(r, sz, 2 * sz, seed);
			v = r;
			sz *= 2;
		}
		munmap(v, sz);
	}
	return NULL;
}

/* Each thread: its part of one mapping moved out and back, 20 times. */
static void *part_thread(void *arg)
{
	int id = (int)(intptr_t)arg, i;
	char *part = shared_map + id * part_len, *r, *back;
	uint64_t seed = 200 + id;

	for (i = 0; i < 20; i++) {
		r = mremap_retain(part, part_len, part_len, 0, NULL);
		if (r == MAP_FAILED) {
			errors[id]++;
			return NULL;
		}
		if (!tl_check(r, part_len, seed) || !tl_zero(part, part_len))
			errors[id]++;
		back = mremap_retain(r, part_len, part_len, MREMAP_RETAIN_FIXED,
				     part);
		if (back != part) {
			errors[id]++;
			return NULL;
		}
		if (!tl_check(part, part_len, seed) || !tl_zero(r, part_len))
			errors[id]++;
		munmap(r, part_len);
	}
	return NULL;
}

static void *idle_thread(void *arg)
{
	return arg;
}

static int run_threads(void *(*fn)(void *))
{
	pthread_t t[NTHREADS];
	int i, bad = 0;

	memset(errors, 0, sizeof(errors));
	for (i = 0; i < NTHREADS; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(intptr_t)i))
			return -1;
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i], NULL);
		bad += errors[i];
	}
	return bad;
}

static void t_threads(void)
{
	long vm0 = tl_status_kb("VmSize");
	int bad, i;

	bad = run_threads(grow_thread);
	tap_ok(bad == 0, "[%s] %d threads growing their own regions: %d errors",
	       BN, NTHREADS, bad);

	part_len = 16 * ps;
	shared_map = tl_map(NTHREADS * part_len, PROT_READ | PROT_WRITE);
	for (i = 0; i < NTHREADS; i++)
		tl_fill(shared_map + i * part_len, part_len, 200 + i);
	bad = run_threads(part_thread);
	tap_ok(bad == 0,
	       "[%s] %d threads moving disjoint parts of one mapping out and back: %d errors",
	       BN, NTHREADS, bad);
	for (i = 0; i < NTHREADS; i++)
		if (!tl_check(shared_map + i * part_len, part_len, 200 + i))
			bad++;
	tap_ok(bad == 0 && tl_vma(shared_map, NULL, NULL, NULL) &&
	       tl_vma(shared_map + NTHREADS * part_len - 1, NULL, NULL, NULL),
	       "[%s] shared mapping: every part back in place and intact", BN);
	munmap(shared_map, NTHREADS * part_len);
	tap_ok(tl_status_kb("VmSize") == vm0,
	       "[%s] threads: no address space left behind (VmSize %+ld kB)",
	       BN, tl_status_kb("VmSize") - vm0);
}

int main(void)
{
	tl_start("threads");
	/* Thread stacks stay cached after join: make them before measuring. */
	run_threads(idle_thread);
	tl_run("threads", t_threads);
	return tap_done();
}
