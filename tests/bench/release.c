// SPDX-License-Identifier: MIT
/*
 * release.c - benchmark 3, the mprotect-versus-mmap thread: release a fully
 * touched chunk (the middle one of three in a read-write mapping, as in a
 * chunk allocator's reservation), then reuse it: mprotect it read-write and
 * touch every page.  Release methods:
 *	mmap-fixed		mmap(PROT_NONE, MAP_FIXED) over the chunk
 *	mprotect+dontneed	mprotect(PROT_NONE) + madvise(MADV_DONTNEED)
 *	mprotect+free		mprotect(PROT_NONE) + madvise(MADV_FREE)
 *	decommit		mremap_retain_decommit() (the library's choice,
 *				per class: one page, or more)
 *	decommit-syscalls	the library's system-call method alone: its
 *				hole check (msync, beyond one page), then
 *				the second method
 *	module-ioctl		the module's DECOMMIT ioctl alone (guests only)
 * Figures: ns of a release, and of the reuse that follows it (freeing page
 * tables or pages moves cost to the next first touch).  Transparent huge
 * pages are off in the blocks (PR_SET_THP_DISABLE): where they are on
 * (Debian's kernels), whether a 2 MiB chunk's reuse got one depended on
 * the guest's free memory, and a release that frees one huge page costs
 * far less than one that frees 512 pages, so the 2 MiB cells were bimodal
 * (2026-12-04, trixie: the same ioctl 94 and 108 us in one run).  The
 * methods take turns, in a random order each round, so that they share the
 * machine's noise and none always follows the same one.  Each figure is the
 * median of bench_opts.blocks blocks of rounds, each block in a process of
 * its own (run_blocks()), with the blocks' minimum and maximum; a block's
 * figure is the median of its rounds.  The target's ratio, decommit
 * against mprotect + MADV_DONTNEED, is also taken block by block (metric
 * "vs_mprotect+dontneed": the median of the blocks' ratios).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#include <mremap_retain.h>

#include "bench.h"
#include "internal.h"

#ifndef MADV_FREE
#define MADV_FREE 8
#endif

enum rel {
	REL_MMAP, REL_DONTNEED, REL_FREE, REL_DECOMMIT, REL_SYSCALLS,
	REL_IOCTL, NREL
};

static const char *const rel_names[NREL] = {
	[REL_MMAP] = "mmap-fixed",
	[REL_DONTNEED] = "mprotect+dontneed",
	[REL_FREE] = "mprotect+free",
	[REL_DECOMMIT] = "decommit",
	[REL_SYSCALLS] = "decommit-syscalls",
	[REL_IOCTL] = "module-ioctl",
};

#define MIN_ROUNDS	20
#define MAX_ROUNDS	20000

static int release(int m, char *p, size_t len)
{
	switch (m) {
	case REL_MMAP:
		return mmap(p, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS |
			    MAP_FIXED | MAP_NORESERVE, -1, 0) == p ? 0 : -1;
	case REL_DONTNEED:
	case REL_FREE:
		if (mprotect(p, len, PROT_NONE))
			return -1;
		return madvise(p, len, m == REL_FREE ? MADV_FREE : MADV_DONTNEED);
	case REL_DECOMMIT:
		return mremap_retain_decommit(p, len);
	case REL_SYSCALLS:
		errno = mr_decommit_range(MR_DECOMMIT_MPROTECT, 0, p, len);
		return errno ? -1 : 0;
	case REL_IOCTL:
		errno = mr_module_decommit(p, len);
		return errno ? -1 : 0;
	}
	return -1;
}

int release_reuse(char *p, size_t len)
{
	size_t i;

	if (mprotect(p, len, PROT_READ | PROT_WRITE))
		return -1;
	for (i = 0; i < len; i += page_size)
		((volatile char *)p)[i] = 1;
	return 0;
}

int release_zeroed(const char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += page_size)
		if (p[i])
			return 0;
	return 1;
}

static long long t_rel[NREL][MAX_ROUNDS], t_use[NREL][MAX_ROUNDS];
static int nrel = NREL;		/* without the module: no module-ioctl */

/* Fisher-Yates with xorshift64: a fixed seed, so that runs are alike. */
static void shuffle(int *a, int n, uint64_t *seed)
{
	int i, j, t;

	for (i = 0; i < n; i++)
		a[i] = i;
	for (i = n - 1; i > 0; i--) {
		*seed ^= *seed << 13;
		*seed ^= *seed >> 7;
		*seed ^= *seed << 17;
		j = *seed % (i + 1);
		t = a[i], a[i] = a[j], a[j] = t;
	}
}

