/* SPDX-License-Identifier: MIT */
/*
 * decommit_method.c - pick the decommit method by measuring both on first
 * use (about a millisecond), or as MREMAP_RETAIN_DECOMMIT=mmap|mprotect says.
 * Which one wins depends on the machine: mprotect + MADV_DONTNEED keeps the
 * page tables, a single mmap(MAP_FIXED) makes one syscall and one TLB flush.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"

#define ROUNDS	150

static pthread_once_t choose_once = PTHREAD_ONCE_INIT;
static int method = MR_DECOMMIT_MMAP;

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

/* Release the middle page of three, as an allocator releases one chunk of
 * a larger reservation; the two methods take turns to share the noise. */
static void calibrate(void)
{
	static long long t[2][ROUNDS];
	size_t ps = mr_page_size();
	char *region, *page;
	int i, m;

	region = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return;
	page = region + ps;
	for (i = 0; i < ROUNDS; i++) {
		for (m = 0; m < 2; m++) {
			long long t0;

			if (mprotect(page, ps, PROT_READ | PROT_WRITE))
				goto out;
			page[0] = 1;
			t0 = now_ns();
			mr_decommit_with(m ? MR_DECOMMIT_MPROTECT :
				MR_DECOMMIT_MMAP, page, ps);
			t[m][i] = now_ns() - t0;
		}
	}
	qsort(t[0], ROUNDS, sizeof(t[0][0]), cmp_ll);
	qsort(t[1], ROUNDS, sizeof(t[1][0]), cmp_ll);
	if (t[1][ROUNDS / 2] < t[0][ROUNDS / 2])
		method = MR_DECOMMIT_MPROTECT;
out:
	munmap(region, 3 * ps);
}

static void choose(void)
{
	const char *env = getenv("MREMAP_RETAIN_DECOMMIT");

	if (env && !strcmp(env, "mmap"))
		method = MR_DECOMMIT_MMAP;
	else if (env && !strcmp(env, "mprotect"))
		method = MR_DECOMMIT_MPROTECT;
	else
		calibrate();
}

int mr_decommit_method(void)
{
	pthread_once(&choose_once, choose);
	return method;
}
