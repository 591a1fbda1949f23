/* SPDX-License-Identifier: MIT */
/*
 * decommit_method.c - pick the decommit method by measuring each on first
 * use (about a millisecond), or as MREMAP_RETAIN_DECOMMIT=module|mprotect
 * says.  Only the methods that end in the same state are candidates: the
 * module's ioctl and mprotect(PROT_NONE) + MADV_DONTNEED, which it does
 * under one lock.  The ioctl does in one call what the system calls do in
 * two for one page and in three for more (their hole check, decommit.c),
 * so the choice is made twice: for one page, and for longer ranges.  Both
 * methods do the per-page work by the same kernel functions (the
 * protection change and the zap of mprotect() and MADV_DONTNEED), so they
 * differ by a cost per call, which one-page releases show.  The system
 * calls are kept unless the ioctl measures clearly faster (by more than
 * MARGIN_PCT): a choice that noise between two processes cannot flip,
 * where the two cost about the same, and one that falls to the release
 * every other program makes (and that decommit is measured against)
 * unless the module earns its place.  A single mmap(PROT_NONE, MAP_FIXED)
 * is cheaper on some machines, but it makes a new mapping: the name, NUMA
 * policy, madvise flags and protection key are gone, and shared or file
 * memory turns into private anonymous memory, so the release would mean
 * something else depending on what was timed.  It is never chosen.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "internal.h"

#define ROUNDS		150
#define MARGIN_PCT	10

static pthread_once_t choose_once = PTHREAD_ONCE_INIT;
/* For one page and for more; 0: forced, not available. */
static int method_page = MR_DECOMMIT_MPROTECT;
static int method_more = MR_DECOMMIT_MPROTECT;

/* What calibrate() times: a one-page release as each class makes it. */
enum { CAL_MODULE, CAL_PAGE, CAL_MORE, NCAL };

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
 * a larger reservation, in each of the NCAL ways in turn, so that they
 * share the noise: the ioctl, the system calls as for one page, and the
 * system calls with the hole check a longer range needs.  Leaves the
 * median time of each in @median.
 */
static int calibrate(long long median[NCAL])
{
	static long long t[NCAL][ROUNDS];
	size_t ps = mr_page_size();
	char *region, *page;
	int i, k, m, ok = 0;

	region = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return 0;
	page = region + ps;
	for (i = 0; i < ROUNDS; i++) {
		/* Forward and backward rotations in turn: no way always
		 * follows the same one (on emulated machines that shifts
		 * costs from one call to the next). */
		for (k = 0; k < NCAL; k++) {
			long long t0;
			int err;

			m = (i / 2 + k) % NCAL;
			if (i & 1)
				m = NCAL - 1 - m;
			if (mprotect(page, ps, PROT_READ | PROT_WRITE))
				goto out;
			page[0] = 1;
			t0 = now_ns();
			/* No fallback: it is what is being chosen. */
			if (m == CAL_MODULE)
				err = mr_decommit_range(MR_DECOMMIT_MODULE, 0,
							page, ps);
			else if (m == CAL_MORE && msync(page, ps, MS_ASYNC))
				err = errno;
			else
				err = mr_decommit_with(MR_DECOMMIT_MPROTECT,
						       page, ps);
			if (err)
				goto out;
			t[m][i] = now_ns() - t0;
		}
	}
	for (m = 0; m < NCAL; m++) {
		qsort(t[m], ROUNDS, sizeof(t[m][0]), cmp_ll);
		median[m] = t[m][ROUNDS / 2];
	}
	ok = 1;
out:
	munmap(region, 3 * ps);
	return ok;
}

/* The system calls, unless the ioctl took clearly less. */
static int pick(long long module, long long syscalls)
{
	return module * 100 < syscalls * (100 - MARGIN_PCT) ?
	       MR_DECOMMIT_MODULE : MR_DECOMMIT_MPROTECT;
}

static void choose(void)
{
	const char *env = getenv("MREMAP_RETAIN_DECOMMIT");
	bool module = mr_module_decommit_available();
	long long median[NCAL];

	if (env && !strcmp(env, "mprotect"))
		return;
	if (env && !strcmp(env, "module")) {
		method_page = method_more = module ? MR_DECOMMIT_MODULE : 0;
		return;
	}
	if (!module)
		return;
	/* A calibration that fails (out of memory) keeps the system calls. */
	if (calibrate(median)) {
		method_page = pick(median[CAL_MODULE], median[CAL_PAGE]);
		method_more = pick(median[CAL_MODULE], median[CAL_MORE]);
	}
}

int mr_decommit_method(size_t len)
{
	pthread_once(&choose_once, choose);
	return len > mr_page_size() ? method_more : method_page;
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