/* One block of rounds with chunks of *(size_t *)arg bytes: out[2m] and
 * out[2m + 1] are the median release and reuse of method m, in ns. */
static int size_block(void *arg, double *out)
{
	const size_t c = *(size_t *)arg;
	const long long budget = bench_opts.budget_ms * 1000000LL * nrel /
				 bench_opts.blocks;
	size_t align = c > 2 * MIB ? c : 2 * MIB, res_len[NREL];
	char *chunk[NREL], sz[32];
	long long start;
	void *res[NREL];
	int order[NREL], k, m, r;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	/* This block's process only: every method frees the same pages. */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		die("PR_SET_THP_DISABLE: %m");
	for (m = 0; m < nrel; m++) {
		char *base = reserve_aligned(3 * c, align, &res[m], &res_len[m]);

		map_slot(base, 3 * c, 0);
		chunk[m] = base + c;
		memset(chunk[m], 1, c);
	}
	start = now_ns();
	for (r = 0; r < MAX_ROUNDS; r++) {
		if (r >= MIN_ROUNDS && now_ns() - start >= budget)
			break;
		/* A new random order each round, so that no method always
		 * follows the same one (TCG's software TLB and translation
		 * caches carry costs from one call to the next). */
		shuffle(order, nrel, &seed);
		for (k = 0; k < nrel; k++) {
			long long t0, t1, t2;

			m = order[k];

			t0 = now_ns();
			if (release(m, chunk[m], c))
				die("release %s: %m", rel_names[m]);
			t1 = now_ns();
			if (release_reuse(chunk[m], c))
				die("reuse after %s: %m", rel_names[m]);
			t2 = now_ns();
			t_rel[m][r] = t1 - t0;
			t_use[m][r] = t2 - t1;
		}
	}
	for (m = 0; m < nrel; m++) {
		/* Once more, untimed: the chunk must come back zeroed (except
		 * MADV_FREE, whose pages stay until memory runs short). */
		if (release(m, chunk[m], c) ||
		    mprotect(chunk[m], c, PROT_READ | PROT_WRITE))
			die("%s: %m", rel_names[m]);
		if (m != REL_FREE && !release_zeroed(chunk[m], c))
			die("release %s %s: the chunk kept its data", rel_names[m],
			    size_name(c, sz, sizeof(sz)));
		munmap(res[m], res_len[m]);
		out[2 * m] = median_ll(t_rel[m], r);
		out[2 * m + 1] = median_ll(t_use[m], r);
	}
	/* The target's ratio, within the block: both shared its state. */
	out[2 * nrel] = out[2 * REL_DECOMMIT] / out[2 * REL_DONTNEED];
	note("release: %s: %d rounds", size_name(c, sz, sizeof(sz)), r);
	return 0;
}

static int one_size(size_t c)
{
	struct spread s[2 * NREL + 1];
	int m;

	if (run_blocks(size_block, &c, 2 * nrel + 1, s))
		return -1;
	for (m = 0; m < nrel; m++) {
		emit_spread("release", rel_names[m], c, "release", s[2 * m], 1,
			    "ns");
		emit_spread("release", rel_names[m], c, "reuse", s[2 * m + 1],
			    1, "ns");
	}
	emit_spread("release", rel_names[REL_DECOMMIT], c,
		    "vs_mprotect+dontneed", s[2 * nrel], 1, "x");
	return 0;
}

int release_bench(void)
{
	static const size_t sizes[] = { 4 * KIB, 64 * KIB, 2 * MIB };
	size_t i;
	int failed = 0;

	static const char *const method[] = {
		[MR_DECOMMIT_MMAP] = "mmap-fixed",
		[MR_DECOMMIT_MPROTECT] = "mprotect+dontneed",
		[MR_DECOMMIT_MODULE] = "module ioctl",
	};

	if (!mr_module_decommit_available())
		nrel = REL_IOCTL;
	note("release: decommit uses the %s method for one page, the %s "
	     "method for more", method[mr_decommit_method(page_size)],
	     method[mr_decommit_method(2 * page_size)]);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		if (one_size(sizes[i]))
			failed = 1;
	return failed;
}
