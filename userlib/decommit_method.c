/* SPDX-License-Identifier: MIT */
/*
 * decommit_method.c - pick the decommit method by measuring each on first
 * use (about a millisecond), or as MREMAP_RETAIN_DECOMMIT=module|mprotect
 * says.  Only the methods that end in the same state are candidates: the
 * module's ioctl and mprotect(PROT_NONE) + MADV_DONTNEED, which it does
 * under one lock.  The ioctl does in one call what the system calls do in
 * three (hole check, protection, zap), so it is kept unless they measure
 * clearly faster (by more than MARGIN_PCT): a choice that noise between
 * two processes cannot flip, where the two cost about the same.  A single
 * mmap(PROT_NONE, MAP_FIXED) is cheaper on some machines, but it makes a
 * new mapping: the name, NUMA policy, madvise flags and protection key are
 * gone, and shared or file memory turns into private anonymous memory, so
 * the release would mean something else depending on what was timed.  It
 * is never chosen.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"

#define ROUNDS		150
#define MARGIN_PCT	10

static pthread_once_t choose_once = PTHREAD_ONCE_INIT;
static int method = MR_DECOMMIT_MPROTECT;	/* 0: forced, not available */

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
 * a larger reservation, by each of the @n methods @ms in turn, so that they
 * share the noise.  Leaves the median time of each in @median.
 */
static int calibrate(int n, const int ms[], long long median[])
{
	static long long t[2][ROUNDS];
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
			if (mr_decommit_range(ms[m], 0, page, ps))
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
	static const int candidates[] = { MR_DECOMMIT_MODULE, MR_DECOMMIT_MPROTECT };
	const char *env = getenv("MREMAP_RETAIN_DECOMMIT");
	bool module = mr_module_decommit_available();
	long long median[2];

	if (env && !strcmp(env, "mprotect"))
		return;
	if (env && !strcmp(env, "module")) {
		method = module ? MR_DECOMMIT_MODULE : 0;
		return;
	}
	if (!module)
		return;
	/* A calibration that fails (out of memory) keeps the system calls. */
	if (calibrate(2, candidates, median) &&
	    median[1] * 100 >= median[0] * (100 - MARGIN_PCT))
		method = MR_DECOMMIT_MODULE;
}

int mr_decommit_method(void)
{
	pthread_once(&choose_once, choose);
	return method;
}

/*
 * What the module hands back (locked, shared, file-backed, executable or
 * userfaultfd memory) is released by the system calls, the same way
 * whichever method was chosen.
 */
int mr_decommit_fallback(void)
{
	return MR_DECOMMIT_MPROTECT;
}
