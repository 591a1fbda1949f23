/* SPDX-License-Identifier: MIT */
/*
 * decommit_method.c - pick the decommit method by measuring each on first
 * use (about a millisecond), or as MREMAP_RETAIN_DECOMMIT=module|mmap|mprotect
 * says.  Which one wins depends on the machine: mprotect + MADV_DONTNEED
 * keeps the page tables, a single mmap(MAP_FIXED) makes one system call
 * less, and the module's ioctl does both steps of the first under one lock.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"

#define ROUNDS	150

static pthread_once_t choose_once = PTHREAD_ONCE_INIT;
static int method = MR_DECOMMIT_MMAP;	/* 0: forced, not available */
static int fallback = MR_DECOMMIT_MMAP;	/* the faster system call method */

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/*
 * Release the middle page of three, as an allocator releases one chunk of
 * a larger reservation, by each of the first @n methods (numbered from 1)
 * in turn, so that they share the noise.  Leaves the median time of each
 * in @median.
 */
static int calibrate(int n, long long median[])
{
	static long long t[3][ROUNDS];
	size_t ps = mr_page_size();
	char *region, *page;
	int i, k, m, ok = 0;

	region = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 0;
	page = region + ps;
	for (i = 0; i < ROUNDS; i++) {
		/* Forward and backward rotations in turn: no method always
		 * follows the same one (on emulated machines that shifts
		 * costs from one call to the next). */
		for (k = 0; k < n; k++) {
			long long t0;

			m = (i / 2 + k) % n;
			if (i & 1)
				m = n - 1 - m;
			if (mprotect(page, ps, PROT_READ | PROT_WRITE))
				goto out;
			page[0] = 1;
			t0 = now_ns();
			/* No fallback: it is what is being chosen. */
			if (mr_decommit_range(m + 1, 0, page, ps))
				goto out;
			t[m][i] = now_ns() - t0;
		}
	}
	for (m = 0; m < n; m++) {
		qsort(t[m], ROUNDS, sizeof(t[m][0]), cmp_ll);
		median[m] = t[m][ROUNDS / 2];
	}
	ok = 1;
out:
	munmap(region, 3 * ps);
	return ok;
}

static void choose(void)
{
	const char *env = getenv("MREMAP_RETAIN_DECOMMIT");
	bool module = mr_module_decommit_available();
	long long median[3];

	if (env && !strcmp(env, "mmap")) {
		method = fallback = MR_DECOMMIT_MMAP;
		return;
	}
	if (env && !strcmp(env, "mprotect")) {
		method = fallback = MR_DECOMMIT_MPROTECT;
		return;
	}
	if (env && !strcmp(env, "module")) {
		method = module ? MR_DECOMMIT_MODULE : 0;
		if (!method)
			return;
		module = false;		/* only the fallback is left to time */
	}
	if (!calibrate(module ? 3 : 2, median))
		return;
	if (median[MR_DECOMMIT_MPROTECT - 1] < median[MR_DECOMMIT_MMAP - 1])
		fallback = MR_DECOMMIT_MPROTECT;
	if (env && !strcmp(env, "module"))
		return;
	method = fallback;
	if (module && median[MR_DECOMMIT_MODULE - 1] < median[fallback - 1])
		method = MR_DECOMMIT_MODULE;
}

int mr_decommit_method(void)
{
	pthread_once(&choose_once, choose);
	return method;
}

int mr_decommit_fallback(void)
{
	pthread_once(&choose_once, choose);
	return fallback;
}
